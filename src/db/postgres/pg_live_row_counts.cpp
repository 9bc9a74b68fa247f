// PostgreSQL's live-row counters (db/live_row_counts.hpp). Row triggers note each row's change
// in a transaction-local setting; a statement trigger adds the statement's sum to one of
// kShards counter rows in `_cairn_row_counts`, chosen by the backend's pid, so concurrent
// writers rarely wait on one another. The base row (shard 0) holds the count taken when the
// triggers were installed. Counter rows change in the writing transaction, so a snapshot sees
// rows and count agree.
#include <map>
#include <set>

#include "db/postgres/pg_schema_objects.hpp"

namespace cairn::db::postgres {
namespace {

constexpr int kShards = 64;

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
  return "CREATE TRIGGER " + Identifier(trigger.name).quoted() + " " +
         Fill(trigger.definition, "table", table);
}

// Table name → how many of the counting triggers it has, in the current schema.
Result<std::map<std::string, int>> InstalledTriggers(Connection& connection) {
  std::map<std::string, int> triggers;
  CAIRN_TRY(connection.Execute(
      "SELECT c.relname, COUNT(*) FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid "
      "WHERE c.relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema()) AND "
      "t.tgname IN (?, ?, ?, ?, ?) GROUP BY c.relname",
      {kCountTriggers[0].name, kCountTriggers[1].name, kCountTriggers[2].name,
       kCountTriggers[3].name, kCountTriggers[4].name},
      [&](const Row& row) {
        triggers[std::string(row.GetText(0))] = static_cast<int>(row.GetInt64(1));
      }));
  return triggers;
}

// Table name → whether its base row is there.
Result<std::map<std::string, bool>> CountedTables(Connection& connection) {
  std::map<std::string, bool> tables;
  CAIRN_TRY(connection.Execute(
      "SELECT \"table_name\", bool_or(\"shard\" = 0) FROM \"_cairn_row_counts\" "
      "GROUP BY \"table_name\"",
      {}, [&](const Row& row) { tables[std::string(row.GetText(0))] = row.GetBool(1); }));
  return tables;
}

Status InstallCounting(Connection& connection, const std::string& table_name) {
  const std::string table = Identifier(table_name).quoted();
  // Writers wait from here to the commit, so the count below misses no statement and the
  // triggers miss none after it.
  CAIRN_TRY(connection.ExecuteScript("LOCK TABLE " + table + " IN SHARE ROW EXCLUSIVE MODE"));
  for (const CountTrigger& trigger : kCountTriggers) {
    CAIRN_TRY(connection.ExecuteScript("DROP TRIGGER IF EXISTS " +
                                       Identifier(trigger.name).quoted() + " ON " + table));
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

class PgLiveRowCountsImpl final : public LiveRowCounts {
 public:
  // The functions are replaced on every run, so a new cairn brings its own.
  Status Sync(Connection& connection, std::span<const std::string> tables) const override {
    CAIRN_TRY(connection.ExecuteScript(
        "CREATE TABLE IF NOT EXISTS \"_cairn_row_counts\" (\"table_name\" TEXT NOT NULL, "
        "\"shard\" INTEGER NOT NULL, \"live\" BIGINT NOT NULL, "
        "PRIMARY KEY (\"table_name\", \"shard\"))"));
    for (const std::string_view function : kFunctions) {
      CAIRN_TRY(connection.ExecuteScript(Fill(function, "shards", std::to_string(kShards))));
    }
    CAIRN_ASSIGN_OR_RETURN(const auto triggers, InstalledTriggers(connection));
    CAIRN_ASSIGN_OR_RETURN(const auto counted, CountedTables(connection));
    std::set<std::string> wanted;
    for (const std::string& table : tables) {
      wanted.insert(table);
      const auto installed = triggers.find(table);
      const auto based = counted.find(table);
      const bool complete = installed != triggers.end() &&
                            installed->second == static_cast<int>(std::size(kCountTriggers)) &&
                            based != counted.end() && based->second;
      if (!complete) CAIRN_TRY(InstallCounting(connection, table));
    }
    // A table dropped now may come back under the same name: it must not find these.
    for (const auto& [name, based] : counted) {
      if (wanted.contains(name)) continue;
      CAIRN_TRY(
          connection.Execute("DELETE FROM \"_cairn_row_counts\" WHERE \"table_name\" = ?", {name}));
    }
    return {};
  }

  // A transaction that updated one counter row once per statement would make each update walk
  // the versions its earlier ones left (1000 inserts: 4 → 25 ms, 5000: 18 → 215 ms).
  Status WithDeferred(Connection& connection, const std::function<Status()>& work) const override {
    CAIRN_TRY(connection.Execute("SELECT set_config('cairn.defer_live_counts', 'on', true)", {}));
    CAIRN_TRY(work());
    CAIRN_TRY(connection.Execute("SELECT \"_cairn_flush_live_counts\"()", {}));
    return {};
  }

  // COALESCE evaluates its second argument only when the first is null: no counters yet.
  LiveRowCountQuery Count(std::string_view table_name) const override {
    const std::string table = Identifier(table_name).quoted();
    return {
        "SELECT COALESCE((SELECT SUM(\"live\")::BIGINT FROM \"_cairn_row_counts\" WHERE "
        "\"table_name\" = ?), (SELECT COUNT(*) FROM " +
            table + " WHERE \"deleted_at\" IS NULL))",
        {Value(std::string(table_name))}};
  }
};

}  // namespace

const LiveRowCounts& PgLiveRowCounts() {
  static const PgLiveRowCountsImpl counts;
  return counts;
}

}  // namespace cairn::db::postgres
