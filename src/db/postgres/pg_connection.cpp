#include "db/postgres/pg_connection.hpp"

#include <poll.h>

#include <array>
#include <charconv>
#include <cmath>
#include <limits>

#include "common/time.hpp"
#include "db/db_error.hpp"
#include "db/decimal.hpp"
#include "db/limits.hpp"

namespace cairn::db::postgres {
namespace {

struct ResultDeleter {
  void operator()(PGresult* result) const { PQclear(result); }
};
using ResultPtr = std::unique_ptr<PGresult, ResultDeleter>;

void IgnoreNotice(void*, const char*) {}

// The value of each hex digit, -1 for any other byte: a table, since bytea arrives as hex and
// file chunks (storage/bytea) decode megabytes through it.
constexpr std::array<std::int8_t, 256> kHexValues = [] {
  std::array<std::int8_t, 256> table{};
  table.fill(-1);
  for (int c = '0'; c <= '9'; ++c)
    table[static_cast<std::size_t>(c)] = static_cast<std::int8_t>(c - '0');
  for (int c = 'a'; c <= 'f'; ++c)
    table[static_cast<std::size_t>(c)] = static_cast<std::int8_t>(c - 'a' + 10);
  for (int c = 'A'; c <= 'F'; ++c)
    table[static_cast<std::size_t>(c)] = static_cast<std::int8_t>(c - 'A' + 10);
  return table;
}();

int HexValue(char c) {
  return kHexValues[static_cast<unsigned char>(c)];
}

class PgRow final : public Row {
 public:
  PgRow(const PGresult* result, int row) : result_(result), row_(row) {}
  void set_row(int row) { row_ = row; }

  int ColumnCount() const override { return PQnfields(result_); }
  std::string_view ColumnName(int column) const override {
    const char* name = PQfname(result_, column);
    return name == nullptr ? std::string_view() : std::string_view(name);
  }
  bool IsNull(int column) const override { return PQgetisnull(result_, row_, column) != 0; }
  std::int64_t GetInt64(int column) const override {
    const std::string_view text = GetText(column);
    std::int64_t value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec == std::errc() && end == text.data() + text.size()) return value;
    if (text == "t" || text == "f") return text == "t" ? 1 : 0;
    return std::llround(GetDouble(column));
  }
  double GetDouble(int column) const override {
    const std::string_view text = GetText(column);
    double value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec == std::errc()) return value;
    if (text == "Infinity") return std::numeric_limits<double>::infinity();
    if (text == "-Infinity") return -std::numeric_limits<double>::infinity();
    if (text == "NaN") return std::numeric_limits<double>::quiet_NaN();
    return 0;
  }
  bool GetBool(int column) const override {
    const std::string_view text = GetText(column);
    if (text == "t" || text == "true") return true;
    if (text == "f" || text == "false") return false;
    return GetInt64(column) != 0;
  }
  std::string_view GetText(int column) const override {
    return {PQgetvalue(result_, row_, column),
            static_cast<std::size_t>(PQgetlength(result_, row_, column))};
  }
  std::string GetBlob(int column) const override {
    const std::string_view text = GetText(column);
    if (!text.starts_with("\\x")) return std::string(text);
    // Decoded into place: file chunks of 256 KiB come through here (storage/bytea).
    std::string bytes((text.size() - 2) / 2, '\0');
    const char* in = text.data() + 2;
    for (std::size_t i = 0; i < bytes.size(); ++i, in += 2) {
      const int high = HexValue(in[0]);
      const int low = HexValue(in[1]);
      if (high < 0 || low < 0) {
        bytes.resize(i);
        break;
      }
      bytes[i] = static_cast<char>(high * 16 + low);
    }
    return bytes;
  }
  std::int64_t GetTimestampMillis(int column) const override {
    const std::string_view text = GetText(column);
    if (const auto millis = time::ParseIso(text)) return *millis;
    return GetInt64(column);  // an epoch-millis expression
  }
  Decimal GetDecimal(int column, int scale) const override {
    return ParseDecimal(GetText(column), scale).value_or(Decimal{0, scale});
  }

