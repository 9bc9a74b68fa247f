// cairn_ceiling — the hand-written reference server that `bench/run` measures cairn against.
//
// It serves the same workloads as cairn with the same stack (Boost.Beast/Asio C++20 coroutines,
// SQLite 3 in WAL mode) and the same SQL, written by hand with nothing in between: no config, no
// router abstraction, no middleware, no request ids, no permissions. Its throughput is the ceiling
// for what cairn can reach on this machine; `bench/run` reports cairn as a ratio of it.
//
// Shape: one thread per core, each with its own io_context (concurrency hint 1, no locking) and
// its own SQLite connection holding prepared statements. One acceptor hands new connections to the
// threads round-robin, so every connection lives on one thread for its whole life and never
// shares a connection or a statement. Keep-alive HTTP/1.1; SQLite calls run inline on the I/O
// thread (they are microseconds for these workloads).
//
// Adding a workload (see bench/README.md):
//   1. add its SQL to `Statements` (one member, prepared in the constructor),
//   2. write a handler `void HandleX(Worker&, const Request&, const Params&, Response&)`,
//   3. add one line to `kRoutes`.
//
// Usage: cairn_ceiling [--port P] [--db PATH] [--threads N] [--rows N] [--sync normal|full]
//                      [--static-dir DIR]
// With --static-dir, `GET /static/{name}` sends the file DIR/name with Beast's http::file_body,
// and `GET /static256k/{name}` with http::buffer_body in 256 KiB reads (what cairn's token
// download is compared with).
// Prints `listening on http://127.0.0.1:<port>` when ready. SIGINT/SIGTERM stop it cleanly.

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <charconv>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/buffer_body.hpp>
#include <boost/beast/http/file_body.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>

namespace {

namespace asio = boost::asio;
namespace http = boost::beast::http;
using tcp = asio::ip::tcp;

using Request = http::request<http::string_body>;
using Response = http::response<http::string_body>;

// The app identity the health endpoint reports; matches bench/app.yaml so both servers answer
// with the same bytes.
constexpr std::string_view kAppName = "cairn-bench";
constexpr std::string_view kAppVersion = "1.0.0";
constexpr std::uint64_t kBodyLimit = 1 << 20;
// --static-dir: set once in main before any thread starts, read-only afterwards.
std::string g_static_dir;  // NOLINT(cppcoreguidelines-avoid-non-const-global-variables)

// ---------------------------------------------------------------------------------------------
// JSON and time output (hand-written: the ceiling serializes straight into the response body).

void AppendDigits(std::string& out, std::int64_t value, int width) {
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value);
  (void)ec;
  for (int pad = width - static_cast<int>(end - buf); pad > 0; --pad) out.push_back('0');
  out.append(buf, end);
}

void AppendInt(std::string& out, std::int64_t value) {
  AppendDigits(out, value, 0);
}

std::int64_t NowMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// `2026-11-22T05:00:00.123Z`, as cairn::time::AppendIso writes it.
void AppendIso(std::string& out, std::int64_t millis) {
  std::time_t seconds = static_cast<std::time_t>(millis / 1000);
  std::tm t{};
  gmtime_r(&seconds, &t);
  AppendDigits(out, t.tm_year + 1900, 4);
  out.push_back('-');
  AppendDigits(out, t.tm_mon + 1, 2);
  out.push_back('-');
  AppendDigits(out, t.tm_mday, 2);
  out.push_back('T');
  AppendDigits(out, t.tm_hour, 2);
  out.push_back(':');
  AppendDigits(out, t.tm_min, 2);
  out.push_back(':');
  AppendDigits(out, t.tm_sec, 2);
  out.push_back('.');
  AppendDigits(out, millis % 1000, 3);
  out.push_back('Z');
}

void AppendJsonString(std::string& out, std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  out.push_back('"');
  for (char c : text) {
    auto u = static_cast<unsigned char>(c);
    switch (c) {
      case '"':
        out.append("\\\"");
        break;
      case '\\':
        out.append("\\\\");
        break;
      case '\n':
        out.append("\\n");
        break;
      case '\r':
        out.append("\\r");
        break;
      case '\t':
        out.append("\\t");
        break;
      default:
        if (u < 0x20) {
          out.append("\\u00");
          out.push_back(kHex[u >> 4]);
          out.push_back(kHex[u & 0xf]);
        } else {
          out.push_back(c);
        }
    }
  }
  out.push_back('"');
}

