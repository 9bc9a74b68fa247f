// One libpq connection: session set-up, prepared-statement cache, text-format results, SQLSTATE
// mapping, broken-connection detection.
#pragma once

#include <libpq-fe.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "db/database.hpp"
#include "db/statement_cache.hpp"

namespace cairn::db::postgres {

class PgConnection final : public Connection {
 public:
  // Connects with `options`' connection parameters (connect timeout, TCP keepalives; the URL's
  // own parameters win) and sets its session timeouts.
  static Result<std::unique_ptr<PgConnection>> Connect(const std::string& url,
                                                       const PostgresOptions& options);
  ~PgConnection() override;
  PgConnection(const PgConnection&) = delete;
  PgConnection& operator=(const PgConnection&) = delete;

  using Connection::Execute;  // the initializer-list overload
  const Dialect& dialect() const override { return Dialect::Postgres(); }
  Result<std::int64_t> Execute(std::string_view sql, std::span<const Value> params,
                               const RowCallback& on_row = {}) override;
  Result<std::int64_t> ExecutePlannedPerValue(std::string_view sql, std::span<const Value> params,
                                              const RowCallback& on_row = {}) override;
  Status ExecuteScript(std::string_view sql) override;
  ConnectionStats stats() const override { return stats_; }

  // The libpq connection, for what Connection does not cover (LISTEN's notifications).
  PGconn* native() const { return conn_; }
  // The connection to the server is gone (server restart, network failure).
  bool broken() const;
  // Inside a transaction that an error has aborted (COMMIT would silently roll back).
  bool in_failed_transaction() const;
  // Idle: no transaction open, or only the COMMIT of one on its way (CommitWithoutWaiting).
  bool idle() const;

  // A transaction's BEGIN costs no round trip of its own: it waits for the first statement and
  // travels with it in one pipeline. A read's COMMIT is sent without waiting for its answer,
  // which the next use of the connection reads (by then it has long arrived).
  void BeginWithFirstStatement(std::string begin_sql);
  void CommitWithoutWaiting();
  // COMMIT, waiting for the answer (a write is acknowledged once durable); nothing when the
  // BEGIN was never sent.
  Status Commit();
  // Reads the answer of a COMMIT sent without waiting; every other use does this first.
  Status FinishPendingCommit();
  // Ends the open transaction: ROLLBACK, or nothing when its BEGIN was never sent.
  Status Rollback();
  // Reconnects with the same parameters and session set-up; cached statements are forgotten.
  Status Reset();
  // `SELECT 1` within `timeout`; on timeout the query is cancelled and the connection reported
  // broken.
  Status Ping(std::chrono::milliseconds timeout);
  // Deallocates statements evicted from the cache (only possible outside a failed transaction).
  void DeallocateEvicted();

 private:
  PgConnection(PGconn* conn, const PostgresOptions& options);
  Status SetUpSession();
  Result<const std::string*> Prepare(std::string_view sql);
  // The result of the statement `send` queues (a libpq PQsend… call); a pending BEGIN goes
  // ahead of it in one pipeline. Defined in the .cpp, its only user.
  template <typename Send>
  PGresult* Run(const Send& send);
  template <typename Send>
  PGresult* RunAfterBegin(const Send& send);
  // Rows to `on_row` and the count, or the error, of an executed statement.
  Result<std::int64_t> Finish(PGresult* result, std::string_view sql, const RowCallback& on_row);
  Error ResultError(const PGresult* result, std::string_view context, std::string_view sql = {});

  PGconn* conn_;
  const PostgresOptions options_;
  StatementCache<std::string> cache_;  // SQL text → server-side statement name
  std::vector<std::string> evicted_;
  std::uint64_t next_statement_ = 0;
  ConnectionStats stats_;
  bool timed_out_ = false;
  std::string pending_begin_;  // BeginWithFirstStatement's BEGIN, not sent yet
  bool commit_in_flight_ = false;
};

}  // namespace cairn::db::postgres
