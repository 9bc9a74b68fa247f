#include "schema/migration_plan.hpp"

#include <algorithm>
#include <functional>
#include <set>

namespace cairn::schema {
namespace {

std::string Q(std::string_view name) {
  return db::Identifier(name).quoted();
}

std::string ColumnList(const std::vector<std::string>& columns) {
  std::string out;
  for (const auto& column : columns) {
    if (!out.empty()) out += ", ";
    out += Q(column);
  }
  return out;
}

std::string TableWord(const TableModel& table) {
  return table.kind == TableKind::kJunction ? "junction table" : "table";
}

// CREATE TABLE for `table` under `name`, with `extra` column definitions after its own;
// references are inline unless `inline_reference` says otherwise.
std::string CreateTableSql(const db::Dialect& dialect, const TableModel& table,
                           std::string_view name,
                           const std::function<bool(const ColumnModel&)>& inline_reference,
                           const std::vector<std::string>& extra = {}) {
  std::string sql = "CREATE TABLE " + Q(name) + " (";
  for (std::size_t i = 0; i < table.columns.size(); ++i) {
    if (i > 0) sql += ", ";
    sql += ColumnDefinition(dialect, table.columns[i], inline_reference(table.columns[i]));
  }
  for (const std::string& definition : extra) sql += ", " + definition;
  if (!table.primary_key.empty()) sql += ", PRIMARY KEY (" + ColumnList(table.primary_key) + ")";
  sql += ')';
  return sql;
}

std::string ForeignKeyName(const TableModel& table, const ColumnModel& column) {
  return Fnv1aHex(table.name + '\0' + column.name + '\0' + column.references).insert(0, "cx_fk_");
}

// The column's type differs from what the live column holds.
std::optional<std::string> OldTypeIfChanged(const db::Dialect& dialect, const TableModel& table,
                                            const ColumnModel& column, const db::LiveColumn& live,
                                            const ManagedState& managed) {
  const auto it = managed.columns.find({table.name, column.name});
  if (it != managed.columns.end()) {
    if (it->second == column.Signature()) return std::nullopt;
    return it->second;
  }
  if (live.type == dialect.IntrospectedTypeName(column.type)) return std::nullopt;
  return live.type;
}

struct TableChange {
  const TableModel* table;
  const db::LiveTable* live;
  std::vector<std::string> removed;         // live columns no longer wanted
  std::vector<const ColumnModel*> retyped;  // wanted with another type
  std::vector<const ColumnModel*> added;    // not in the live table
};

class Planner {
 public:
  Planner(const db::Dialect& dialect, const SchemaModel& model, const db::LiveSchema& live,
          const ManagedState& managed, bool allow)
      : dialect_(dialect), model_(model), live_(live), managed_(managed), allow_(allow) {}

  MigrationPlan Plan() {
    CreateInternalTables();
    DropObsoleteIndexes();
    DropRemovedTables();
    std::vector<TableChange> changes = DiffExistingTables();
    CreateNewTables();
    for (const auto& change : changes) ApplyColumnChanges(change);
    CreateMissingIndexes();
    for (auto& step : deferred_) plan_.steps.push_back(std::move(step));
    return std::move(plan_);
  }

 private:
  void Step(std::string sql, std::string description,
            std::optional<std::string> unique_over = std::nullopt) {
    plan_.steps.push_back({std::move(sql), std::move(description), std::move(unique_over)});
  }

  void CreateInternalTables() {
    const std::string id = dialect_.ColumnTypeSql({db::ColumnKind::kId});
    const std::string timestamp = dialect_.ColumnTypeSql({db::ColumnKind::kTimestamp});
    const std::string json = dialect_.ColumnTypeSql({db::ColumnKind::kJson});
    const std::pair<std::string_view, std::string> tables[] = {
        {kMigrationsTable, "\"id\" " + id + ", \"applied_at\" " + timestamp +
                               " NOT NULL, \"checksum\" TEXT NOT NULL, \"description\" TEXT NOT "
                               "NULL, \"statements\" " +
                               json + " NOT NULL"},
        {kTablesTable,
         "\"name\" TEXT PRIMARY KEY, \"kind\" TEXT NOT NULL, \"label\" TEXT NOT NULL"},
        {kColumnsTable,
         "\"table_name\" TEXT NOT NULL, \"column_name\" TEXT NOT NULL, "
         "\"signature\" TEXT NOT NULL, PRIMARY KEY (\"table_name\", \"column_name\")"},
    };
    for (const auto& [name, columns] : tables) {
      if (live_.FindTable(name) != nullptr) continue;
      Step("CREATE TABLE " + Q(name) + " (" + columns + ")", "create internal table " + Q(name));
    }
  }