// The error envelope of interface.md: {success:false, message, code}.
void SetError(Response& res, http::status status, std::string_view code, std::string_view message) {
  res.result(status);
  std::string& out = res.body();
  out.clear();
  out.append(R"({"success":false,"message":)");
  AppendJsonString(out, message);
  out.append(R"(,"code":")").append(code).append("\"}");
}

void SetInternalError(Response& res) {
  SetError(res, http::status::internal_server_error, "INTERNAL_ERROR",
           "An unexpected error occurred");
}

// ---------------------------------------------------------------------------------------------
// SQLite: one connection per thread, statements prepared once.

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "cairn_ceiling: %s\n", what.c_str());
  std::exit(1);
}

class Stmt {
 public:
  Stmt(sqlite3* db, const char* sql) {
    if (sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, &stmt_, nullptr) != SQLITE_OK) {
      Die(std::string("prepare failed: ") + sqlite3_errmsg(db) + " in: " + sql);
    }
  }
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;
  ~Stmt() { sqlite3_finalize(stmt_); }
  sqlite3_stmt* get() const { return stmt_; }

 private:
  sqlite3_stmt* stmt_ = nullptr;
};

// Resets the statement (and clears its bindings) when the handler is done with it.
class StmtUse {
 public:
  explicit StmtUse(const Stmt& s) : stmt_(s.get()) {}
  StmtUse(const StmtUse&) = delete;
  StmtUse& operator=(const StmtUse&) = delete;
  ~StmtUse() {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
  }
  sqlite3_stmt* operator*() const { return stmt_; }

 private:
  sqlite3_stmt* stmt_;
};

struct DbOptions {
  std::string path = "ceiling.db";
  std::string synchronous = "NORMAL";
};

