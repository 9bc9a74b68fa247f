#include "db/sqlite/sqlite_connection.hpp"

#include <cmath>
#include <string_view>

#include "common/time.hpp"
#include "db/db_error.hpp"
#include "db/decimal.hpp"
#include "db/limits.hpp"

namespace cairn::db::sqlite {
namespace {

DbErrorKind KindOf(int rc) {
  switch (rc) {
    case SQLITE_CONSTRAINT_UNIQUE:
    case SQLITE_CONSTRAINT_PRIMARYKEY:
      return DbErrorKind::kUnique;
    case SQLITE_CONSTRAINT_FOREIGNKEY:
      return DbErrorKind::kForeignKey;
    default:
      break;
  }
  switch (rc & 0xff) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return DbErrorKind::kBusy;
    case SQLITE_FULL:
      return DbErrorKind::kFull;
    case SQLITE_CANTOPEN:
    case SQLITE_IOERR:
    case SQLITE_NOTADB:
    case SQLITE_CORRUPT:
      return DbErrorKind::kUnavailable;
    default:
      return DbErrorKind::kOther;
  }
}

double Pow10(int scale) {
  return std::pow(10.0, scale);
}

bool OnlySeparators(const char* tail) {
  for (; tail != nullptr && *tail != '\0'; ++tail) {
    const char c = *tail;
    if (c != ' ' && c != '\n' && c != '\t' && c != '\r' && c != ';') return false;
  }
  return true;
}

class SqliteRow final : public Row {
 public:
  explicit SqliteRow(sqlite3_stmt* stmt) : stmt_(stmt) {}

  int ColumnCount() const override { return sqlite3_column_count(stmt_); }
  std::string_view ColumnName(int column) const override {
    const char* name = sqlite3_column_name(stmt_, column);
    return name == nullptr ? std::string_view() : std::string_view(name);
  }
  bool IsNull(int column) const override { return Type(column) == SQLITE_NULL; }
  std::int64_t GetInt64(int column) const override {
    if (Type(column) == SQLITE_FLOAT) return std::llround(sqlite3_column_double(stmt_, column));
    return sqlite3_column_int64(stmt_, column);
  }
  double GetDouble(int column) const override { return sqlite3_column_double(stmt_, column); }
  bool GetBool(int column) const override {
    if (Type(column) == SQLITE_TEXT) {
      const std::string_view text = GetText(column);
      return text == "1" || text == "t" || text == "true" || text == "TRUE";
    }
    return sqlite3_column_int64(stmt_, column) != 0;
  }
  std::string_view GetText(int column) const override {
    const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, column));
    if (text == nullptr) return {};
    return {text, static_cast<std::size_t>(sqlite3_column_bytes(stmt_, column))};
  }
  std::string GetBlob(int column) const override {
    const auto* data = static_cast<const char*>(sqlite3_column_blob(stmt_, column));
    if (data == nullptr) return {};
    return {data, static_cast<std::size_t>(sqlite3_column_bytes(stmt_, column))};
  }
  std::int64_t GetTimestampMillis(int column) const override {
    switch (Type(column)) {
      case SQLITE_TEXT:
        return time::ParseIso(GetText(column)).value_or(0);
      case SQLITE_FLOAT:
        return std::llround(sqlite3_column_double(stmt_, column));
      default:
        return sqlite3_column_int64(stmt_, column);
    }
  }
  Decimal GetDecimal(int column, int scale) const override {
    switch (Type(column)) {
      case SQLITE_TEXT:
        return ParseDecimal(GetText(column), scale).value_or(Decimal{0, scale});
      case SQLITE_FLOAT:
        return Decimal{std::llround(sqlite3_column_double(stmt_, column) * Pow10(scale)), scale};
      default:
        return Decimal{sqlite3_column_int64(stmt_, column), scale};
    }
  }

 private:
  int Type(int column) const { return sqlite3_column_type(stmt_, column); }
  sqlite3_stmt* stmt_;
};

