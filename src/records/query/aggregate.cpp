#include "records/query/aggregate.hpp"

#include <array>

#include "common/json.hpp"
#include "common/time.hpp"
#include "db/decimal.hpp"
#include "db/dialect.hpp"
#include "records/field_codec.hpp"
#include "records/limits.hpp"

namespace cairn::records::query {
namespace {

constexpr std::array<std::string_view, 5> kFunctionNames{"count", "sum", "avg", "min", "max"};
// Averages scale a 64-bit sum up by up to 10^2 before dividing.
__extension__ using Int128 = __int128;

// Extra places of an average beyond the field's own.
constexpr int kAverageExtraPlaces = 2;

std::optional<AggregateFunction> ParseFunction(std::string_view name) {
  for (std::size_t i = 0; i < kFunctionNames.size(); ++i) {
    if (kFunctionNames[i] == name) return static_cast<AggregateFunction>(i);
  }
  return std::nullopt;
}

Error Invalid(std::string_view parameter, std::string message) {
  return Error::Validation("Invalid query parameter",
                           {{std::string(parameter), std::move(message)}});
}

bool Accepts(AggregateFunction function, const Operand& operand) {
  switch (function) {
    case AggregateFunction::kCount:
      return true;
    case AggregateFunction::kSum:
    case AggregateFunction::kAvg:
      return operand.kind == OperandKind::kNumber && operand.field != nullptr;
    case AggregateFunction::kMin:
    case AggregateFunction::kMax:
      return operand.kind == OperandKind::kNumber || operand.kind == OperandKind::kTemporal ||
             operand.kind == OperandKind::kText || operand.kind == OperandKind::kOption;
  }
  return false;
}

// Columns each aggregate reads: sum and avg read SUM and COUNT, the others one column.
int Width(const Aggregate& aggregate) {
  return aggregate.function == AggregateFunction::kSum ||
                 aggregate.function == AggregateFunction::kAvg
             ? 2
             : 1;
}

int ScaleOf(const Operand& operand) {
  return operand.field != nullptr ? operand.field->scale : 0;
}

// The exact average of `sum` over `count` values, rounded half away from zero.
void AppendAverage(std::string& out, db::Decimal sum, std::int64_t count) {
  const int scale = std::min(sum.scale + kAverageExtraPlaces, db::kMaxDecimalScale);
  Int128 scaled = sum.units;
  for (int i = sum.scale; i < scale; ++i) scaled *= 10;
  const bool negative = scaled < 0;
  Int128 magnitude = negative ? -scaled : scaled;
  magnitude = (magnitude + count / 2) / count;
  db::AppendDecimal(out, {static_cast<std::int64_t>(negative ? -magnitude : magnitude), scale});
}

// Appends `"name":{` members for one function across the plan, then `}`; nothing when absent.
void AppendFunction(const std::vector<Aggregate>& aggregates, AggregateFunction function,
                    std::string_view key, const db::Row& row, int first, std::string& out) {
  bool any = false;
  int column = first;
  for (const Aggregate& aggregate : aggregates) {
    const int at = column;
    column += Width(aggregate);
    if (aggregate.function != function || !aggregate.operand) continue;
    out += any ? "," : ",\"" + std::string(key) + "\":{";
    any = true;
    json::AppendString(out, aggregate.operand->name);
    out += ':';
    const Operand& operand = *aggregate.operand;
    switch (function) {
      case AggregateFunction::kCount:
        out += std::to_string(row.GetInt64(at));
        break;
      case AggregateFunction::kSum:
        if (row.IsNull(at)) {
          out += '0';
        } else {
          db::AppendDecimal(out, row.GetDecimal(at, ScaleOf(operand)));
        }
        break;
      case AggregateFunction::kAvg:
        if (row.IsNull(at) || row.GetInt64(at + 1) == 0) {
          out += "null";
        } else {
          AppendAverage(out, row.GetDecimal(at, ScaleOf(operand)), row.GetInt64(at + 1));
        }
        break;
      case AggregateFunction::kMin:
      case AggregateFunction::kMax:
        if (operand.field != nullptr) {
          CodecOf(*operand.field).AppendJson(*operand.field, row, at, out);
        } else if (row.IsNull(at)) {
          out += "null";
        } else {
          json::AppendString(out, row.GetText(at));
        }
        break;
    }
  }
  if (any) out += '}';
}

}  // namespace

std::string AggregatePlan::SelectSql() const {
  std::string sql = "COUNT(*)";
  for (const Aggregate& aggregate : aggregates) {
    if (!aggregate.operand) continue;
    const std::string& column = aggregate.operand->column_sql;
    switch (aggregate.function) {
      case AggregateFunction::kCount:
        sql += ", COUNT(" + column + ")";
        break;
      case AggregateFunction::kSum:
      case AggregateFunction::kAvg:
        sql += ", SUM(" + column + "), COUNT(" + column + ")";
        break;
      case AggregateFunction::kMin:
        sql += ", MIN(" + column + ")";
        break;
      case AggregateFunction::kMax:
        sql += ", MAX(" + column + ")";
        break;
    }
  }
  return sql;
}

void AggregatePlan::AppendAggregations(const db::Row& row, int first, std::string& out) const {
  out += "{\"count\":" + std::to_string(row.GetInt64(first));
  // Only field aggregates have columns after COUNT(*).
  std::vector<Aggregate> with_fields;
  for (const Aggregate& aggregate : aggregates) {
    if (aggregate.operand) with_fields.push_back(aggregate);
  }
  AppendFunction(with_fields, AggregateFunction::kSum, "sum", row, first + 1, out);
  AppendFunction(with_fields, AggregateFunction::kAvg, "avg", row, first + 1, out);
  AppendFunction(with_fields, AggregateFunction::kMin, "min", row, first + 1, out);
  AppendFunction(with_fields, AggregateFunction::kMax, "max", row, first + 1, out);
  AppendFunction(with_fields, AggregateFunction::kCount, "counts", row, first + 1, out);
  out += '}';
}

void AggregatePlan::AppendGroupValue(const db::Row& row, std::string& out) const {
  const Operand& operand = *group_by;
  if (operand.field != nullptr) {
    CodecOf(*operand.field).AppendJson(*operand.field, row, 0, out);
  } else if (row.IsNull(0)) {
    out += "null";
  } else if (operand.kind == OperandKind::kTemporal) {
    out += '"';
    time::AppendIso(out, row.GetTimestampMillis(0));
    out += '"';
  } else if (operand.kind == OperandKind::kNumber) {
    out += '"' + std::to_string(row.GetInt64(0)) + '"';  // ids are strings on the wire (D30)
  } else {
    json::AppendString(out, row.GetText(0));
  }
}

Result<AggregatePlan> PlanAggregates(std::optional<std::string_view> aggregate,
                                     std::optional<std::string_view> group_by,
                                     const config::Table& table,
                                     const access::TableAccess& access) {
  AggregatePlan plan;
  if (group_by && !group_by->empty()) {
    CAIRN_ASSIGN_OR_RETURN(Operand operand, ResolveOperand(table, access, *group_by, "groupBy"));
    if (operand.kind == OperandKind::kOpaque || operand.kind == OperandKind::kOptions) {
      return Invalid("groupBy", "\"" + operand.name + "\" cannot be grouped by");
    }
    plan.group_by = std::move(operand);
  }
  if (!aggregate || aggregate->empty()) return plan;
  std::string_view rest = *aggregate;
  while (true) {
    const std::size_t comma = rest.find(',');
    const std::string_view entry = rest.substr(0, comma);
    const std::size_t colon = entry.find(':');
    const std::string_view left = entry.substr(0, colon);
    const std::string_view right =
        colon == std::string_view::npos ? std::string_view() : entry.substr(colon + 1);
    // `sum:amount` or `amount:sum`; `count` alone counts rows.
    auto function = ParseFunction(left);
    std::string_view field = right;
    if (!function && colon != std::string_view::npos) {
      function = ParseFunction(right);
      field = left;
    }
    if (!function) {
      return Invalid("aggregate", "\"" + std::string(entry) +
                                      "\" is not function:field (functions: sum, count, avg, "
                                      "min, max)");
    }
    Aggregate item{*function, std::nullopt};
    if (!field.empty()) {
      CAIRN_ASSIGN_OR_RETURN(Operand operand, ResolveOperand(table, access, field, "aggregate"));
      if (!Accepts(*function, operand)) {
        return Invalid("aggregate", std::string(kFunctionNames[static_cast<int>(*function)]) +
                                        " does not apply to \"" + operand.name + "\"");
      }
      item.operand = std::move(operand);
    } else if (*function != AggregateFunction::kCount) {
      return Invalid("aggregate", std::string(entry) + " needs a field");
    }
    if (plan.aggregates.size() >= kMaxAggregates) {
      return Invalid("aggregate", "at most " + std::to_string(kMaxAggregates) + " aggregates");
    }
    plan.aggregates.push_back(std::move(item));
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return plan;
}

}  // namespace cairn::records::query
