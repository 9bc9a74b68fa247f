#include "db/db_error.hpp"

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