sqlite3* OpenConnection(const DbOptions& options) {
  sqlite3* db = nullptr;
  int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;
  if (sqlite3_open_v2(options.path.c_str(), &db, flags, nullptr) != SQLITE_OK) {
    Die("cannot open " + options.path + ": " + (db ? sqlite3_errmsg(db) : "out of memory"));
  }
  sqlite3_busy_timeout(db, 5000);
  std::string pragmas = "PRAGMA journal_mode=WAL; PRAGMA synchronous=" + options.synchronous + ";";
  char* err = nullptr;
  if (sqlite3_exec(db, pragmas.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
    std::string message = err ? err : "unknown error";
    sqlite3_free(err);
    Die("pragmas failed: " + message);
  }
  return db;
}

void Exec(sqlite3* db, const char* sql) {
  char* err = nullptr;
  if (sqlite3_exec(db, sql, nullptr, nullptr, &err) != SQLITE_OK) {
    std::string message = err ? err : "unknown error";
    sqlite3_free(err);
    Die(std::string("exec failed: ") + message + " in: " + sql);
  }
}

constexpr const char* kSchema =
    "CREATE TABLE IF NOT EXISTS items("
    "id INTEGER PRIMARY KEY, name TEXT NOT NULL, amount INTEGER NOT NULL, "
    "created_at INTEGER NOT NULL);"
    "CREATE INDEX IF NOT EXISTS items_amount ON items(amount)";

// Creates the schema and, with --rows N, replaces the table's contents with rows 1..N.
void PrepareDatabase(const DbOptions& options, std::optional<std::int64_t> rows) {
  sqlite3* db = OpenConnection(options);
  Exec(db, kSchema);
  if (rows) {
    Exec(db, "BEGIN");
    Exec(db, "DELETE FROM items");
    {
      Stmt insert(db, "INSERT INTO items(id, name, amount, created_at) VALUES(?, ?, ?, ?)");
      std::int64_t now = NowMillis();
      std::string name;
      for (std::int64_t i = 1; i <= *rows; ++i) {
        name = "item ";
        AppendInt(name, i);
        StmtUse use(insert);
        sqlite3_bind_int64(*use, 1, i);
        sqlite3_bind_text(*use, 2, name.data(), static_cast<int>(name.size()), SQLITE_STATIC);
        sqlite3_bind_int64(*use, 3, (i * 37) % 1000);
        sqlite3_bind_int64(*use, 4, now - (*rows - i) * 1000);
        if (sqlite3_step(*use) != SQLITE_DONE) Die(std::string("seed: ") + sqlite3_errmsg(db));
      }
    }
    Exec(db, "COMMIT");
  }
  Exec(db, "PRAGMA wal_checkpoint(TRUNCATE)");
  sqlite3_close(db);
}

// Every statement a handler may run. To add a workload, add a member here.
struct Statements {
  explicit Statements(sqlite3* db)
      : health(db, "SELECT 1"),
        get_item(db, "SELECT id, name, amount, created_at FROM items WHERE id = ?"),
        insert_item(db,
                    "INSERT INTO items(name, amount, created_at) VALUES(?, ?, ?) "
                    "RETURNING id, name, amount, created_at"),
        update_item(db,
                    "UPDATE items SET amount = ? WHERE id = ? "
                    "RETURNING id, name, amount, created_at"),
        count_items(db, "SELECT COUNT(*) FROM items"),
        list_items(db,
                   "SELECT id, name, amount, created_at FROM items ORDER BY id LIMIT ? OFFSET ?"),
        count_by_amount(db, "SELECT COUNT(*) FROM items WHERE amount = ?"),
        list_by_amount(db,
                       "SELECT id, name, amount, created_at FROM items WHERE amount = ? "
                       "ORDER BY name, id LIMIT ? OFFSET ?"),
        begin_read(db, "BEGIN"),
        begin(db, "BEGIN IMMEDIATE"),
        commit(db, "COMMIT"),
        rollback(db, "ROLLBACK") {}

  Stmt health;
  Stmt get_item;
  Stmt insert_item;
  Stmt update_item;
  Stmt count_items, list_items, count_by_amount, list_by_amount;
  Stmt begin_read, begin, commit, rollback;
};

// Everything one thread owns: its io_context, its connection, its statements.
struct Worker {
  explicit Worker(const DbOptions& options)
      : ioc(1), db(OpenConnection(options)), stmts(std::make_unique<Statements>(db)) {}
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;
  ~Worker() {
    stmts.reset();
    sqlite3_close(db);
  }

  asio::io_context ioc;
  sqlite3* db;
  std::unique_ptr<Statements> stmts;
  std::string scratch;  // reused serialization buffer
};

// ---------------------------------------------------------------------------------------------
// Handlers. Each one runs its SQL and writes status + JSON body into `res`.

// Path parameters captured by `{name}` segments, in order.
struct Params {
  std::array<std::string_view, 4> values{};
  std::size_t count = 0;
};

std::optional<std::int64_t> ParseId(std::string_view text) {
  std::int64_t id = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), id);
  if (ec != std::errc{} || end != text.data() + text.size() || id <= 0) return std::nullopt;
  return id;
}

