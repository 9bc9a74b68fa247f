// RecordService::List: one page of records under the list parameters (D37–D38), its total,
// and the aggregations or groups over all matching rows, all in one read transaction.
#include <span>
#include <string>
#include <vector>

#include "db/dialect.hpp"
#include "db/live_row_counts.hpp"
#include "records/limits.hpp"
#include "records/query/aggregate.hpp"
#include "records/query/filter.hpp"
#include "records/query/search.hpp"
#include "records/query/sort.hpp"
#include "records/record_service.hpp"
#include "records/record_views.hpp"
#include "records/record_writes.hpp"
#include "records/selected_fields.hpp"

namespace cairn::records {

using access::Action;
using detail::TableNotFound;

namespace detail {

// The readable fields `fields=` names, in config order (D21: others are silently left out).
std::vector<const config::Field*> SelectedFields(const access::TableAccess& access,
                                                 std::string_view names) {
  std::vector<const config::Field*> selected;
  for (const config::Field* field : access.ReadableFields()) {
    std::string_view rest = names;
    while (true) {
      const std::size_t comma = rest.find(',');
      if (rest.substr(0, comma) == field->name) {
        selected.push_back(field);
        break;
      }
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
  }
  return selected;
}

}  // namespace detail

namespace {

using detail::SelectedFields;

// Runs one statement of a list. Filters and q make the best plan depend on their values (a rare
// pattern or a common one), so a narrowed list is planned per request on PostgreSQL.
Result<std::int64_t> RunListStatement(db::Connection& connection, bool narrowed,
                                      std::string_view sql, std::span<const db::Value> params,
                                      const db::RowCallback& on_row) {
  return narrowed ? connection.ExecutePlannedPerValue(sql, params, on_row)
                  : connection.Execute(sql, params, on_row);
}

// D38 over all rows of `where`: `,"aggregations":{…}`, or `,"groups":[{value,count,
// aggregations}]` ordered by value (NULL last). More than kMaxGroups groups is a 400.
Result<std::string> Summarize(db::Connection& connection, const RecordReader& reader,
                              const query::AggregatePlan& plan, const std::string& where,
                              const std::vector<db::Value>& params, bool narrowed) {
  std::string out;
  if (!plan.group_by) {
    out = R"(,"aggregations":)";
    CAIRN_TRY(RunListStatement(
        connection, narrowed, "SELECT " + plan.SelectSql() + " FROM " + reader.table_sql() + where,
        params, [&](const db::Row& row) { plan.AppendAggregations(row, 0, out); }));
    return out;
  }
  const std::string& group = plan.group_by->column_sql;
  std::vector<db::Value> group_params = params;
  group_params.emplace_back(static_cast<std::int64_t>(kMaxGroups + 1));
  std::size_t groups = 0;
  std::string null_group;  // NULL sorts first on SQLite, last on PostgreSQL: always last here
  std::string listed;
  // A plain ORDER BY lets an index on the group column serve both the grouping and the order.
  CAIRN_TRY(RunListStatement(
      connection, narrowed,
      "SELECT " + group + ", " + plan.SelectSql() + " FROM " + reader.table_sql() + where +
          " GROUP BY " + group + " ORDER BY " + group + " LIMIT ?",
      group_params, [&](const db::Row& row) {
        if (++groups > kMaxGroups) return;
        std::string& into = row.IsNull(0) ? null_group : listed;
        if (!into.empty()) into += ',';
        into += R"({"value":)";
        plan.AppendGroupValue(row, into);
        into += R"(,"count":)" + std::to_string(row.GetInt64(1)) + R"(,"aggregations":)";
        plan.AppendAggregations(row, 1, into);
        into += '}';
      }));
  if (groups > kMaxGroups) {
    return Error::Validation(
        "Invalid query parameter",
        {{"groupBy", "more than " + std::to_string(kMaxGroups) + " groups; filter first"}});
  }
  out = R"(,"groups":[)" + listed + (listed.empty() || null_group.empty() ? "" : ",") + null_group +
        "]";
  return out;
}

void AppendCondition(std::string& where, std::vector<db::Value>& params,
                     query::Condition condition) {
  if (condition.sql.empty()) return;
  where += where.empty() ? " WHERE " : " AND ";
  where += condition.sql;
  for (db::Value& value : condition.params) params.push_back(std::move(value));
}

}  // namespace

Result<std::string> RecordService::List(const config::Table& table, const Actor& actor,
                                        const ListOptions& options) {
  const access::TableAccess& access = access_.For(table, actor.role);
  if (!access.Can(Action::kRead)) return TableNotFound();
  const RecordReader& reader = ReaderOf(table);
  const db::Dialect& dialect = database_.dialect();
  std::string where;
  std::vector<db::Value> params;
  // Live rows are nearly all rows: scanning in the query's own order beats walking the
  // deleted_at index and looking every row up. The trash is small: its index pays.
  if (options.deleted == DeletedRows::kExclude) {
    AppendCondition(where, params, {dialect.NotIndexed("\"deleted_at\"") + " IS NULL", {}});
  } else if (options.deleted == DeletedRows::kOnly) {
    AppendCondition(where, params, {"\"deleted_at\" IS NOT NULL", {}});
  }
  const bool only_live_rows = options.deleted == DeletedRows::kExclude;
  bool narrowed = false;  // a view, filter or q condition follows
  const config::View* view = nullptr;
  if (options.view) {
    view = FindView(table, *options.view);
    if (view == nullptr && options.view_in_path) return Error::NotFound("View not found");
    if (view == nullptr) {
      return Error::Validation("Invalid query parameter", {{"view", "unknown view"}});
    }
  }
  // A view is the app author's, not the caller's: its fields are no probe (D21), so it compiles
  // with every field in sight.
  const access::TableAccess& author = access_.For(table, "admin");
  if (view != nullptr && !view->filters.is_null()) {
    CAIRN_ASSIGN_OR_RETURN(query::Condition filter,
                           query::CompileFilter(view->filters, table, author, dialect));
    AppendCondition(where, params, std::move(filter));
    narrowed = true;
  }
  if (options.filter) {
    CAIRN_ASSIGN_OR_RETURN(query::Condition filter,
                           query::CompileFilter(*options.filter, table, access, dialect));
    AppendCondition(where, params, std::move(filter));
    narrowed = true;
  }
  if (options.q && !options.q->empty()) {
    CAIRN_ASSIGN_OR_RETURN(query::Condition search,
                           query::CompileSearch(*options.q, table, access, dialect));
    AppendCondition(where, params, std::move(search));
    narrowed = true;
  }
  std::string order_by;
  if (!options.sort && view != nullptr && !view->sorts.empty()) {
    CAIRN_ASSIGN_OR_RETURN(order_by,
                           query::CompileSort(ViewSortText(*view), std::nullopt, table, author));
  } else {
    CAIRN_ASSIGN_OR_RETURN(order_by,
                           query::CompileSort(options.sort, options.order, table, access));
  }
  CAIRN_ASSIGN_OR_RETURN(const query::AggregatePlan plan,
                         query::PlanAggregates(options.aggregate, options.group_by, table, access));
  const std::vector<const config::Field*> selected =
      options.fields ? SelectedFields(access, *options.fields) : access.ReadableFields();

  // All live rows: every row but the trash, counted by the schema's means.
  const bool unfiltered = only_live_rows && !narrowed;
  db::LiveRowCountQuery count;
  if (unfiltered) {
    count = database_.dialect().live_row_counts().Count(table.sql_name);
  } else {
    count.sql = "SELECT COUNT(*) FROM " + reader.table_sql() + where;
  }
  const std::span<const db::Value> count_params = unfiltered ? count.params : params;
  const int offset = options.page ? (*options.page - 1) * options.limit : options.offset;
  std::optional<DisplayContext> display;
  if (options.format.display) {
    CAIRN_ASSIGN_OR_RETURN(display, DisplayContext::Make(options.format.timezone, files_));
  }
  std::int64_t total = 0;
  std::string records = "[";
  std::string summary;  // `,"aggregations":{…}` or `,"groups":[…]`
  CAIRN_TRY(database_.Transaction(db::Access::kRead, [&](db::Connection& connection) -> Status {
    records.resize(1);
    CAIRN_TRY(RunListStatement(connection, narrowed, count.sql, count_params,
                               [&](const db::Row& row) { total = row.GetInt64(0); }));
    std::vector<db::Value> page_params = params;
    page_params.emplace_back(static_cast<std::int64_t>(options.limit));
    page_params.emplace_back(static_cast<std::int64_t>(offset));
    CAIRN_TRY(RunListStatement(connection, narrowed,
                               "SELECT " + reader.columns_sql() + " FROM " + reader.table_sql() +
                                   where + " ORDER BY " + order_by + " LIMIT ? OFFSET ?",
                               page_params, [&](const db::Row& row) {
                                 if (records.size() > 1) records.push_back(',');
                                 reader.AppendRecord(row, &selected, records,
                                                     display ? &*display : nullptr);
                               }));
    if (!plan.empty()) {
      summary.clear();
      CAIRN_ASSIGN_OR_RETURN(summary, Summarize(connection, reader, plan, where, params, narrowed));
    }
    return {};
  }));
  const std::int64_t pages = options.limit > 0 ? (total + options.limit - 1) / options.limit : 0;
  std::string out = R"({"records":)" + records + R"(],"pagination":{"total":)" +
                    std::to_string(total) + R"(,"limit":)" + std::to_string(options.limit) +
                    R"(,"offset":)" + std::to_string(offset) + R"(,"page":)" +
                    std::to_string(options.limit > 0 ? offset / options.limit + 1 : 1) +
                    R"(,"totalPages":)" + std::to_string(pages) + "}" + summary + "}";
  return out;
}

}  // namespace cairn::records
