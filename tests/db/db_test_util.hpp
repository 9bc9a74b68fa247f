// Small helpers shared by the database tests.
#pragma once

#include <string>
#include <string_view>

#include <gtest/gtest.h>

#include "db/database.hpp"

namespace cairn::test {

inline std::string Describe(const Error& error) {
  std::string out = error.message;
  if (!error.reason.empty()) out += " [" + error.reason + "]";
  if (!error.detail.empty()) out += " (" + error.detail + ")";
  return out;
}

#define CAIRN_ASSERT_OK(expr)                                                          \
  do {                                                                                 \
    const auto& cairn_status_ = (expr);                                                \
    ASSERT_TRUE(cairn_status_.ok()) << ::cairn::test::Describe(cairn_status_.error()); \
  } while (0)

#define CAIRN_EXPECT_OK(expr)                                                          \
  do {                                                                                 \
    const auto& cairn_status_ = (expr);                                                \
    EXPECT_TRUE(cairn_status_.ok()) << ::cairn::test::Describe(cairn_status_.error()); \
  } while (0)

// Runs `sql` (DDL or DML without parameters) in its own write transaction.
inline Status RunScript(db::Database& database, std::string_view sql) {
  return database.Transaction(db::Access::kWrite, [&](db::Connection& connection) {
    return connection.ExecuteScript(sql);
  });
}

// The single integer `sql` yields (in a read transaction); -1 on error (with a test failure).
inline std::int64_t QueryInt(db::Database& database, std::string_view sql) {
  std::int64_t value = -1;
  const Status status = database.Transaction(db::Access::kRead, [&](db::Connection& connection) {
    auto result = connection.Execute(
        sql, {}, [&](const db::Row& row) { value = row.IsNull(0) ? 0 : row.GetInt64(0); });
    if (!result.ok()) return Status(std::move(result).error());
    return Status();
  });
  EXPECT_TRUE(status.ok()) << Describe(status.error());
  return value;
}

}  // namespace cairn::test