void HandleHealth(Worker& w, const Request&, const Params&, Response& res) {
  bool ok = false;
  {
    StmtUse use(w.stmts->health);
    ok = sqlite3_step(*use) == SQLITE_ROW && sqlite3_column_int(*use, 0) == 1;
  }
  if (!ok) {
    SetError(res, http::status::service_unavailable, "SERVICE_UNAVAILABLE",
             "The database is not available");
    return;
  }
  std::string& out = res.body();
  out.append(R"({"status":"ok","timestamp":")");
  AppendIso(out, NowMillis());
  out.append(R"(","app":{"name":)");
  AppendJsonString(out, kAppName);
  out.append(R"(,"version":)");
  AppendJsonString(out, kAppVersion);
  out.append(R"(},"database":"ok"})");
}

// Writes the current row of an `id, name, amount, created_at` statement in cairn's record shape
// (decisions.md D30). The items table has no authorship or update columns: those are null, and
// updatedAt repeats createdAt, as a never-updated cairn record would.
void AppendItem(std::string& out, sqlite3_stmt* row) {
  std::int64_t created_at = sqlite3_column_int64(row, 3);
  out.append(R"({"id":")");
  AppendInt(out, sqlite3_column_int64(row, 0));
  out.append(R"(","fields":{"name":)");
  AppendJsonString(out, std::string_view(reinterpret_cast<const char*>(sqlite3_column_text(row, 1)),
                                         static_cast<std::size_t>(sqlite3_column_bytes(row, 1))));
  out.append(R"(,"amount":)");
  AppendInt(out, sqlite3_column_int64(row, 2));
  out.append(R"(},"createdBy":null,"createdAt":")");
  AppendIso(out, created_at);
  out.append(R"(","updatedBy":null,"updatedAt":")");
  AppendIso(out, created_at);
  out.append(R"(","deletedBy":null,"deletedAt":null})");
}

// Steps a statement returning one item row: the record, or a 404 envelope when there is none.
void AnswerItem(Response& res, sqlite3_stmt* statement) {
  const int rc = sqlite3_step(statement);
  if (rc == SQLITE_ROW) {
    AppendItem(res.body(), statement);
  } else if (rc == SQLITE_DONE) {
    SetError(res, http::status::not_found, "NOT_FOUND", "Record not found");
  } else {
    SetInternalError(res);
  }
}

void HandleGetRecord(Worker& w, const Request&, const Params& params, Response& res) {
  std::optional<std::int64_t> id = ParseId(params.values[0]);
  if (!id) {
    SetError(res, http::status::not_found, "NOT_FOUND", "Record not found");
    return;
  }
  StmtUse use(w.stmts->get_item);
  sqlite3_bind_int64(*use, 1, *id);
  AnswerItem(res, *use);
}

// The `fields` object of a write body, or null.
const boost::json::object* FieldsOf(const boost::json::value& body) {
  if (!body.is_object()) return nullptr;
  const auto* fields = body.as_object().if_contains("fields");
  return fields ? fields->if_object() : nullptr;
}

// {"name":"…","amount":12}: inserts it and appends the record; false on a bad shape.
enum class Insert { kDone, kInvalid, kFailed };
Insert InsertItem(Worker& w, const boost::json::object* fields, std::string& out) {
  const boost::json::string* name = nullptr;
  const boost::json::value* amount = nullptr;
  if (fields) {
    if (auto* n = fields->if_contains("name")) name = n->if_string();
    amount = fields->if_contains("amount");
  }
  if (!name || !amount || !amount->is_int64()) return Insert::kInvalid;
  StmtUse use(w.stmts->insert_item);
  sqlite3_bind_text(*use, 1, name->data(), static_cast<int>(name->size()), SQLITE_STATIC);
  sqlite3_bind_int64(*use, 2, amount->get_int64());
  sqlite3_bind_int64(*use, 3, NowMillis());
  if (sqlite3_step(*use) != SQLITE_ROW) return Insert::kFailed;
  AppendItem(out, *use);
  return Insert::kDone;
}

constexpr std::string_view kItemShape = "{\"fields\":{\"name\":string,\"amount\":integer}}";

// Body: {"fields":{"name":"…","amount":12}} — the body cairn's create endpoint takes.
void HandleCreateRecord(Worker& w, const Request& req, const Params&, Response& res) {
  boost::system::error_code ec;
  boost::json::value body = boost::json::parse(req.body(), ec);
  switch (InsertItem(w, ec ? nullptr : FieldsOf(body), res.body())) {
    case Insert::kDone:
      res.result(http::status::created);
      return;
    case Insert::kInvalid:
      SetError(res, http::status::bad_request, "VALIDATION_ERROR",
               "Body must be " + std::string(kItemShape));
      return;
    case Insert::kFailed:
      SetInternalError(res);
      return;
  }
}

// Body: {"fields":{"amount":12}} — a patch of one field, answered with the record.
void HandlePatchRecord(Worker& w, const Request& req, const Params& params, Response& res) {
  const std::optional<std::int64_t> id = ParseId(params.values[0]);
  boost::system::error_code ec;
  boost::json::value body = boost::json::parse(req.body(), ec);
  const boost::json::object* fields = ec ? nullptr : FieldsOf(body);
  const boost::json::value* amount = fields ? fields->if_contains("amount") : nullptr;
  if (!id || !amount || !amount->is_int64()) {
    SetError(res, http::status::bad_request, "VALIDATION_ERROR",
             "Body must be {\"fields\":{\"amount\":integer}}");
    return;
  }
  StmtUse use(w.stmts->update_item);
  sqlite3_bind_int64(*use, 1, amount->get_int64());
  sqlite3_bind_int64(*use, 2, *id);
  AnswerItem(res, *use);
}

bool Step(const Stmt& statement) {
  StmtUse use(statement);
  return sqlite3_step(*use) == SQLITE_DONE;
}

// Body: {"records":[{"fields":{…}}, …]} — all of them in one transaction, or none.
void HandleCreateBatch(Worker& w, const Request& req, const Params&, Response& res) {
  boost::system::error_code ec;
  boost::json::value body = boost::json::parse(req.body(), ec);
  const boost::json::value* records =
      !ec && body.is_object() ? body.as_object().if_contains("records") : nullptr;
  if (!records || !records->is_array()) {
    SetError(res, http::status::bad_request, "VALIDATION_ERROR",
             "Body must be {\"records\":[" + std::string(kItemShape) + ", …]}");
    return;
  }
  if (!Step(w.stmts->begin)) {
    SetInternalError(res);
    return;
  }
  std::string& out = res.body();
  out = "{\"created\":";
  AppendInt(out, static_cast<std::int64_t>(records->as_array().size()));
  out += ",\"records\":[";
  bool first = true;
  for (const boost::json::value& record : records->as_array()) {
    if (!first) out += ',';
    first = false;
    const Insert inserted = InsertItem(w, FieldsOf(record), out);
    if (inserted != Insert::kDone) {
      Step(w.stmts->rollback);
      out.clear();
      if (inserted == Insert::kInvalid) {
        SetError(res, http::status::bad_request, "VALIDATION_ERROR",
                 "Each record must be " + std::string(kItemShape));
      } else {
        SetInternalError(res);
      }
      return;
    }
  }
  out += "]}";
  if (!Step(w.stmts->commit)) {
    Step(w.stmts->rollback);
    out.clear();
    SetInternalError(res);
    return;
  }
  res.result(http::status::created);
}

// The integer query parameter `name` of `target`, if present and well formed.
std::optional<std::int64_t> QueryInt(std::string_view target, std::string_view name) {
  const std::size_t question = target.find('?');
  if (question == std::string_view::npos) return std::nullopt;
  std::string_view rest = target.substr(question + 1);
  while (!rest.empty()) {
    const std::size_t amp = std::min(rest.find('&'), rest.size());
    const std::string_view pair = rest.substr(0, amp);
    const std::size_t eq = pair.find('=');
    if (eq != std::string_view::npos && pair.substr(0, eq) == name) {
      std::int64_t value = 0;
      const std::string_view text = pair.substr(eq + 1);
      const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
      if (ec == std::errc{} && end == text.data() + text.size()) return value;
      return std::nullopt;
    }
    rest.remove_prefix(std::min(amp + 1, rest.size()));
  }
  return std::nullopt;
}

// `?limit=20[&amount=500]`: one page (by id, or with the amount by name) and the total, in one
// read transaction, in cairn's list envelope.
void HandleListRecords(Worker& w, const Request& req, const Params&, Response& res) {
  const std::int64_t limit =
      std::clamp<std::int64_t>(QueryInt(req.target(), "limit").value_or(100), 1, 1000);
  const std::optional<std::int64_t> amount = QueryInt(req.target(), "amount");
  if (!Step(w.stmts->begin_read)) {
    SetInternalError(res);
    return;
  }
  std::int64_t total = 0;
  {
    StmtUse count(amount ? w.stmts->count_by_amount : w.stmts->count_items);
    if (amount) sqlite3_bind_int64(*count, 1, *amount);
    if (sqlite3_step(*count) == SQLITE_ROW) total = sqlite3_column_int64(*count, 0);
  }
  std::string& out = res.body();
  out = "{\"records\":[";
  {
    StmtUse page(amount ? w.stmts->list_by_amount : w.stmts->list_items);
    int at = 1;
    if (amount) sqlite3_bind_int64(*page, at++, *amount);
    sqlite3_bind_int64(*page, at++, limit);
    sqlite3_bind_int64(*page, at, 0);
    bool first = true;
    while (sqlite3_step(*page) == SQLITE_ROW) {
      if (!first) out += ',';
      first = false;
      AppendItem(out, *page);
    }
  }
  Step(w.stmts->commit);
  out += "],\"pagination\":{\"total\":";
  AppendInt(out, total);
  out += ",\"limit\":";
  AppendInt(out, limit);
  out += ",\"offset\":0,\"page\":1,\"totalPages\":";
  AppendInt(out, (total + limit - 1) / limit);
  out += "}}";
}

// ---------------------------------------------------------------------------------------------
// Routing: method + path pattern; a `{name}` segment captures one path segment.

using Handler = void (*)(Worker&, const Request&, const Params&, Response&);

struct Route {
  http::verb method;
  std::string_view pattern;
  Handler handler;
};

// One line per workload.
constexpr Route kRoutes[] = {
    {http::verb::get, "/api/health", HandleHealth},
    {http::verb::get, "/records/{id}", HandleGetRecord},
    {http::verb::post, "/records", HandleCreateRecord},
    {http::verb::patch, "/records/{id}", HandlePatchRecord},
    {http::verb::get, "/records", HandleListRecords},
    {http::verb::post, "/records/batch", HandleCreateBatch},
};

bool MatchPath(std::string_view pattern, std::string_view path, Params& params) {
  params.count = 0;
  while (!pattern.empty() && !path.empty()) {
    if (pattern.front() != '/' || path.front() != '/') return false;
    pattern.remove_prefix(1);
    path.remove_prefix(1);
    std::size_t pat_end = std::min(pattern.find('/'), pattern.size());
    std::size_t path_end = std::min(path.find('/'), path.size());
    std::string_view pat_seg = pattern.substr(0, pat_end);
    std::string_view path_seg = path.substr(0, path_end);
    if (pat_seg.size() > 1 && pat_seg.front() == '{' && pat_seg.back() == '}') {
      if (path_seg.empty() || params.count == params.values.size()) return false;
      params.values[params.count++] = path_seg;
    } else if (pat_seg != path_seg) {
      return false;
    }
    pattern.remove_prefix(pat_end);
    path.remove_prefix(path_end);
  }
  return pattern.empty() && path.empty();
}

void Dispatch(Worker& w, const Request& req, Response& res) {
  std::string_view target = req.target();
  std::string_view path = target.substr(0, target.find('?'));
  Params params;
  for (const Route& route : kRoutes) {
    if (route.method == req.method() && MatchPath(route.pattern, path, params)) {
      try {
        route.handler(w, req, params, res);
      } catch (const std::exception&) {
        SetInternalError(res);
      }
      return;
    }
  }
  SetError(res, http::status::not_found, "NOT_FOUND", "Not found");
}

// ---------------------------------------------------------------------------------------------
// Static files (--static-dir). `GET /static/{name}` answers the file with http::file_body, the
// way a Beast file server does: Beast's file body reads the file into a 4 KiB buffer (fixed in
// Boost 1.81) and writes each one. `GET /static256k/{name}` sends it with http::buffer_body in
// 256 KiB reads, the size cairn streams in (kStreamChunkBytes): the faster of the two, so the
// stricter ceiling. An empty name: not such a request, or no such file (the router then answers
// 404).

constexpr std::size_t kStaticChunkBytes = 256 * 1024;

// The name after `prefix` in a GET of the static directory; empty when it is not one.
std::string StaticName(const Request& req, std::string_view prefix) {
  const std::string_view target = req.target();
  if (g_static_dir.empty() || req.method() != http::verb::get || !target.starts_with(prefix)) {
    return {};
  }
  const std::string_view name = target.substr(prefix.size(), target.find('?') - prefix.size());
  if (name.empty() || name.find('/') != std::string_view::npos || name.starts_with('.')) {
    return {};
  }
  return g_static_dir + "/" + std::string(name);
}

std::optional<http::response<http::file_body>> StaticFile(const Request& req) {
  const std::string path = StaticName(req, "/static/");
  if (path.empty()) return std::nullopt;
  http::file_body::value_type file;
  boost::beast::error_code ec;
  file.open(path.c_str(), boost::beast::file_mode::scan, ec);
  if (ec) return std::nullopt;
  http::response<http::file_body> res{http::status::ok, req.version()};
  res.set(http::field::content_type, "application/octet-stream");
  res.body() = std::move(file);
  res.keep_alive(req.keep_alive());
  res.prepare_payload();
  return res;
}

// Sends the file at `path` in 256 KiB reads; false when it cannot be opened (nothing sent) or
// the connection failed.
asio::awaitable<bool> SendChunkedFile(tcp::socket& socket, const Request& req,
                                      const std::string& path, bool& sent) {
  auto token = asio::as_tuple(asio::use_awaitable);
  sent = false;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) co_return false;
  struct stat st {};
  ::fstat(fd, &st);
  sent = true;
  http::response<http::buffer_body> res{http::status::ok, req.version()};
  res.set(http::field::content_type, "application/octet-stream");
  res.content_length(static_cast<std::uint64_t>(st.st_size));
  res.keep_alive(req.keep_alive());
  res.body().data = nullptr;
  res.body().more = true;
  http::response_serializer<http::buffer_body> serializer{res};
  auto [head_ec, head_n] = co_await http::async_write_header(socket, serializer, token);
  bool ok = !head_ec;
  std::vector<char> chunk(kStaticChunkBytes);
  off_t offset = 0;
  while (ok && offset < st.st_size) {
    const ssize_t got = ::pread(fd, chunk.data(), chunk.size(), offset);
    if (got <= 0) {
      ok = false;
      break;
    }
    offset += got;
    res.body().data = chunk.data();
    res.body().size = static_cast<std::size_t>(got);
    res.body().more = offset < st.st_size;
    auto [ec, n] = co_await http::async_write(socket, serializer, token);
    if (ec && ec != http::error::need_buffer) ok = false;
  }
  if (ok && !serializer.is_done()) {
    res.body().data = nullptr;
    res.body().more = false;
    auto [ec, n] = co_await http::async_write(socket, serializer, token);
    ok = !ec;
  }
  ::close(fd);
  co_return ok&& res.keep_alive();
}