 private:
  const PGresult* result_;
  int row_;
};

// Text (or, for blobs, binary) wire forms of the bound values.
class Params {
 public:
  explicit Params(std::span<const Value> values) {
    const std::size_t n = values.size();
    storage_.reserve(n);  // never reallocates: pointers into it stay valid
    values_.reserve(n);
    lengths_.reserve(n);
    formats_.reserve(n);
    for (const Value& value : values) std::visit(*this, value);
  }

  const char* const* values() const { return values_.data(); }
  const int* lengths() const { return lengths_.data(); }
  const int* formats() const { return formats_.data(); }
  int count() const { return static_cast<int>(values_.size()); }
  bool has_nul() const { return has_nul_; }

  void operator()(const Null&) { Add(nullptr, 0, 0); }
  void operator()(bool v) { Add(v ? "t" : "f", 0, 0); }
  void operator()(std::int64_t v) { Own(std::to_string(v)); }
  void operator()(double v) {
    if (std::isnan(v)) return Own("NaN");
    if (std::isinf(v)) return Own(v > 0 ? "Infinity" : "-Infinity");
    char buffer[32];
    const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, v);
    Own(std::string(buffer, ec == std::errc() ? end : buffer));
  }
  void operator()(const std::string& v) { Text(v); }
  void operator()(std::string_view v) { Own(std::string(v)); }
  void operator()(const Timestamp& v) { Own(time::FormatIso(v.epoch_millis)); }
  void operator()(const Decimal& v) { Own(FormatDecimal(v)); }
  void operator()(const Json& v) { Text(v.text); }
  void operator()(const Blob& v) { Add(v.bytes.data(), static_cast<int>(v.bytes.size()), 1); }

 private:
  void Add(const char* value, int length, int format) {
    values_.push_back(value);
    lengths_.push_back(length);
    formats_.push_back(format);
  }
  // Text parameters travel NUL-terminated; PostgreSQL text cannot hold NUL anyway.
  void Text(const std::string& v) {
    if (v.find('\0') != std::string::npos) has_nul_ = true;
    Add(v.c_str(), 0, 0);
  }
  void Own(std::string v) {
    if (v.find('\0') != std::string::npos) has_nul_ = true;
    storage_.push_back(std::move(v));
    Add(storage_.back().c_str(), 0, 0);
  }

  std::vector<std::string> storage_;
  std::vector<const char*> values_;
  std::vector<int> lengths_;
  std::vector<int> formats_;
  bool has_nul_ = false;
};

std::int64_t AffectedRows(const PGresult* result) {
  const char* tuples = PQcmdTuples(const_cast<PGresult*>(result));
  if (tuples != nullptr && *tuples != '\0') return std::strtoll(tuples, nullptr, 10);
  return PQresultStatus(result) == PGRES_TUPLES_OK ? PQntuples(result) : 0;
}

}  // namespace

PgConnection::PgConnection(PGconn* conn, const PostgresOptions& options)
    : conn_(conn), options_(options), cache_(kStatementCacheCapacity, [this](std::string& name) {
        evicted_.push_back(std::move(name));
      }) {}

PgConnection::~PgConnection() {
  cache_.Clear();
  PQfinish(conn_);
}

Result<std::unique_ptr<PgConnection>> PgConnection::Connect(const std::string& url,
                                                            const PostgresOptions& options) {
  // Keywords before `dbname` are defaults the URL may override. Keepalives matter for TCP only
  // (libpq ignores them on a unix socket): they find a server that vanished without closing.
  const std::string timeout = std::to_string(options.connect_timeout_seconds);
  const std::string idle = std::to_string(options.keepalives_idle_seconds);
  const std::string interval = std::to_string(options.keepalives_interval_seconds);
  const std::string count = std::to_string(options.keepalives_count);
  const char* keys[] = {
      "connect_timeout",     "fallback_application_name", "keepalives", "keepalives_idle",
      "keepalives_interval", "keepalives_count",          "dbname",     nullptr};
  const char* values[] = {timeout.c_str(), "cairn",          options.keepalives ? "1" : "0",
                          idle.c_str(),    interval.c_str(), count.c_str(),
                          url.c_str(),     nullptr};
  PGconn* conn = PQconnectdbParams(keys, values, 1);
  if (conn == nullptr) {
    return MakeDbError(DbErrorKind::kUnavailable, "PQconnectdbParams: out of memory");
  }
  std::unique_ptr<PgConnection> connection(new PgConnection(conn, options));
  if (PQstatus(conn) != CONNECTION_OK) {
    return MakeDbError(DbErrorKind::kUnavailable,
                       "cannot connect to PostgreSQL: " + std::string(PQerrorMessage(conn)));
  }
  CAIRN_TRY(connection->SetUpSession());
  return connection;
}

