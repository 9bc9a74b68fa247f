// The `groupBy` and `aggregate` list parameters (D38), over all matching rows, in SQL.
// `aggregate=sum:amount,avg:amount,min:due,count,count:email` (also `amount:sum`): sum and avg
// take number fields, min and max numbers, dates and text, `count` counts rows and `count:f` the
// rows where f is not null. Sums are exact (D9: decimals are summed as scaled integers or
// NUMERIC); averages are computed from the exact sum with two more places than the field.
// Fields the caller may not read are unknown (D21).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "access/table_access.hpp"
#include "common/result.hpp"
#include "config/model.hpp"
#include "db/row.hpp"
#include "records/query/operand.hpp"

namespace cairn::records::query {

enum class AggregateFunction { kCount, kSum, kAvg, kMin, kMax };

struct Aggregate {
  AggregateFunction function = AggregateFunction::kCount;
  std::optional<Operand> operand;  // none: count of rows
};

struct AggregatePlan {
  std::vector<Aggregate> aggregates;
  std::optional<Operand> group_by;

  bool empty() const { return aggregates.empty() && !group_by; }
  // The SELECT list after the group column (if any): `COUNT(*), SUM("a"), COUNT("a"), …`.
  std::string SelectSql() const;
  // Appends `{"count":N,"sum":{…},…}` from the row's columns starting at `first`.
  void AppendAggregations(const db::Row& row, int first, std::string& out) const;
  // Appends the group column's value (column 0) as a record shows it.
  void AppendGroupValue(const db::Row& row, std::string& out) const;
};

// Null/empty parameters give an empty plan. Errors are 400s naming `aggregate` or `groupBy`.
Result<AggregatePlan> PlanAggregates(std::optional<std::string_view> aggregate,
                                     std::optional<std::string_view> group_by,
                                     const config::Table& table, const access::TableAccess& access);

}  // namespace cairn::records::query
