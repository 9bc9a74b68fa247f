// One SQLite connection: prepared-statement cache, binding, row access, error mapping.
#pragma once

#include <sqlite3.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "db/database.hpp"
#include "db/statement_cache.hpp"

namespace cairn::db::sqlite {

enum class Role { kWriter, kReader, kCheckpointer };

struct ConnectionSettings {
  Role role = Role::kReader;
  std::chrono::milliseconds busy_timeout{0};
  std::int64_t journal_size_limit = -1;  // bytes the WAL is truncated to when reset (-1: none)
};

class SqliteConnection final : public Connection {
 public:
  static Result<std::unique_ptr<SqliteConnection>> Open(const std::string& path,
                                                        const ConnectionSettings& settings);
  ~SqliteConnection() override;
  SqliteConnection(const SqliteConnection&) = delete;
  SqliteConnection& operator=(const SqliteConnection&) = delete;

  using Connection::Execute;  // the initializer-list overload
  const Dialect& dialect() const override { return Dialect::Sqlite(); }
  Result<std::int64_t> Execute(std::string_view sql, std::span<const Value> params,
                               const RowCallback& on_row = {}) override;
  Status ExecuteScript(std::string_view sql) override;
  ConnectionStats stats() const override { return stats_; }

  sqlite3* handle() const { return db_; }
  // The Error for a failed call that returned `rc` on this connection.
  Error MakeError(int rc, std::string_view context) const;

 private:
  explicit SqliteConnection(sqlite3* db);
  Result<sqlite3_stmt*> Prepare(std::string_view sql);

  sqlite3* db_;
  StatementCache<sqlite3_stmt*> cache_;
  ConnectionStats stats_;
};

}  // namespace cairn::db::sqlite