Status PgConnection::SetUpSession() {
  PQsetNoticeProcessor(conn_, &IgnoreNotice, nullptr);
  // The timeouts are session settings (not the `options` connection parameter, which a
  // DATABASE_URL may carry for its own use): set here, they hold for every pooled connection and
  // again after a reconnect. One round trip with the rest.
  return ExecuteScript(
      "SET TIME ZONE 'UTC'; SET client_encoding = 'UTF8'; SET statement_timeout = " +
      std::to_string(options_.statement_timeout_ms) + "; SET lock_timeout = " +
      std::to_string(options_.lock_timeout_ms) + "; SET idle_in_transaction_session_timeout = " +
      std::to_string(options_.idle_in_transaction_timeout_ms));
}

bool PgConnection::broken() const {
  return timed_out_ || PQstatus(conn_) != CONNECTION_OK;
}

bool PgConnection::in_failed_transaction() const {
  return PQtransactionStatus(conn_) == PQTRANS_INERROR;
}

bool PgConnection::idle() const {
  return commit_in_flight_ || PQtransactionStatus(conn_) == PQTRANS_IDLE;
}

void PgConnection::BeginWithFirstStatement(std::string begin_sql) {
  pending_begin_ = std::move(begin_sql);
}

void PgConnection::CommitWithoutWaiting() {
  if (!pending_begin_.empty()) {  // no statement ran: there is no transaction to end
    pending_begin_.clear();
    return;
  }
  // A send that fails leaves the connection broken, which the pool sees.
  commit_in_flight_ = PQsendQuery(conn_, "COMMIT") == 1;
}

Status PgConnection::Commit() {
  if (!pending_begin_.empty()) {
    pending_begin_.clear();
    return {};
  }
  return ExecuteScript("COMMIT");
}

Status PgConnection::FinishPendingCommit() {
  if (!commit_in_flight_) return {};
  commit_in_flight_ = false;
  Status status;
  while (PGresult* raw = PQgetResult(conn_)) {
    ResultPtr result(raw);
    if (PQresultStatus(raw) != PGRES_COMMAND_OK && status.ok()) {
      status = ResultError(raw, "commit");
    }
  }
  return status;
}

Status PgConnection::Rollback() {
  if (!pending_begin_.empty()) {
    pending_begin_.clear();
    return {};
  }
  return ExecuteScript("ROLLBACK");
}

Status PgConnection::Reset() {
  PQreset(conn_);
  pending_begin_.clear();
  commit_in_flight_ = false;
  cache_.Clear();
  evicted_.clear();  // the server forgot them with the old session
  timed_out_ = false;
  if (PQstatus(conn_) != CONNECTION_OK) {
    return MakeDbError(DbErrorKind::kUnavailable,
                       "cannot reconnect to PostgreSQL: " + std::string(PQerrorMessage(conn_)));
  }
  return SetUpSession();
}

void PgConnection::DeallocateEvicted() {
  if (evicted_.empty() || !idle() || !FinishPendingCommit().ok()) return;
  std::string sql;
  for (const auto& name : evicted_) sql += "DEALLOCATE \"" + name + "\";";
  evicted_.clear();
  ++stats_.round_trips;
  ResultPtr result(PQexec(conn_, sql.c_str()));
}

