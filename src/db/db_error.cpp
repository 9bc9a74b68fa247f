#include "db/db_error.hpp"

#include "db/limits.hpp"

namespace cairn::db {
namespace {

bool IsPlainName(std::string_view name) {
  if (name.empty()) return false;
  for (const char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == ' ' || c == '-';
    if (!ok) return false;
  }
  return true;
}

}  // namespace

Error MakeDbError(DbErrorKind kind, std::string detail, const std::vector<std::string>& columns) {
  Error error;
  error.detail = std::move(detail);
  switch (kind) {
    case DbErrorKind::kUnique:
      error.code = ErrorCode::kConflict;
      error.reason = kUniqueViolation;
      error.message = "A record with this value already exists";
      for (const auto& column : columns) error.errors.push_back({column, "must be unique"});
      break;
    case DbErrorKind::kForeignKey:
      error.code = ErrorCode::kConflict;
      error.reason = kForeignKeyViolation;
      error.message = "The change refers to a record that does not exist or is still referenced";
      break;
    case DbErrorKind::kBusy:
      error.code = ErrorCode::kConflict;
      error.reason = kSerializationFailure;
      error.message = "The database is busy; retry the request";
      break;
    case DbErrorKind::kUnavailable:
      error.code = ErrorCode::kUnavailable;
      error.reason = kDatabaseUnavailable;
      error.message = "The database is unavailable";
      break;
    case DbErrorKind::kTimeout:
      error.code = ErrorCode::kUnavailable;
      error.reason = kDatabaseTimeout;
      error.message = "The database did not answer in time; retry the request";
      error.retry_after_seconds = kRetryAfterSeconds;
      break;
    case DbErrorKind::kFull:
      error.code = ErrorCode::kUnavailable;
      error.http_status = 507;
      error.reason = kDatabaseFull;
      error.message = "The database is out of storage space; nothing was written";
      error.retry_after_seconds = kRetryAfterSeconds;
      break;
    case DbErrorKind::kOther:
      error.code = ErrorCode::kInternal;
      error.reason = kDatabaseError;
      error.message = "An unexpected error occurred";
      break;
  }
  return error;
}

DbErrorKind ErrorKindOf(const Error& error) {
  if (error.reason == kUniqueViolation) return DbErrorKind::kUnique;
  if (error.reason == kForeignKeyViolation) return DbErrorKind::kForeignKey;
  if (error.reason == kSerializationFailure) return DbErrorKind::kBusy;
  if (error.reason == kDatabaseUnavailable) return DbErrorKind::kUnavailable;
  if (error.reason == kDatabaseTimeout) return DbErrorKind::kTimeout;
  if (error.reason == kDatabaseFull) return DbErrorKind::kFull;
  return DbErrorKind::kOther;
}

DbErrorKind PostgresErrorKind(std::string_view sqlstate, std::string_view message) {
  if (sqlstate == "23505") return DbErrorKind::kUnique;
  if (sqlstate == "23503") return DbErrorKind::kForeignKey;
  // serialization_failure, deadlock_detected: running the transaction again may well succeed.
  if (sqlstate == "40001" || sqlstate == "40P01") return DbErrorKind::kBusy;
  // A cached statement whose result columns changed under a migration: the statement has been
  // dropped from the cache, and running the transaction again prepares it afresh.
  if (sqlstate == "0A000" &&
      message.find("cached plan must not change result type") != std::string_view::npos) {
    return DbErrorKind::kBusy;
  }
  // query_canceled (statement_timeout, or a cancel request), lock_not_available (lock_timeout):
  // the wait already took its full budget, so it is not run again here; the client may retry.
  if (sqlstate == "57014" || sqlstate == "55P03") return DbErrorKind::kTimeout;
  // disk_full
  if (sqlstate == "53100") return DbErrorKind::kFull;
  // connection_exception, admin/crash shutdown, cannot_connect_now, insufficient_resources,
  // out_of_memory, too_many_connections, idle_in_transaction_session_timeout
  if (sqlstate.starts_with("08") || sqlstate == "57P01" || sqlstate == "57P02" ||
      sqlstate == "57P03" || sqlstate == "53000" || sqlstate == "53200" || sqlstate == "53300" ||
      sqlstate == "25P03") {
    return DbErrorKind::kUnavailable;
  }
  return DbErrorKind::kOther;
}

std::vector<std::string> SqliteUniqueColumns(std::string_view message) {
  constexpr std::string_view kPrefix = "UNIQUE constraint failed: ";
  const std::size_t start = message.find(kPrefix);
  if (start == std::string_view::npos) return {};
  std::string_view rest = message.substr(start + kPrefix.size());
  if (rest.starts_with("index ")) return {};  // an expression index: no column to name
  std::vector<std::string> columns;
  while (!rest.empty()) {
    const std::size_t comma = rest.find(", ");
    std::string_view item = rest.substr(0, comma);
    const std::size_t dot = item.rfind('.');
    if (dot != std::string_view::npos) item = item.substr(dot + 1);
    if (!item.empty()) columns.emplace_back(item);
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 2);
  }
  return columns;
}

std::vector<std::string> PostgresKeyColumns(std::string_view detail) {
  constexpr std::string_view kPrefix = "Key (";
  const std::size_t start = detail.find(kPrefix);
  if (start == std::string_view::npos) return {};
  std::vector<std::string> columns;
  std::string current;
  bool quoted = false;
  bool was_quoted = false;
  for (std::size_t i = start + kPrefix.size(); i < detail.size(); ++i) {
    const char c = detail[i];
    if (quoted) {
      if (c == '"') {
        if (i + 1 < detail.size() && detail[i + 1] == '"') {
          current += '"';
          ++i;
        } else {
          quoted = false;
        }
      } else {
        current += c;
      }
    } else if (c == '"') {
      quoted = true;
      was_quoted = true;
    } else if (c == ',' || c == ')') {
      if (was_quoted ? current.empty() : !IsPlainName(current)) return {};
      columns.push_back(std::move(current));
      current.clear();
      was_quoted = false;
      if (c == ')')
        return i + 1 < detail.size() && detail[i + 1] == '=' ? columns : std::vector<std::string>{};
      if (i + 1 < detail.size() && detail[i + 1] == ' ') ++i;
    } else if (c == '(') {
      return {};  // an expression (`lower(email)`): no column to name
    } else {
      current += c;
    }
  }
  return {};
}

}  // namespace cairn::db
