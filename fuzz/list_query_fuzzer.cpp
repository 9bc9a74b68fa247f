// Fuzz target: the list query parsers (records/query: `filter`, `sort`, `order`, `q`) against a
// table with one field of each operand kind and a hidden field, on both SQL dialects. The first
// line of the input is `sort`, the second `order`, the third `q`, the rest `filter`. Every input
// must end in a compiled condition or a 400; anything else (another error, a placeholder count
// that does not match the bound values) aborts the run.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "access/table_access.hpp"
#include "config/model.hpp"
#include "records/query/filter.hpp"
#include "records/query/search.hpp"
#include "records/query/sort.hpp"

namespace {

using cairn::config::FieldType;

cairn::config::Field MakeField(std::int64_t id, std::string name, FieldType type) {
  cairn::config::Field field;
  field.id = id;
  field.name = std::move(name);
  field.type = type;
  return field;
}

cairn::config::Table MakeTable() {
  cairn::config::Table table;
  table.id = 1;
  table.name = "items";
  table.sql_name = "items";
  table.fields.push_back(MakeField(1, "title", FieldType::kSingleLineText));
  table.fields.push_back(MakeField(2, "points", FieldType::kInteger));
  auto cost = MakeField(3, "cost", FieldType::kCurrency);
  cost.scale = 2;
  cost.currency = "USD";
  table.fields.push_back(cost);
  table.fields.push_back(MakeField(4, "due", FieldType::kDate));
  table.fields.push_back(MakeField(5, "at", FieldType::kDatetime));
  table.fields.push_back(MakeField(6, "done", FieldType::kCheckbox));
  auto stage = MakeField(7, "stage", FieldType::kSingleSelect);
  stage.options = {"todo", "done"};
  table.fields.push_back(stage);
  auto labels = MakeField(8, "labels", FieldType::kMultiSelect);
  labels.options = {"red", "blue"};
  table.fields.push_back(labels);
  table.fields.push_back(MakeField(9, "owner", FieldType::kRelationship));
  table.fields.push_back(MakeField(10, "extra", FieldType::kJson));
  table.fields.push_back(MakeField(11, "secret", FieldType::kSingleLineText));
  cairn::config::FieldPermission hidden;
  hidden.field = "secret";
  hidden.read =
      cairn::config::PermissionRule{cairn::config::PermissionRule::Kind::kRoles, {"admin"}};
  table.permissions.fields.push_back(hidden);
  return table;
}

std::string_view NextLine(std::string_view& rest) {
  const std::size_t end = std::min(rest.find('\n'), rest.size());
  const std::string_view line = rest.substr(0, end);
  rest.remove_prefix(std::min(end + 1, rest.size()));
  return line;
}

// A result must be a value or a 400; a condition's placeholders must match its values.
template <typename T>
void Check(const cairn::Result<T>& result) {
  if (!result.ok() && result.error().code != cairn::ErrorCode::kValidation) std::abort();
}

void CheckCondition(const cairn::Result<cairn::records::query::Condition>& result) {
  Check(result);
  if (!result.ok()) return;
  const auto& sql = result.value().sql;
  if (static_cast<std::size_t>(std::count(sql.begin(), sql.end(), '?')) !=
      result.value().params.size()) {
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const cairn::config::Table table = MakeTable();
  static const cairn::access::TableAccess member(table, "member");
  std::string_view rest(reinterpret_cast<const char*>(data), size);
  const std::string_view sort = NextLine(rest);
  const std::string_view order = NextLine(rest);
  const std::string_view q = NextLine(rest);
  for (const auto* dialect : {&cairn::db::Dialect::Sqlite(), &cairn::db::Dialect::Postgres()}) {
    CheckCondition(cairn::records::query::CompileFilter(rest, table, member, *dialect));
    CheckCondition(cairn::records::query::CompileSearch(q, table, member, *dialect));
  }
  Check(cairn::records::query::CompileSort(sort.empty() ? std::nullopt : std::optional(sort),
                                           order.empty() ? std::nullopt : std::optional(order),
                                           table, member));
  return 0;
}