int Bind(sqlite3_stmt* stmt, int index, const Value& value) {
  struct Binder {
    sqlite3_stmt* stmt;
    int index;
    int operator()(const Null&) const { return sqlite3_bind_null(stmt, index); }
    int operator()(bool v) const { return sqlite3_bind_int(stmt, index, v ? 1 : 0); }
    int operator()(std::int64_t v) const { return sqlite3_bind_int64(stmt, index, v); }
    int operator()(double v) const { return sqlite3_bind_double(stmt, index, v); }
    int operator()(const std::string& v) const { return Text(v); }
    int operator()(std::string_view v) const { return Text(v); }
    int operator()(const Timestamp& v) const {
      return sqlite3_bind_int64(stmt, index, v.epoch_millis);
    }
    int operator()(const Decimal& v) const { return sqlite3_bind_int64(stmt, index, v.units); }
    int operator()(const Json& v) const { return Text(v.text); }
    int operator()(const Blob& v) const {
      return sqlite3_bind_blob64(stmt, index, v.bytes.data(), v.bytes.size(), SQLITE_STATIC);
    }
    // The values outlive the statement's execution; bindings are cleared before Execute returns.
    int Text(std::string_view v) const {
      return sqlite3_bind_text64(stmt, index, v.data(), v.size(), SQLITE_STATIC, SQLITE_UTF8);
    }
  };
  return std::visit(Binder{stmt, index}, value);
}

// Resets the statement and drops its bindings however Execute leaves (also by an exception
// from the row callback), so the cached statement holds no locks and no dangling pointers.
struct StatementReset {
  sqlite3_stmt* stmt;
  ~StatementReset() {
    sqlite3_reset(stmt);
    sqlite3_clear_bindings(stmt);
  }
};

// Memory statistics make every SQLite allocation take one process-wide mutex, which the I/O
// threads' readers then contend on (futex wake-ups on every list); cairn never reads them. Only
// possible before SQLite initializes, so it runs ahead of the first open.
void DisableMemoryStatisticsOnce() {
  static const int rc = sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
  (void)rc;  // SQLITE_MISUSE when something initialized SQLite first: statistics stay on
}

}  // namespace

SqliteConnection::SqliteConnection(sqlite3* db)
    : db_(db),
      cache_(kStatementCacheCapacity, [](sqlite3_stmt*& stmt) { sqlite3_finalize(stmt); }) {}

SqliteConnection::~SqliteConnection() {
  cache_.Clear();
  sqlite3_close_v2(db_);
}

Result<std::unique_ptr<SqliteConnection>> SqliteConnection::Open(
    const std::string& path, const ConnectionSettings& settings) {
  DisableMemoryStatisticsOnce();
  sqlite3* db = nullptr;
  const int flags =
      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE;
  const int rc = sqlite3_open_v2(path.c_str(), &db, flags, nullptr);
  if (rc != SQLITE_OK) {
    std::string detail = "sqlite3_open_v2(" + path + "): ";
    detail += db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    sqlite3_close_v2(db);
    return MakeDbError(DbErrorKind::kUnavailable, std::move(detail));
  }
  std::unique_ptr<SqliteConnection> connection(new SqliteConnection(db));
  sqlite3_extended_result_codes(db, 1);
  sqlite3_busy_timeout(db, static_cast<int>(settings.busy_timeout.count()));

  std::string pragmas = "PRAGMA foreign_keys = ON; PRAGMA synchronous = ";
  pragmas += kSqliteSynchronous;
  pragmas += "; PRAGMA mmap_size = " + std::to_string(kSqliteMmapBytes) + ";";
  if (settings.role == Role::kWriter) {
    // The writer's WAL hook replaces auto-checkpointing; checkpoints run on their own thread.
    pragmas += " PRAGMA wal_autocheckpoint = 0;";
    if (settings.journal_size_limit >= 0) {
      pragmas +=
          " PRAGMA journal_size_limit = " + std::to_string(settings.journal_size_limit) + ";";
    }
  } else if (settings.role == Role::kReader) {
    pragmas += " PRAGMA query_only = ON;";
  }
  CAIRN_TRY(connection->ExecuteScript(pragmas));
  if (settings.role == Role::kWriter) {
    std::string mode;
    auto result = connection->Execute("PRAGMA journal_mode = WAL", std::span<const Value>(),
                                      [&](const Row& row) { mode = row.GetText(0); });
    if (!result.ok()) return std::move(result).error();
    if (mode != "wal") {
      return MakeDbError(DbErrorKind::kUnavailable,
                         "could not switch " + path + " to WAL mode (journal_mode=" + mode + ")");
    }
  }
  return connection;
}