// ---------------------------------------------------------------------------------------------
// Server: sessions, acceptor, threads.

asio::awaitable<void> Session(tcp::socket socket, Worker& w) {
  auto token = asio::as_tuple(asio::use_awaitable);
  boost::beast::flat_buffer buffer;
  Response res;
  for (;;) {
    http::request_parser<http::string_body> parser;
    parser.body_limit(kBodyLimit);
    auto [read_ec, read_n] = co_await http::async_read(socket, buffer, parser, token);
    if (read_ec) break;
    const Request& req = parser.get();

    if (auto file = StaticFile(req)) {
      auto [file_ec, file_n] = co_await http::async_write(socket, *file, token);
      if (file_ec || !file->keep_alive()) break;
      continue;
    }
    if (const std::string path = StaticName(req, "/static256k/"); !path.empty()) {
      bool sent = false;
      const bool again = co_await SendChunkedFile(socket, req, path, sent);
      if (sent) {
        if (!again) break;
        continue;
      }
    }
    res.result(http::status::ok);
    res.version(req.version());
    res.body().clear();
    Dispatch(w, req, res);
    res.set(http::field::content_type, "application/json");
    res.keep_alive(req.keep_alive());
    res.prepare_payload();

    auto [write_ec, write_n] = co_await http::async_write(socket, res, token);
    if (write_ec || !res.keep_alive()) break;
  }
  boost::system::error_code ignored;
  socket.shutdown(tcp::socket::shutdown_send, ignored);
}

