#include "records/query/search.hpp"

#include "common/text.hpp"
#include "records/limits.hpp"
#include "records/search_index.hpp"
#include "schema/physical_model.hpp"

namespace cairn::records::query {
namespace {

// FTS5's trigram tokenizer matches nothing shorter.
constexpr std::size_t kTrigramLength = 3;

// FTS5 query: the phrase `q` within the given columns (`{a b} : "q"`, quotes doubled).
std::string MatchQuery(const std::vector<std::string>& columns, std::string_view q) {
  std::string out = "{";
  for (const std::string& column : columns) {
    if (out.size() > 1) out += ' ';
    out += column;
  }
  out += "} : \"";
  for (const char c : q) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  out += '"';
  return out;
}

}  // namespace

Result<Condition> CompileSearch(std::string_view q, const config::Table& table,
                                const access::TableAccess& access, const db::Dialect& dialect) {
  const auto invalid = [](std::string message) {
    return Error::Validation("Invalid query parameter", {{"q", std::move(message)}});
  };
  if (!text::IsValidUtf8(q)) return invalid("must be valid UTF-8 text");
  if (text::ContainsNul(q)) return invalid("must not contain NUL characters");
  if (text::CodePoints(q) > kMaxSearchLength) {
    return invalid("at most " + std::to_string(kMaxSearchLength) + " characters");
  }
  std::vector<const config::Field*> fields;
  for (const config::Field* field : access.ReadableFields()) {
    if (IsSearchable(*field)) fields.push_back(field);
  }
  Condition condition;
  if (fields.empty()) return Condition{"1 = 0", {}};  // nothing can match
  // SQLite: the trigram index answers substrings of 3+ characters; shorter ones scan.
  const auto index = SearchIndexSql(table);
  if (!dialect.is_postgres() && index && text::CodePoints(q) >= kTrigramLength) {
    std::vector<std::string> columns;
    for (const config::Field* field : fields) columns.push_back(*schema::ColumnNameOf(*field));
    condition.sql = "\"id\" IN (SELECT rowid FROM " + *index + " WHERE " + *index + " MATCH ?)";
    condition.params.emplace_back(MatchQuery(columns, q));
    return condition;
  }
  const std::string pattern = "%" + db::Dialect::EscapeLike(q) + "%";
  for (const config::Field* field : fields) {
    condition.sql += condition.sql.empty() ? "(" : " OR ";
    condition.sql += db::Identifier(*schema::ColumnNameOf(*field)).quoted();
    if (dialect.is_postgres() && field->type == config::FieldType::kMultiSelect) {
      condition.sql += "::text";  // JSONB: match within the serialized options
    }
    condition.sql +=
        " " + std::string(dialect.CaseInsensitiveLike()) + " ?" + std::string(dialect.LikeEscape());
    condition.params.emplace_back(pattern);
  }
  condition.sql += ")";
  return condition;
}

}  // namespace cairn::records::query