Error PgConnection::ResultError(const PGresult* result, std::string_view context,
                                std::string_view sql) {
  const char* state = result != nullptr ? PQresultErrorField(result, PG_DIAG_SQLSTATE) : nullptr;
  const char* text = result != nullptr ? PQresultErrorMessage(result) : nullptr;
  std::string message = text != nullptr && *text != '\0' ? text : PQerrorMessage(conn_);
  while (!message.empty() && (message.back() == '\n' || message.back() == ' ')) message.pop_back();
  std::string detail(context);
  if (!sql.empty()) {
    detail += " `";
    detail += sql;
    detail += '`';
  }
  detail += ": ";
  detail += message;
  if (state == nullptr) {
    // libpq's own error, not the server's. A send that hit a closed socket leaves the status
    // OK until a read sees the end of the stream: read once so a lost server shows as one.
    const bool lost = broken() || PQconsumeInput(conn_) == 0;
    return MakeDbError(lost ? DbErrorKind::kUnavailable : DbErrorKind::kOther, std::move(detail));
  }
  const DbErrorKind kind = PostgresErrorKind(state, message);
  if (kind == DbErrorKind::kUnique) {
    const char* key = PQresultErrorField(result, PG_DIAG_MESSAGE_DETAIL);
    return MakeDbError(kind, std::move(detail),
                       key != nullptr ? PostgresKeyColumns(key) : std::vector<std::string>{});
  }
  if (std::string_view(state) == "0A000" && kind == DbErrorKind::kBusy) cache_.Erase(sql);
  return MakeDbError(kind, std::move(detail));
}

Result<const std::string*> PgConnection::Prepare(std::string_view sql) {
  CAIRN_TRY(FinishPendingCommit());
  if (const std::string* cached = cache_.Find(sql)) {
    ++stats_.cache_hits;
    return cached;
  }
  std::string name = "cairn_" + std::to_string(++next_statement_);
  const std::string translated = Dialect::Postgres().TranslatePlaceholders(sql);
  ++stats_.round_trips;
  ResultPtr result(PQprepare(conn_, name.c_str(), translated.c_str(), 0, nullptr));
  if (PQresultStatus(result.get()) != PGRES_COMMAND_OK) {
    return ResultError(result.get(), "prepare", sql);
  }
  ++stats_.prepares;
  return &cache_.Insert(sql, std::move(name));
}

template <typename Send>
PGresult* PgConnection::Run(const Send& send) {
  if (!pending_begin_.empty()) return RunAfterBegin(send);
  ++stats_.round_trips;
  if (send() != 1) return nullptr;
  PGresult* last = nullptr;  // as PQexec: the last result, so an error is never hidden
  while (PGresult* next = PQgetResult(conn_)) {
    PQclear(last);
    last = next;
  }
  return last;
}

template <typename Send>
PGresult* PgConnection::RunAfterBegin(const Send& send) {
  const std::string begin = std::move(pending_begin_);
  pending_begin_.clear();
  ++stats_.round_trips;
  if (PQenterPipelineMode(conn_) != 1) return nullptr;
  const bool begun =
      PQsendQueryParams(conn_, begin.c_str(), 0, nullptr, nullptr, nullptr, nullptr, 0) == 1;
  ResultPtr refused;  // the statement could not even be queued (its error, kept before the sync)
  if (begun && send() != 1) refused.reset(PQmakeEmptyPGresult(conn_, PGRES_FATAL_ERROR));
  // Whatever was queued is synced and read, or the pipeline cannot end. Each query's results
  // end with a null; the pipeline ends with its sync result.
  std::array<ResultPtr, 2> results;  // the BEGIN's, the statement's
  std::size_t count = 0;
  if (begun && PQpipelineSync(conn_) == 1) {
    for (int ends = 0; ends <= 2;) {
      PGresult* next = PQgetResult(conn_);
      if (next == nullptr) {
        if (broken()) break;
        ++ends;
        continue;
      }
      if (PQresultStatus(next) == PGRES_PIPELINE_SYNC) {
        PQclear(next);
        break;
      }
      if (count < results.size()) {
        results[count++].reset(next);
      } else {
        PQclear(next);
      }
    }
  }
  PQexitPipelineMode(conn_);
  // A failed BEGIN aborts the statement behind it: its error is the one to report.
  if (count > 0 && PQresultStatus(results[0].get()) != PGRES_COMMAND_OK) {
    return results[0].release();
  }
  if (refused) return refused.release();
  return count == 2 ? results[1].release() : nullptr;
}

