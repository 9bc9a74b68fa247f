#include "db/search_index.hpp"

namespace cairn::db {

void AppendScanMatch(const Dialect& dialect, std::span<const SearchColumn> searched,
                     std::string_view q, std::string& sql, std::vector<Value>& params) {
  const std::string pattern = "%" + Dialect::EscapeLike(q) + "%";
  sql += '(';
  for (std::size_t i = 0; i < searched.size(); ++i) {
    if (i > 0) sql += " OR ";
    const std::string column = Identifier(searched[i].name).quoted();
    sql += searched[i].kind == ColumnKind::kJson ? dialect.JsonAsText(column) : column;
    sql += ' ';
    sql += dialect.CaseInsensitiveLike();
    sql += " ?";
    sql += dialect.LikeEscape();
    params.emplace_back(pattern);
  }
  sql += ')';
}

}  // namespace cairn::db
