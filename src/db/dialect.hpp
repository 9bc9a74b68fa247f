// Every SQL difference between SQLite and PostgreSQL, in one place (ARCHITECTURE.md). Code that
// builds SQL asks the dialect instead of branching on the backend.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"

namespace cairn::db {

enum class Backend { kSqlite, kPostgres };

class Introspector;
class LiveRowCounts;
class SearchIndex;

// A table, column or index name. It is never spliced into SQL raw: `quoted()` is the only text
// form that enters a statement (`"name"`, with `"` doubled). Both backends follow the SQL
// standard here, so the quoting lives in the type itself.
class Identifier {
 public:
  // Empty names and names containing NUL are broken invariants (config names are validated
  // long before SQL is built): the constructor throws std::invalid_argument. Use Parse for
  // names that come from outside.
  explicit Identifier(std::string_view name);
  static Result<Identifier> Parse(std::string_view name);

  const std::string& name() const { return name_; }
  const std::string& quoted() const { return quoted_; }
  void AppendTo(std::string& out) const { out += quoted_; }

  friend bool operator==(const Identifier& a, const Identifier& b) { return a.name_ == b.name_; }

 private:
  std::string name_;
  std::string quoted_;
};

// The semantic kind of a column; each backend picks its physical type.
enum class ColumnKind {
  kId,         // the integer primary key, assigned by the database
  kInt64,      // integers, durations in seconds, many-to-one references
  kDouble,     // approximate numbers (not used for money: see kDecimal)
  kText,       // text, dates `YYYY-MM-DD`, times
  kBool,       // SQLite INTEGER 0/1, PostgreSQL BOOLEAN
  kTimestamp,  // SQLite INTEGER epoch millis, PostgreSQL TIMESTAMPTZ(3)
  kDecimal,    // D9: SQLite INTEGER units scaled by 10^scale, PostgreSQL NUMERIC(38, scale)
  kJson,       // SQLite TEXT, PostgreSQL JSONB
  kBlob,       // SQLite BLOB, PostgreSQL BYTEA
};

struct ColumnType {
  ColumnKind kind = ColumnKind::kText;
  int scale = 0;  // kDecimal only

  friend bool operator==(const ColumnType&, const ColumnType&) = default;
};

// Largest decimal scale whose 10^scale fits int64 units (D9 decimals are int64 units).
inline constexpr int kMaxDecimalScale = 18;
// PostgreSQL's identifier limit (NAMEDATALEN - 1); longer names are silently truncated there.
inline constexpr std::size_t kMaxIdentifierBytes = 63;

// Small differences are answered here; the large backend-specific pieces (the `q` index, live
// row counts, catalog introspection) are objects of the backend's own library (db/sqlite/,
// db/postgres/), handed out below. Code outside src/db never branches on the backend.
class Dialect {
 public:
  // Defined by the backend libraries (sqlite/sqlite_dialect.cpp, postgres/pg_dialect.cpp).
  static const Dialect& Sqlite();
  static const Dialect& Postgres();
  static const Dialect& For(Backend backend);  // open_database.cpp

  Dialect(Backend backend, const SearchIndex& search_index, const LiveRowCounts& live_row_counts,
          const Introspector& introspector)
      : backend_(backend),
        search_index_(search_index),
        live_row_counts_(live_row_counts),
        introspector_(introspector) {}
  Dialect(const Dialect&) = delete;
  Dialect& operator=(const Dialect&) = delete;

  Backend backend() const { return backend_; }
  std::string_view name() const;  // `sqlite`, `postgres`
  // For src/db and tests; elsewhere ask for the behaviour (`shared_server()`, …), not the name.
  bool is_postgres() const { return backend_ == Backend::kPostgres; }
  // A server several cairn nodes may share (PostgreSQL): state that all nodes must see (rate
  // limits, revoked sessions) lives in it, and handlers wait on its round trips. SQLite is one
  // file owned by one process.
  bool shared_server() const { return backend_ == Backend::kPostgres; }

  // --- Backend objects ------------------------------------------------------------------------
  const SearchIndex& search_index() const { return search_index_; }
  const LiveRowCounts& live_row_counts() const { return live_row_counts_; }
  const Introspector& introspector() const { return introspector_; }

  // --- Statements -----------------------------------------------------------------------------
  // Statements are written with `?` placeholders. PostgreSQL wants `$1, $2, …`: the backend
  // translates once when it prepares a statement (and caches the result with it). `?` inside
  // string literals, quoted identifiers and comments is left alone.
  std::string TranslatePlaceholders(std::string_view sql) const;