Error SqliteConnection::MakeError(int rc, std::string_view context) const {
  std::string detail(context);
  detail += ": ";
  detail += sqlite3_errmsg(db_);
  const int code = sqlite3_extended_errcode(db_) != SQLITE_OK ? sqlite3_extended_errcode(db_) : rc;
  DbErrorKind kind = KindOf(code);
  // ON DELETE RESTRICT is enforced by a trigger: SQLITE_CONSTRAINT_TRIGGER with the foreign
  // key message.
  if (code == SQLITE_CONSTRAINT_TRIGGER &&
      std::string_view(sqlite3_errmsg(db_)) == "FOREIGN KEY constraint failed") {
    kind = DbErrorKind::kForeignKey;
  }
  if (kind == DbErrorKind::kUnique) {
    return MakeDbError(kind, std::move(detail), SqliteUniqueColumns(sqlite3_errmsg(db_)));
  }
  return MakeDbError(kind, std::move(detail));
}

Result<sqlite3_stmt*> SqliteConnection::Prepare(std::string_view sql) {
  if (sqlite3_stmt** cached = cache_.Find(sql)) {
    ++stats_.cache_hits;
    return *cached;
  }
  sqlite3_stmt* stmt = nullptr;
  const char* tail = nullptr;
  const int rc = sqlite3_prepare_v3(db_, sql.data(), static_cast<int>(sql.size()),
                                    SQLITE_PREPARE_PERSISTENT, &stmt, &tail);
  if (rc != SQLITE_OK) return MakeError(rc, "prepare `" + std::string(sql) + "`");
  if (stmt == nullptr) return Error::Internal("empty SQL statement");
  const std::string rest(tail, static_cast<std::size_t>(sql.data() + sql.size() - tail));
  if (!OnlySeparators(rest.c_str())) {
    sqlite3_finalize(stmt);
    return Error::Internal("Execute takes one statement; use ExecuteScript for `" +
                           std::string(sql) + "`");
  }
  ++stats_.prepares;
  return cache_.Insert(sql, stmt);
}

Result<std::int64_t> SqliteConnection::Execute(std::string_view sql, std::span<const Value> params,
                                               const RowCallback& on_row) {
  CAIRN_ASSIGN_OR_RETURN(sqlite3_stmt * stmt, Prepare(sql));
  StatementReset reset{stmt};
  const int expected = sqlite3_bind_parameter_count(stmt);
  if (expected != static_cast<int>(params.size())) {
    return Error::Internal("statement `" + std::string(sql) + "` takes " +
                           std::to_string(expected) + " parameters, got " +
                           std::to_string(params.size()));
  }
  for (std::size_t i = 0; i < params.size(); ++i) {
    const int rc = Bind(stmt, static_cast<int>(i) + 1, params[i]);
    if (rc != SQLITE_OK) return MakeError(rc, "bind parameter " + std::to_string(i + 1));
  }
  const sqlite3_int64 changes_before = sqlite3_total_changes64(db_);
  SqliteRow row(stmt);
  std::int64_t returned = 0;
  int rc;
  while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
    ++returned;
    if (on_row) on_row(row);
  }
  if (rc != SQLITE_DONE) return MakeError(rc, "execute `" + std::string(sql) + "`");
  if (sqlite3_stmt_readonly(stmt)) return returned;
  return sqlite3_total_changes64(db_) == changes_before ? 0 : sqlite3_changes64(db_);
}

Status SqliteConnection::ExecuteScript(std::string_view sql) {
  const std::string text(sql);
  char* message = nullptr;
  const int rc = sqlite3_exec(db_, text.c_str(), nullptr, nullptr, &message);
  sqlite3_free(message);  // the same text is available from sqlite3_errmsg
  if (rc != SQLITE_OK) return MakeError(rc, "execute script `" + text + "`");
  return {};
}

}  // namespace cairn::db::sqlite