  void DropObsoleteIndexes() {
    for (const auto& live_table : live_.tables) {
      const TableModel* table = model_.FindTable(live_table.name);
      if (table == nullptr) continue;  // not ours, or dropped as a whole below
      for (const auto& index : live_table.indexes) {
        if (!index.name.starts_with(kManagedIndexPrefix)) continue;
        bool wanted = false;
        for (const auto& desired : table->indexes) wanted = wanted || desired.name == index.name;
        if (wanted) {
          live_indexes_[table->name].insert(index.name);
        } else {
          Step("DROP INDEX " + Q(index.name),
               "drop index " + Q(index.name) + " of " + TableWord(*table) + " " + Q(table->label));
        }
      }
    }
  }

  void DropRemovedTables() {
    // Junction tables first: they point at the others.
    for (const std::string_view kind : {"junction", "table"}) {
      for (const auto& [name, info] : managed_.tables) {
        if (info.kind != kind || model_.FindTable(name) != nullptr) continue;
        if (managed_.deferred.contains({name, ""})) continue;
        if (live_.FindTable(name) == nullptr) continue;  // already gone
        std::string what = kind == "junction" ? "the junction table " + Q(name) +
                                                    " of many-to-many field " + Q(info.label)
                                              : "table " + Q(info.label);
        plan_.destructive.push_back(
            {info.label, "",
             "refusing to drop " + what +
                 ": it is no longer in the config and dropping it would delete its data",
             kind == "junction" ? DestructiveChange::Kind::kDropJunction
                                : DestructiveChange::Kind::kDropTable,
             name});
        if (allow_) Step(dialect_.DropTable(db::Identifier(name)), "drop " + what);
      }
    }
  }

  std::vector<TableChange> DiffExistingTables() {
    std::vector<TableChange> changes;
    for (const auto& table : model_.tables) {
      const db::LiveTable* live = live_.FindTable(table.name);
      if (live == nullptr) continue;
      TableChange change{&table, live, {}, {}, {}};
      const std::string where = " of " + TableWord(table) + " " + Q(table.label);
      for (const auto& column : live->columns) {
        if (table.FindColumn(column.name) != nullptr) continue;
        if (managed_.deferred.contains({table.name, column.name})) continue;
        change.removed.push_back(column.name);
        plan_.destructive.push_back(
            {table.label, column.name,
             "refusing to drop column " + Q(column.name) + where +
                 ": it is no longer in the config and dropping it would delete its data",
             DestructiveChange::Kind::kDropColumn, table.name});
      }
      for (const auto& column : table.columns) {
        const db::LiveColumn* live_column = live->FindColumn(column.name);
        if (live_column == nullptr) {
          change.added.push_back(&column);
          continue;
        }
        if (auto old_type = OldTypeIfChanged(dialect_, table, column, *live_column, managed_)) {
          change.retyped.push_back(&column);
          plan_.destructive.push_back(
              {table.label, column.name,
               "refusing to change the type of column " + Q(column.name) + where + " from " +
                   *old_type + " to " + column.Signature() +
                   ": the column would be dropped and re-created, deleting its data",
               DestructiveChange::Kind::kRetype, table.name});
        }
      }
      changes.push_back(std::move(change));
    }
    return changes;
  }

  void CreateNewTables() {
    std::set<std::string> available;  // tables a REFERENCES clause may name now
    for (const auto& table : live_.tables) available.insert(table.name);
    for (const auto& table : model_.tables) {
      if (live_.FindTable(table.name) != nullptr) continue;
      available.insert(table.name);
      const auto inline_reference = [&](const ColumnModel& column) {
        if (column.references.empty()) return true;
        if (dialect_.allows_forward_references() || available.contains(column.references)) {
          return true;
        }
        deferred_.push_back(
            {"ALTER TABLE " + Q(table.name) + " ADD CONSTRAINT " +
                 Q(ForeignKeyName(table, column)) + " FOREIGN KEY (" + Q(column.name) +
                 ") REFERENCES " + Q(column.references) + " (\"id\") ON DELETE " +
                 std::string(OnDeleteSql(column.on_delete)),
             "add the reference of column " + Q(column.name) + " of " + TableWord(table) + " " +
                 Q(table.label) + " to " + Q(column.references),
             std::nullopt});
        return false;
      };
      Step(CreateTableSql(dialect_, table, table.name, inline_reference),
           "create " + TableWord(table) + " " + Q(table.label));
    }
  }

  void ApplyColumnChanges(const TableChange& change) {
    const TableModel& table = *change.table;
    const std::string where = " of " + TableWord(table) + " " + Q(table.label);
    const bool destructive = !change.removed.empty() || !change.retyped.empty();
    if (destructive && allow_ && dialect_.drops_columns_by_rebuild()) {
      Rebuild(change);
      return;
    }
    if (destructive && allow_) {
      std::set<std::string> dropped(change.removed.begin(), change.removed.end());
      for (const auto* column : change.retyped) dropped.insert(column->name);
      for (const auto& column : dropped) {
        Step("ALTER TABLE " + Q(table.name) + " DROP COLUMN " + Q(column),
             "drop column " + Q(column) + where);
      }
      // Indexes over a dropped column went with it.
      for (const auto& index : change.live->indexes) {
        for (const auto& column : index.columns) {
          if (dropped.contains(column)) live_indexes_[table.name].erase(index.name);
        }
      }
      for (const auto* column : change.retyped) AddColumn(table, *column, "re-create");
    }
    for (const auto* column : change.added) AddColumn(table, *column, "add");
  }

