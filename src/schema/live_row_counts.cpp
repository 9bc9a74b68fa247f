#include "schema/live_row_counts.hpp"

#include <map>
#include <set>

namespace cairn::schema {
namespace {

// Row triggers add each row's change to a transaction-local setting per table
// (`cairn.live_delta_<oid>`, the oids listed in `cairn.live_pending`): no query, and no trigger
// at all for updates that leave deleted_at alone. A statement trigger then writes the sum to the
// counters, once per statement however many rows it touched (a bulk load stays linear), unless
// WithLiveRowCountsDeferred holds the write back to the end of its batch.
constexpr std::string_view kFunctions[] = {
    R"sql(
CREATE OR REPLACE FUNCTION "_cairn_live_row_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  key TEXT := 'cairn.live_delta_' || TG_RELID;
  pending TEXT := COALESCE(current_setting(key, true), '');
  delta BIGINT;
  ignored TEXT;
BEGIN
  IF TG_OP = 'INSERT' THEN
    delta := 1;
  ELSIF TG_OP = 'DELETE' THEN
    delta := -1;
  ELSIF NEW."deleted_at" IS NULL THEN
    delta := 1;
  ELSE
    delta := -1;
  END IF;
  IF pending = '' THEN
    ignored := set_config('cairn.live_pending', concat_ws(',',
        NULLIF(current_setting('cairn.live_pending', true), ''), TG_RELID::TEXT), true);
    pending := '0';
  END IF;
  ignored := set_config(key, (pending::BIGINT + delta)::TEXT, true);
  RETURN NULL;
END $$)sql",
    R"sql(
CREATE OR REPLACE FUNCTION "_cairn_flush_live_counts"() RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  relid TEXT;
  delta BIGINT;
  ignored TEXT;
BEGIN
  FOREACH relid IN ARRAY COALESCE(string_to_array(
      NULLIF(current_setting('cairn.live_pending', true), ''), ','), '{}'::TEXT[]) LOOP
    delta := current_setting('cairn.live_delta_' || relid)::BIGINT;
    IF delta <> 0 THEN
      INSERT INTO "_cairn_row_counts" AS c ("table_name", "shard", "live")
      SELECT relname, 1 + pg_backend_pid() % {shards}, delta FROM pg_class WHERE oid = relid::OID
      ON CONFLICT ("table_name", "shard") DO UPDATE SET "live" = c."live" + EXCLUDED."live";
    END IF;
    ignored := set_config('cairn.live_delta_' || relid, '', true);
  END LOOP;
  ignored := set_config('cairn.live_pending', '', true);
  ignored := set_config('cairn.defer_live_counts', 'off', true);
END $$)sql",
    R"sql(
CREATE OR REPLACE FUNCTION "_cairn_live_rows_written"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF COALESCE(current_setting('cairn.live_pending', true), '') <> '' AND
     current_setting('cairn.defer_live_counts', true) IS DISTINCT FROM 'on' THEN
    PERFORM "_cairn_flush_live_counts"();
  END IF;
  RETURN NULL;
END $$)sql",
    R"sql(
CREATE OR REPLACE FUNCTION "_cairn_live_rows_truncated"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  ignored TEXT;
BEGIN
  DELETE FROM "_cairn_row_counts" WHERE "table_name" = TG_TABLE_NAME;
  INSERT INTO "_cairn_row_counts" ("table_name", "shard", "live") VALUES (TG_TABLE_NAME, 0, 0);
  IF COALESCE(current_setting('cairn.live_delta_' || TG_RELID, true), '') <> '' THEN
    ignored := set_config('cairn.live_delta_' || TG_RELID, '0', true);
  END IF;
  RETURN NULL;
END $$)sql",
};

// `pattern` with each `{name}` replaced by `value`.
std::string Fill(std::string_view pattern, std::string_view name, std::string_view value) {
  std::string out(pattern);
  const std::string placeholder = "{" + std::string(name) + "}";
  for (auto at = out.find(placeholder); at != std::string::npos;
       at = out.find(placeholder, at + value.size())) {
    out.replace(at, placeholder.size(), value);
  }
  return out;
}

struct CountTrigger {
  std::string_view name;
  std::string_view definition;  // after the name; {table} is the quoted table
};
constexpr CountTrigger kCountTriggers[] = {
    {"_cairn_live_insert",
     "AFTER INSERT ON {table} FOR EACH ROW WHEN (NEW.\"deleted_at\" IS NULL) "
     "EXECUTE FUNCTION \"_cairn_live_row_changed\"()"},
    {"_cairn_live_update",
     "AFTER UPDATE OF \"deleted_at\" ON {table} FOR EACH ROW "
     "WHEN ((OLD.\"deleted_at\" IS NULL) <> (NEW.\"deleted_at\" IS NULL)) "
     "EXECUTE FUNCTION \"_cairn_live_row_changed\"()"},
    {"_cairn_live_delete",
     "AFTER DELETE ON {table} FOR EACH ROW WHEN (OLD.\"deleted_at\" IS NULL) "
     "EXECUTE FUNCTION \"_cairn_live_row_changed\"()"},
    // Statement triggers fire after the statement's row triggers.
    {"_cairn_live_flush",
     "AFTER INSERT OR UPDATE OF \"deleted_at\" OR DELETE ON {table} FOR EACH STATEMENT "
     "EXECUTE FUNCTION \"_cairn_live_rows_written\"()"},
    {"_cairn_live_truncate",
     "AFTER TRUNCATE ON {table} FOR EACH STATEMENT "
     "EXECUTE FUNCTION \"_cairn_live_rows_truncated\"()"},
};

std::string TriggerSql(const CountTrigger& trigger, const std::string& table) {
  return "CREATE TRIGGER " + db::Identifier(trigger.name).quoted() + " " +
         Fill(trigger.definition, "table", table);
}

