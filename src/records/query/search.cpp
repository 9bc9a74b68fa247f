#include "records/query/search.hpp"

#include "common/text.hpp"
#include "records/field_codec.hpp"
#include "records/limits.hpp"
#include "records/search_index.hpp"

namespace cairn::records::query {

Result<Condition> CompileSearch(std::string_view q, const config::Table& table,
                                const access::TableAccess& access, const db::Dialect& dialect) {
  const auto invalid = [](std::string message) {
    return Error::Validation("Invalid query parameter", {{"q", std::move(message)}});
  };
  if (!text::IsValidUtf8(q)) return invalid("must be valid UTF-8 text");
  if (text::CodePoints(q) > kMaxSearchLength) {
    return invalid("at most " + std::to_string(kMaxSearchLength) + " characters");
  }
  std::vector<db::SearchColumn> searched;
  for (const config::Field* field : access.ReadableFields()) {
    if (CodecOf(*field).Searchable()) searched.push_back(SearchColumnOf(*field));
  }
  if (searched.empty()) return Condition{"1 = 0", {}};  // nothing can match
  Condition condition;
  dialect.search_index().AppendMatch(SearchTableOf(table), searched, q, condition.sql,
                                     condition.params);
  return condition;
}

}  // namespace cairn::records::query