asio::awaitable<void> Accept(tcp::acceptor& acceptor,
                             std::vector<std::unique_ptr<Worker>>& workers) {
  auto token = asio::as_tuple(asio::use_awaitable);
  std::size_t next = 0;
  for (;;) {
    Worker& w = *workers[next];
    next = (next + 1) % workers.size();
    auto [ec, socket] = co_await acceptor.async_accept(w.ioc, token);
    if (ec) {
      if (ec == asio::error::operation_aborted || !acceptor.is_open()) co_return;
      continue;  // e.g. EMFILE: keep serving the connections we have
    }
    socket.set_option(tcp::no_delay(true), ec);
    asio::co_spawn(w.ioc, Session(std::move(socket), w), asio::detached);
  }
}

struct Options {
  unsigned short port = 8090;
  unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  std::optional<std::int64_t> rows;
  DbOptions db;
};

[[noreturn]] void Usage(const char* message) {
  std::fprintf(stderr,
               "cairn_ceiling: %s\n"
               "usage: cairn_ceiling [--port P] [--db PATH] [--threads N] [--rows N] "
               "[--sync normal|full] [--static-dir DIR]\n",
               message);
  std::exit(2);
}

std::int64_t ParseNumber(std::string_view flag, std::string_view text, std::int64_t min,
                         std::int64_t max) {
  std::int64_t n = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc{} || end != text.data() + text.size() || n < min || n > max) {
    Usage((std::string("bad value for ") + std::string(flag)).c_str());
  }
  return n;
}