  void AddColumn(const TableModel& table, const ColumnModel& column, std::string_view verb) {
    // Referenced tables exist by now (created above), so the reference can be inline.
    Step("ALTER TABLE " + Q(table.name) + " ADD COLUMN " + ColumnDefinition(dialect_, column, true),
         std::string(verb) + " column " + Q(column.name) + " of " + TableWord(table) + " " +
             Q(table.label));
  }

  // SQLite cannot drop a column that an index, a constraint or a foreign key uses: copy the
  // kept columns into a new table of the desired shape and swap it in (foreign keys are off
  // during the migration, and checked before it commits).
  void Rebuild(const TableChange& change) {
    const TableModel& table = *change.table;
    std::vector<std::string> kept;
    for (const auto& column : table.columns) {
      const bool retyped =
          std::find(change.retyped.begin(), change.retyped.end(), &column) != change.retyped.end();
      if (!retyped && change.live->FindColumn(column.name) != nullptr) kept.push_back(column.name);
    }
    // Removed columns kept until prune (D51) stay, with the type they have, values and all.
    std::vector<std::string> deferred_columns;
    for (const auto& live_column : change.live->columns) {
      if (table.FindColumn(live_column.name) != nullptr ||
          !managed_.deferred.contains({table.name, live_column.name})) {
        continue;
      }
      deferred_columns.push_back(Q(live_column.name) + " " + live_column.type);
      kept.push_back(live_column.name);
    }
    const std::string what = TableWord(table) + " " + Q(table.label);
    Step(CreateTableSql(
             dialect_, table, kRebuildTable, [](const ColumnModel&) { return true; },
             deferred_columns),
         "rebuild " + what + ": create its new shape");
    Step("INSERT INTO " + Q(kRebuildTable) + " (" + ColumnList(kept) + ") SELECT " +
             ColumnList(kept) + " FROM " + Q(table.name),
         "rebuild " + what + ": copy the kept columns");
    if (table.kind == TableKind::kTable) {
      for (std::string& sql : dialect_.CopyIdSequence(table.name, kRebuildTable)) {
        Step(std::move(sql), "rebuild " + what + ": keep the id sequence");
      }
    }
    Step("DROP TABLE " + Q(table.name), "rebuild " + what + ": drop the old table");
    Step("ALTER TABLE " + Q(kRebuildTable) + " RENAME TO " + Q(table.name),
         "rebuild " + what + ": rename the new table");
    live_indexes_[table.name].clear();  // indexes went with the old table
  }

  void CreateMissingIndexes() {
    for (const auto& table : model_.tables) {
      const auto& existing = live_indexes_[table.name];
      for (const auto& index : table.indexes) {
        if (existing.contains(index.name)) continue;
        std::optional<std::string> unique_over;
        if (index.unique) {
          unique_over = (index.columns.size() == 1 ? "field " : "fields ") + Q(index.fields_label) +
                        " of " + TableWord(table) + " " + Q(table.label);
        }
        Step(std::string(index.unique ? "CREATE UNIQUE INDEX " : "CREATE INDEX ") + Q(index.name) +
                 " ON " + Q(table.name) + " (" + ColumnList(index.columns) + ")",
             std::string(index.unique ? "create unique index " : "create index ") + Q(index.name) +
                 " of " + TableWord(table) + " " + Q(table.label),
             std::move(unique_over));
      }
    }
  }

  const db::Dialect& dialect_;
  const SchemaModel& model_;
  const db::LiveSchema& live_;
  const ManagedState& managed_;
  const bool allow_;
  MigrationPlan plan_;
  std::vector<MigrationStep> deferred_;                        // FKs added after all CREATEs
  std::map<std::string, std::set<std::string>> live_indexes_;  // wanted cx_ indexes that exist
};

}  // namespace

MigrationPlan PlanMigration(const db::Dialect& dialect, const SchemaModel& model,
                            const db::LiveSchema& live, const ManagedState& managed,
                            bool allow_destructive) {
  return Planner(dialect, model, live, managed, allow_destructive).Plan();
}

Error DestructiveChangesError(const std::vector<DestructiveChange>& changes) {
  Error error = Error::Validation("");
  error.reason = "DESTRUCTIVE_CHANGE";
  for (const auto& change : changes) {
    if (!error.message.empty()) error.message += "; ";
    error.message += change.message;
    error.errors.push_back(
        {change.column.empty() ? change.table : change.table + "." + change.column,
         change.message});
  }
  error.message += "; set CAIRN_ALLOW_DESTRUCTIVE=true to allow";
  return error;
}

}  // namespace cairn::schema
