#include "records/query/search.hpp"

#include "records/limits.hpp"
#include "schema/physical_model.hpp"

namespace cairn::records::query {
namespace {

bool IsSearchable(const config::Field& field) {
  switch (field.type) {
    case config::FieldType::kSingleLineText:
    case config::FieldType::kLongText:
    case config::FieldType::kEmail:
    case config::FieldType::kUrl:
    case config::FieldType::kPhoneNumber:
    case config::FieldType::kSingleSelect:
    case config::FieldType::kMultiSelect:
      return true;
    default:
      return false;
  }
}

}  // namespace

Result<Condition> CompileSearch(std::string_view q, const access::TableAccess& access,
                                const db::Dialect& dialect) {
  if (q.size() > kMaxSearchLength) {
    return Error::Validation(
        "Invalid query parameter",
        {{"q", "at most " + std::to_string(kMaxSearchLength) + " characters"}});
  }
  Condition condition;
  const std::string pattern = "%" + db::Dialect::EscapeLike(q) + "%";
  for (const config::Field* field : access.ReadableFields()) {
    if (!IsSearchable(*field)) continue;
    condition.sql += condition.sql.empty() ? "(" : " OR ";
    condition.sql += db::Identifier(*schema::ColumnNameOf(*field)).quoted();
    if (dialect.is_postgres() && field->type == config::FieldType::kMultiSelect) {
      condition.sql += "::text";  // JSONB: match within the serialized options
    }
    condition.sql +=
        " " + std::string(dialect.CaseInsensitiveLike()) + " ?" + std::string(dialect.LikeEscape());
    condition.params.emplace_back(pattern);
  }
  // No searchable field: nothing can match.
  condition.sql = condition.sql.empty() ? "1 = 0" : condition.sql + ")";
  return condition;
}

}  // namespace cairn::records::query
