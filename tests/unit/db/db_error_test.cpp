// Driver errors to cairn Errors: which SQLSTATE is which kind, and what each kind answers.
#include <gtest/gtest.h>

#include "db/db_error.hpp"

namespace cairn::db {
namespace {

TEST(PostgresErrorKind, MapsEverySqlstateCairnTellsApart) {
  EXPECT_EQ(PostgresErrorKind("23505", ""), DbErrorKind::kUnique);
  EXPECT_EQ(PostgresErrorKind("23503", ""), DbErrorKind::kForeignKey);
  EXPECT_EQ(PostgresErrorKind("40001", ""), DbErrorKind::kBusy);
  EXPECT_EQ(PostgresErrorKind("40P01", ""), DbErrorKind::kBusy);
  EXPECT_EQ(PostgresErrorKind("0A000", "cached plan must not change result type"),
            DbErrorKind::kBusy);
  EXPECT_EQ(PostgresErrorKind("0A000", "feature not supported"), DbErrorKind::kOther);
  // statement_timeout (query_canceled) and lock_timeout (lock_not_available)
  EXPECT_EQ(PostgresErrorKind("57014", ""), DbErrorKind::kTimeout);
  EXPECT_EQ(PostgresErrorKind("55P03", ""), DbErrorKind::kTimeout);
  // disk_full; insufficient_resources and out_of_memory are an unavailable server
  EXPECT_EQ(PostgresErrorKind("53100", ""), DbErrorKind::kFull);
  EXPECT_EQ(PostgresErrorKind("53000", ""), DbErrorKind::kUnavailable);
  EXPECT_EQ(PostgresErrorKind("53200", ""), DbErrorKind::kUnavailable);
  EXPECT_EQ(PostgresErrorKind("53300", ""), DbErrorKind::kUnavailable);
  EXPECT_EQ(PostgresErrorKind("08006", ""), DbErrorKind::kUnavailable);
  EXPECT_EQ(PostgresErrorKind("57P01", ""), DbErrorKind::kUnavailable);
  EXPECT_EQ(PostgresErrorKind("25P03", ""), DbErrorKind::kUnavailable);
  EXPECT_EQ(PostgresErrorKind("42P01", ""), DbErrorKind::kOther);
}

TEST(MakeDbError, ATimeoutIsAServiceUnavailableWorthRetrying) {
  const Error error = MakeDbError(DbErrorKind::kTimeout, "canceling statement due to timeout");
  EXPECT_EQ(error.code, ErrorCode::kUnavailable);
  EXPECT_EQ(HttpStatus(error.code), 503);
  EXPECT_EQ(error.http_status, 0);
  EXPECT_EQ(error.reason, kDatabaseTimeout);
  EXPECT_GT(error.retry_after_seconds, 0);
  EXPECT_EQ(error.detail, "canceling statement due to timeout");
  EXPECT_EQ(error.message.find("canceling"), std::string::npos);  // the detail stays in the log
  EXPECT_EQ(ErrorKindOf(error), DbErrorKind::kTimeout);
}

TEST(MakeDbError, AFullDiskIsInsufficientStorage) {
  const Error error = MakeDbError(DbErrorKind::kFull, "could not extend file: No space left");
  EXPECT_EQ(error.code, ErrorCode::kUnavailable);
  EXPECT_EQ(CodeName(error.code), "SERVICE_UNAVAILABLE");
  EXPECT_EQ(error.http_status, 507);
  EXPECT_EQ(error.reason, kDatabaseFull);
  EXPECT_GT(error.retry_after_seconds, 0);
  EXPECT_EQ(ErrorKindOf(error), DbErrorKind::kFull);
}

TEST(MakeDbError, OtherKindsKeepTheirAnswers) {
  EXPECT_EQ(MakeDbError(DbErrorKind::kBusy, "").code, ErrorCode::kConflict);
  EXPECT_EQ(MakeDbError(DbErrorKind::kUnavailable, "").code, ErrorCode::kUnavailable);
  EXPECT_EQ(MakeDbError(DbErrorKind::kUnavailable, "").retry_after_seconds, 0);
  EXPECT_EQ(MakeDbError(DbErrorKind::kOther, "").code, ErrorCode::kInternal);
  EXPECT_EQ(ErrorKindOf(Error::Internal("x")), DbErrorKind::kOther);
}

}  // namespace
}  // namespace cairn::db