  // ` RETURNING "id"` (both backends support RETURNING; SQLite since 3.35).
  std::string_view ReturningId() const { return " RETURNING \"id\""; }
  // ` ON CONFLICT ("a", "b") DO UPDATE SET "c" = excluded."c", …`; with no update columns
  // ` ON CONFLICT ("a", "b") DO NOTHING`.
  std::string UpsertClause(std::span<const Identifier> conflict_columns,
                           std::span<const Identifier> update_columns) const;
  // Row lock for read-modify-write inside a write transaction. SQLite has one writer, so the
  // transaction itself is the lock and the clause is empty.
  std::string_view ForUpdate() const;
  // `column_sql` in a form the planner will not answer from an index: SQLite `+"col"` (its
  // documented way to rule a term out of index selection), PostgreSQL the column itself. For
  // conditions that match nearly every row, where an index walk plus row lookups costs more
  // than the scan the query does anyway.
  std::string NotIndexed(std::string_view column_sql) const;
  // `LIKE` that ignores case: PostgreSQL ILIKE; SQLite's LIKE is case-insensitive for ASCII.
  std::string_view CaseInsensitiveLike() const;
  // Escape clause for LIKE patterns built with EscapeLike (`\` escapes `%`, `_`, `\`).
  std::string_view LikeEscape() const { return " ESCAPE '\\'"; }
  static std::string EscapeLike(std::string_view text);
  // `'text'` with `'` doubled, for names in DDL that cannot be bound (both backends); never
  // for user values, which are always bound.
  static std::string StringLiteral(std::string_view text);
  // Boolean literal: SQLite `1`/`0`, PostgreSQL `TRUE`/`FALSE`.
  std::string_view BoolLiteral(bool value) const;
  // A boolean expression, true when the JSON array in `column_sql` contains the text bound to
  // its single `?` placeholder (multi-select filters).
  std::string JsonArrayContainsText(std::string_view column_sql) const;
  // The number of elements of the JSON array in `column_sql`.
  std::string JsonArrayLength(std::string_view column_sql) const;
  // The JSON in `column_sql` as text, for LIKE: SQLite stores JSON as text already, PostgreSQL
  // casts its JSONB (`"col"::text`).
  std::string JsonAsText(std::string_view column_sql) const;
  // A scalar subquery: the JSON array of `value_sql` over the rows of `from_where_sql`
  // (` FROM … WHERE …`), ascending. SQLite gives `[]` for no rows, PostgreSQL NULL.
  std::string JsonArrayAggregate(std::string_view value_sql, std::string_view from_where_sql) const;

  // --- Schema ---------------------------------------------------------------------------------
  // Column type for DDL (`INTEGER PRIMARY KEY AUTOINCREMENT`, `NUMERIC(38, 2)`, …).
  std::string ColumnTypeSql(ColumnType type) const;
  // The type name introspection reports for a column of `type` (SQLite: the declared type;
  // PostgreSQL: information_schema.columns.data_type), lowercase.
  std::string_view IntrospectedTypeName(ColumnType type) const;
  // `CREATE TABLE` for scratch data that need not survive a crash (rate-limit counters):
  // PostgreSQL `CREATE UNLOGGED TABLE` (no WAL, emptied after a crash, not replicated); SQLite
  // has no such kind of table.
  std::string_view CreateUnloggedTable() const;
  // Column type for text compared and ordered bytewise (UTF-8 byte order = code point order),
  // such as storage paths listed by range: PostgreSQL `TEXT COLLATE "C"` (its default collation
  // follows the locale), SQLite `TEXT` (its default BINARY collation already compares bytes).
  std::string_view BytewiseTextType() const;
  // Statements that keep `column` (a blob column of `table` holding already-compressed or
  // chunked file bytes) out of the backend's own compression: PostgreSQL `SET STORAGE EXTERNAL`
  // (out of line, uncompressed, so a substring reads only the pages it needs); SQLite none.
  std::vector<std::string> UncompressedBlobColumn(const Identifier& table,
                                                  const Identifier& column) const;
  // The id of the database session running a statement, and a condition that holds while the
  // session with the id in `column_sql` is still connected: PostgreSQL `pg_backend_pid()` and a
  // look into `pg_stat_activity`, so a node can tell another node's live work from a dead one's.
  // SQLite has one process: the id is 0 and no other session is ever alive.
  std::string_view SessionId() const;
  std::string SessionAlive(std::string_view column_sql) const;
  // `DROP TABLE "t"` (PostgreSQL adds CASCADE so foreign keys pointing at it go too).
  std::string DropTable(const Identifier& table) const;
  // SQLite resolves REFERENCES lazily, so CREATE TABLE may name a table created later in the
  // same migration; PostgreSQL needs the target to exist (or ALTER TABLE ADD CONSTRAINT later).
  bool allows_forward_references() const { return backend_ == Backend::kSqlite; }
  // SQLite cannot drop a column used by a foreign key, index or constraint; the migrator
  // rebuilds the table instead. PostgreSQL drops columns (and what depends on them) directly.
  bool drops_columns_by_rebuild() const { return backend_ == Backend::kSqlite; }
  // Serializes migrations of several nodes. PostgreSQL: a transaction-level advisory lock keyed
  // on the current schema; SQLite: none (BEGIN IMMEDIATE already excludes other writers).
  std::optional<std::string> MigrationLockSql() const;
  // Lets one node at a time run a background job step: PostgreSQL `pg_try_advisory_xact_lock`
  // keyed on the job's name (bound as the one parameter) and the current schema, answering one
  // boolean row (true: this transaction holds the lock until it ends, false: another does).
  // SQLite: none (one process, and BEGIN IMMEDIATE already excludes other writers).
  std::optional<std::string> TryJobLockSql() const;
  // Statements that carry the id sequence of `from` over to `to` when the migrator rebuilds a
  // table under a scratch name (drops_columns_by_rebuild), so ids of deleted rows are never
  // reused: SQLite's AUTOINCREMENT high-water mark lives in sqlite_sequence.
  std::vector<std::string> CopyIdSequence(std::string_view from, std::string_view to) const;

 private:
  Backend backend_;
  const SearchIndex& search_index_;
  const LiveRowCounts& live_row_counts_;
  const Introspector& introspector_;
};

}  // namespace cairn::db