Options ParseOptions(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string_view flag = argv[i];
    if (flag == "--help" || flag == "-h") Usage("help");
    if (i + 1 >= argc) Usage((std::string("missing value for ") + argv[i]).c_str());
    std::string_view value = argv[++i];
    if (flag == "--port") {
      o.port = static_cast<unsigned short>(ParseNumber(flag, value, 0, 65535));
    } else if (flag == "--threads") {
      o.threads = static_cast<unsigned>(ParseNumber(flag, value, 1, 256));
    } else if (flag == "--rows") {
      o.rows = ParseNumber(flag, value, 0, 1'000'000'000);
    } else if (flag == "--db") {
      o.db.path = value;
    } else if (flag == "--static-dir") {
      g_static_dir = value;
    } else if (flag == "--sync") {
      if (value != "normal" && value != "full") Usage("--sync must be normal or full");
      o.db.synchronous = value == "full" ? "FULL" : "NORMAL";
    } else {
      Usage((std::string("unknown flag ") + argv[i - 1]).c_str());
    }
  }
  return o;
}

// Runs until SIGINT/SIGTERM. Declaration order matters: the workers (their io_contexts and
// connections) are destroyed last, after every I/O object that uses them.
void Serve(const Options& options) {
  std::vector<std::unique_ptr<Worker>> workers;
  for (unsigned i = 0; i < options.threads; ++i) {
    workers.push_back(std::make_unique<Worker>(options.db));
  }
  asio::io_context& main_ioc = workers[0]->ioc;

  tcp::acceptor acceptor(main_ioc);
  tcp::endpoint endpoint(asio::ip::make_address("127.0.0.1"), options.port);
  try {
    acceptor.open(endpoint.protocol());
    acceptor.set_option(asio::socket_base::reuse_address(true));
    acceptor.bind(endpoint);
    acceptor.listen(asio::socket_base::max_listen_connections);
  } catch (const std::exception& e) {
    Die(std::string("cannot listen on port ") + std::to_string(options.port) + ": " + e.what());
  }

  // Every worker's io_context runs until stop(): the guards keep idle ones alive.
  std::vector<asio::executor_work_guard<asio::io_context::executor_type>> guards;
  for (auto& w : workers) guards.push_back(asio::make_work_guard(w->ioc));

  asio::signal_set signals(main_ioc, SIGINT, SIGTERM);
  signals.async_wait([&](const boost::system::error_code&, int) {
    boost::system::error_code ignored;
    acceptor.close(ignored);
    for (auto& w : workers) w->ioc.stop();
  });

  asio::co_spawn(main_ioc, Accept(acceptor, workers), asio::detached);

  std::printf("cairn_ceiling: %u threads, db %s (WAL, synchronous=%s)\n", options.threads,
              options.db.path.c_str(), options.db.synchronous.c_str());
  std::printf("listening on http://127.0.0.1:%u\n", acceptor.local_endpoint().port());
  std::fflush(stdout);

  std::vector<std::thread> threads;
  for (std::size_t i = 1; i < workers.size(); ++i) {
    threads.emplace_back([&ioc = workers[i]->ioc] { ioc.run(); });
  }
  main_ioc.run();
  for (auto& t : threads) t.join();
  // Suspended sessions hold no SQLite state between requests: destroying each io_context drops
  // them, then its connection closes.
}

}  // namespace

int main(int argc, char** argv) {
  Options options = ParseOptions(argc, argv);
  PrepareDatabase(options.db, options.rows);
  Serve(options);
  std::printf("cairn_ceiling: stopped\n");
  return 0;
}
