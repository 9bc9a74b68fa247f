#include "records/query/sort.hpp"

#include "records/limits.hpp"
#include "records/query/operand.hpp"

namespace cairn::records::query {
namespace {

Error Invalid(std::string_view parameter, std::string message) {
  return Error::Validation("Invalid query parameter",
                           {{std::string(parameter), std::move(message)}});
}

std::optional<bool> Descending(std::string_view direction) {
  if (direction == "asc") return false;
  if (direction == "desc") return true;
  return std::nullopt;
}

}  // namespace

Result<std::string> CompileSort(std::optional<std::string_view> sort,
                                std::optional<std::string_view> order, const config::Table& table,
                                const access::TableAccess& access) {
  std::optional<bool> order_descending;
  if (order) {
    order_descending = Descending(*order);
    if (!order_descending) return Invalid("order", "must be asc or desc");
  }
  if (!sort || sort->empty()) {
    if (order) return std::string(*order_descending ? "\"id\" DESC" : "\"id\" ASC");
    return std::string("\"id\" ASC");
  }
  std::string out;
  bool ends_with_id = false;
  std::size_t keys = 0;
  std::string_view rest = *sort;
  while (true) {
    const std::size_t comma = rest.find(',');
    const std::string_view segment = rest.substr(0, comma);
    if (++keys > kMaxSortKeys) {
      return Invalid("sort", "at most " + std::to_string(kMaxSortKeys) + " keys");
    }
    const std::size_t colon = segment.find(':');
    const std::string_view name = segment.substr(0, colon);
    bool descending = false;
    if (colon != std::string_view::npos) {
      const auto parsed = Descending(segment.substr(colon + 1));
      if (!parsed) {
        return Invalid("sort", "direction of \"" + std::string(name) + "\" must be asc or desc");
      }
      descending = *parsed;
      if (order) return Invalid("order", "goes with a single bare sort field");
    } else if (order) {
      if (comma != std::string_view::npos || keys > 1) {
        return Invalid("order", "goes with a single bare sort field");
      }
      descending = *order_descending;
    }
    if (name.empty()) return Invalid("sort", "empty sort key");
    CAIRN_ASSIGN_OR_RETURN(const Operand operand, ResolveOperand(table, access, name, "sort"));
    if (operand.kind == OperandKind::kOpaque || operand.kind == OperandKind::kOptions) {
      return Invalid("sort", "\"" + std::string(name) + "\" cannot be sorted on");
    }
    if (!out.empty()) out += ", ";
    out += operand.column_sql;
    // NULL sorts as the largest value on both databases (SQLite's default is the opposite).
    out += descending ? " DESC NULLS FIRST" : " ASC NULLS LAST";
    ends_with_id = name == "id";
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  if (!ends_with_id) out += ", \"id\" ASC";  // ties keep a stable order across pages
  return out;
}

}  // namespace cairn::records::query
