// `q` on SQLite: an FTS5 trigram table per searched table, external content over it, kept in
// step by triggers (db/search_index.hpp).
#include <set>

#include "common/crypto.hpp"
#include "common/text.hpp"
#include "db/sqlite/sqlite_schema_objects.hpp"

namespace cairn::db::sqlite {
namespace {

constexpr std::string_view kPrefix = "_cairn_search_";
constexpr std::size_t kFingerprintLength = 12;
// FTS5's trigram tokenizer matches nothing shorter.
constexpr std::size_t kTrigramLength = 3;

// `_cairn_search_<fingerprint of the table and its columns>`.
std::string IndexName(const SearchTable& table) {
  std::string input = table.name;
  for (const SearchColumn& column : table.columns) input += '\0' + column.name;
  return std::string(kPrefix) + crypto::Sha256Hex(input).substr(0, kFingerprintLength);
}

// `"a", "b"` and `new."a", new."b"` (or old.).
std::string Columns(const SearchTable& table, std::string_view row = {}) {
  std::string out;
  for (const SearchColumn& column : table.columns) {
    if (!out.empty()) out += ", ";
    out += std::string(row) + Identifier(column.name).quoted();
  }
  return out;
}

// FTS5 query: the phrase `q` within the given columns (`{a b} : "q"`, quotes doubled).
std::string MatchQuery(std::span<const SearchColumn> columns, std::string_view q) {
  std::string out = "{";
  for (const SearchColumn& column : columns) {
    if (out.size() > 1) out += ' ';
    out += column.name;
  }
  out += "} : \"";
  for (const char c : q) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  out += '"';
  return out;
}

Result<std::set<std::string>> Existing(Connection& connection, std::string_view type) {
  std::set<std::string> names;
  CAIRN_TRY(connection.Execute(
      "SELECT \"name\" FROM sqlite_master WHERE \"type\" = ? AND \"name\" LIKE ? ESCAPE '\\'",
      {type, Dialect::EscapeLike(kPrefix) + "%"},
      [&](const Row& row) { names.emplace(row.GetText(0)); }));
  return names;
}

Status SyncIndexes(Connection& connection, std::span<const SearchTable> tables) {
  CAIRN_ASSIGN_OR_RETURN(const auto existing_tables, Existing(connection, "table"));
  CAIRN_ASSIGN_OR_RETURN(const auto triggers, Existing(connection, "trigger"));
  std::set<std::string> wanted;
  for (const SearchTable& table : tables) {
    if (table.columns.empty()) continue;
    const std::string name = IndexName(table);
    wanted.insert(name);
    const std::string index = Identifier(name).quoted();
    const std::string base = Identifier(table.name).quoted();
    bool rebuild = false;
    if (!existing_tables.contains(name)) {
      CAIRN_TRY(connection.ExecuteScript(
          "CREATE VIRTUAL TABLE " + index + " USING fts5(" + Columns(table) + ", content=" +
          Dialect::StringLiteral(table.name) + ", content_rowid='id', tokenize='trigram')"));
      rebuild = true;
    }
    // Triggers go with their table when the migrator rebuilds it: recreate and reindex.
    const std::string insert_new = "INSERT INTO " + index + " (rowid, " + Columns(table) +
                                   ") VALUES (new.\"id\", " + Columns(table, "new.") + ");";
    const std::string delete_old = "INSERT INTO " + index + " (" + index + ", rowid, " +
                                   Columns(table) + ") VALUES ('delete', old.\"id\", " +
                                   Columns(table, "old.") + ");";
    const std::pair<std::string, std::string> wanted_triggers[] = {
        {name + "_insert", "AFTER INSERT ON " + base + " BEGIN " + insert_new + " END"},
        {name + "_delete", "AFTER DELETE ON " + base + " BEGIN " + delete_old + " END"},
        {name + "_update", "AFTER UPDATE OF " + Columns(table) + " ON " + base + " BEGIN " +
                               delete_old + " " + insert_new + " END"},
    };
    for (const auto& [trigger, body] : wanted_triggers) {
      if (triggers.contains(trigger)) continue;
      CAIRN_TRY(
          connection.ExecuteScript("CREATE TRIGGER " + Identifier(trigger).quoted() + " " + body));
      rebuild = true;
    }
    if (rebuild) {
      CAIRN_TRY(
          connection.ExecuteScript("INSERT INTO " + index + " (" + index + ") VALUES ('rebuild')"));
    }
  }
  // Indexes of removed tables or of an older set of columns: their triggers first.
  for (const std::string& trigger : triggers) {
    if (!wanted.contains(trigger.substr(0, trigger.rfind('_')))) {
      CAIRN_TRY(connection.ExecuteScript("DROP TRIGGER " + Identifier(trigger).quoted()));
    }
  }
  for (const std::string& table : existing_tables) {
    // FTS5 keeps its data in shadow tables named <index>_data, …; dropping the index drops them.
    if (table.size() == kPrefix.size() + kFingerprintLength && !wanted.contains(table)) {
      CAIRN_TRY(connection.ExecuteScript("DROP TABLE " + Identifier(table).quoted()));
    }
  }
  return {};
}

class SqliteSearchIndexImpl final : public SearchIndex {
 public:
  Status Sync(Database& database, std::span<const SearchTable> tables) const override {
    return database.Transaction(
        Access::kSchema, [&](Connection& connection) { return SyncIndexes(connection, tables); });
  }

  // The trigram index answers substrings of 3+ characters; shorter ones scan.
  void AppendMatch(const SearchTable& table, std::span<const SearchColumn> searched,
                   std::string_view q, std::string& sql,
                   std::vector<Value>& params) const override {
    if (text::CodePoints(q) < kTrigramLength) {
      AppendScanMatch(Dialect::Sqlite(), searched, q, sql, params);
      return;
    }
    const std::string index = Identifier(IndexName(table)).quoted();
    sql += "\"id\" IN (SELECT rowid FROM " + index + " WHERE " + index + " MATCH ?)";
    params.emplace_back(MatchQuery(searched, q));
  }
};

}  // namespace

const SearchIndex& SqliteSearchIndex() {
  static const SqliteSearchIndexImpl index;
  return index;
}

}  // namespace cairn::db::sqlite