Result<std::int64_t> PgConnection::Execute(std::string_view sql, std::span<const Value> params,
                                           const RowCallback& on_row) {
  const Params wire(params);
  if (wire.has_nul()) return Error::Validation("Text values may not contain the NUL character");
  CAIRN_ASSIGN_OR_RETURN(const std::string* name, Prepare(sql));
  ResultPtr result(Run([&] {
    return PQsendQueryPrepared(conn_, name->c_str(), wire.count(), wire.values(), wire.lengths(),
                               wire.formats(), 0);
  }));
  return Finish(result.get(), sql, on_row);
}

Result<std::int64_t> PgConnection::ExecutePlannedPerValue(std::string_view sql,
                                                          std::span<const Value> params,
                                                          const RowCallback& on_row) {
  const Params wire(params);
  if (wire.has_nul()) return Error::Validation("Text values may not contain the NUL character");
  // The unnamed statement: parsed and planned for these values, and not kept.
  const std::string translated = Dialect::Postgres().TranslatePlaceholders(sql);
  CAIRN_TRY(FinishPendingCommit());
  ResultPtr result(Run([&] {
    return PQsendQueryParams(conn_, translated.c_str(), wire.count(), nullptr, wire.values(),
                             wire.lengths(), wire.formats(), 0);
  }));
  return Finish(result.get(), sql, on_row);
}

Result<std::int64_t> PgConnection::Finish(PGresult* result, std::string_view sql,
                                          const RowCallback& on_row) {
  const ExecStatusType status = PQresultStatus(result);
  if (status == PGRES_TUPLES_OK) {
    if (on_row) {
      PgRow row(result, 0);
      const int count = PQntuples(result);
      for (int i = 0; i < count; ++i) {
        row.set_row(i);
        on_row(row);
      }
    }
    return AffectedRows(result);
  }
  if (status == PGRES_COMMAND_OK) return AffectedRows(result);
  return ResultError(result, "execute", sql);
}

Status PgConnection::ExecuteScript(std::string_view sql) {
  CAIRN_TRY(FinishPendingCommit());
  // A pending BEGIN joins the script: one simple query, one round trip.
  std::string text = std::move(pending_begin_);
  pending_begin_.clear();
  if (!text.empty()) text += "; ";
  text += sql;
  ++stats_.round_trips;
  ResultPtr result(PQexec(conn_, text.c_str()));
  const ExecStatusType status = PQresultStatus(result.get());
  if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK || status == PGRES_EMPTY_QUERY) {
    return {};
  }
  return ResultError(result.get(), "execute script", sql);
}

Status PgConnection::Ping(std::chrono::milliseconds timeout) {
  CAIRN_TRY(FinishPendingCommit());
  ++stats_.round_trips;
  if (PQsendQuery(conn_, "SELECT 1") == 0) return ResultError(nullptr, "ping");
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (PQisBusy(conn_) != 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    pollfd fd{PQsocket(conn_), POLLIN, 0};
    const int ready = left.count() > 0 ? ::poll(&fd, 1, static_cast<int>(left.count())) : 0;
    if (ready <= 0) {
      if (PGcancel* cancel = PQgetCancel(conn_)) {
        char buffer[256];
        PQcancel(cancel, buffer, sizeof buffer);
        PQfreeCancel(cancel);
      }
      timed_out_ = true;  // the pool drops this connection
      return MakeDbError(DbErrorKind::kUnavailable,
                         "ping: no answer within " + std::to_string(timeout.count()) + " ms");
    }
    if (PQconsumeInput(conn_) == 0) return ResultError(nullptr, "ping");
  }
  Status status;
  while (PGresult* raw = PQgetResult(conn_)) {
    ResultPtr result(raw);
    if (PQresultStatus(raw) != PGRES_TUPLES_OK && status.ok()) {
      status = ResultError(raw, "ping");
    }
  }
  return status;
}

}  // namespace cairn::db::postgres