// Table name → how many of the counting triggers it has, in the current schema.
Result<std::map<std::string, int>> InstalledTriggers(db::Connection& connection) {
  std::map<std::string, int> triggers;
  CAIRN_TRY(connection.Execute(
      "SELECT c.relname, COUNT(*) FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid "
      "WHERE c.relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema()) AND "
      "t.tgname IN (?, ?, ?, ?, ?) GROUP BY c.relname",
      {kCountTriggers[0].name, kCountTriggers[1].name, kCountTriggers[2].name,
       kCountTriggers[3].name, kCountTriggers[4].name},
      [&](const db::Row& row) {
        triggers[std::string(row.GetText(0))] = static_cast<int>(row.GetInt64(1));
      }));
  return triggers;
}

// Table name → whether its base row is there.
Result<std::map<std::string, bool>> CountedTables(db::Connection& connection) {
  std::map<std::string, bool> tables;
  CAIRN_TRY(connection.Execute(
      "SELECT \"table_name\", bool_or(\"shard\" = 0) FROM \"_cairn_row_counts\" "
      "GROUP BY \"table_name\"",
      {}, [&](const db::Row& row) { tables[std::string(row.GetText(0))] = row.GetBool(1); }));
  return tables;
}

Status InstallCounting(db::Connection& connection, const std::string& table_name) {
  const std::string table = db::Identifier(table_name).quoted();
  // Writers wait from here to the commit, so the count below misses no statement and the
  // triggers miss none after it.
  CAIRN_TRY(connection.ExecuteScript("LOCK TABLE " + table + " IN SHARE ROW EXCLUSIVE MODE"));
  for (const CountTrigger& trigger : kCountTriggers) {
    CAIRN_TRY(connection.ExecuteScript("DROP TRIGGER IF EXISTS " +
                                       db::Identifier(trigger.name).quoted() + " ON " + table));
    CAIRN_TRY(connection.ExecuteScript(TriggerSql(trigger, table)));
  }
  CAIRN_TRY(connection.Execute("DELETE FROM \"_cairn_row_counts\" WHERE \"table_name\" = ?",
                               {table_name}));
  CAIRN_TRY(
      connection.Execute("INSERT INTO \"_cairn_row_counts\" (\"table_name\", \"shard\", "
                         "\"live\") SELECT ?, 0, COUNT(*) FROM " +
                             table + " WHERE \"deleted_at\" IS NULL",
                         {table_name}));
  return {};
}

}  // namespace

Status SyncLiveRowCounts(db::Connection& connection, const SchemaModel& model) {
  if (!connection.dialect().is_postgres()) return {};
  // The functions are replaced on every run, so a new cairn brings its own.
  CAIRN_TRY(connection.ExecuteScript(
      "CREATE TABLE IF NOT EXISTS \"_cairn_row_counts\" (\"table_name\" TEXT NOT NULL, "
      "\"shard\" INTEGER NOT NULL, \"live\" BIGINT NOT NULL, "
      "PRIMARY KEY (\"table_name\", \"shard\"))"));
  for (const std::string_view function : kFunctions) {
    CAIRN_TRY(
        connection.ExecuteScript(Fill(function, "shards", std::to_string(kLiveRowCountShards))));
  }
  CAIRN_ASSIGN_OR_RETURN(const auto triggers, InstalledTriggers(connection));
  CAIRN_ASSIGN_OR_RETURN(const auto counted, CountedTables(connection));
  std::set<std::string> wanted;
  for (const TableModel& table : model.tables) {
    if (table.kind != TableKind::kTable) continue;
    wanted.insert(table.name);
    const auto installed = triggers.find(table.name);
    const auto based = counted.find(table.name);
    const bool complete = installed != triggers.end() &&
                          installed->second == static_cast<int>(std::size(kCountTriggers)) &&
                          based != counted.end() && based->second;
    if (!complete) CAIRN_TRY(InstallCounting(connection, table.name));
  }
  // A table dropped now may come back under the same name: it must not find these.
  for (const auto& [name, based] : counted) {
    if (wanted.contains(name)) continue;
    CAIRN_TRY(
        connection.Execute("DELETE FROM \"_cairn_row_counts\" WHERE \"table_name\" = ?", {name}));
  }
  return {};
}

Status WithLiveRowCountsDeferred(db::Connection& connection, const std::function<Status()>& work) {
  if (!connection.dialect().is_postgres()) return work();
  CAIRN_TRY(connection.Execute("SELECT set_config('cairn.defer_live_counts', 'on', true)", {}));
  CAIRN_TRY(work());
  CAIRN_TRY(connection.Execute("SELECT \"_cairn_flush_live_counts\"()", {}));
  return {};
}

LiveRowCountQuery LiveRowCount(const db::Dialect& dialect, std::string_view table_name) {
  const std::string table = db::Identifier(table_name).quoted();
  if (!dialect.is_postgres()) {
    // A bare COUNT(*) is answered from the smallest b-tree without visiting rows, and the trash
    // count reads the small part of its index.
    return {"SELECT (SELECT COUNT(*) FROM " + table + ") - (SELECT COUNT(*) FROM " + table +
                " WHERE \"deleted_at\" IS NOT NULL)",
            {}};
  }
  // COALESCE evaluates its second argument only when the first is null: no counters yet.
  return {
      "SELECT COALESCE((SELECT SUM(\"live\")::BIGINT FROM \"_cairn_row_counts\" WHERE "
      "\"table_name\" = ?), (SELECT COUNT(*) FROM " +
          table + " WHERE \"deleted_at\" IS NULL))",
      {db::Value(std::string(table_name))}};
}

}  // namespace cairn::schema
