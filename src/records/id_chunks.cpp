#include "records/id_chunks.hpp"

#include <algorithm>
#include <bit>
#include <string>

namespace cairn::records {

Status ForIdChunks(db::Connection& connection, std::string_view sql_head, std::string_view sql_tail,
                   const std::vector<db::Value>& head_params, std::span<const std::int64_t> ids,
                   const db::RowCallback& on_row, std::size_t chunk) {
  std::string sql;
  std::vector<db::Value> params;
  for (std::size_t first = 0; first < ids.size(); first += chunk) {
    const auto part = ids.subspan(first, std::min(chunk, ids.size() - first));
    const std::size_t padded = std::bit_ceil(part.size());
    sql.assign(sql_head);
    sql += "\"id\" IN (?";
    for (std::size_t i = 1; i < padded; ++i) sql += ", ?";
    sql += ")";
    sql += sql_tail;
    params = head_params;
    params.reserve(head_params.size() + padded);
    for (std::size_t i = 0; i < padded; ++i)
      params.emplace_back(part[std::min(i, part.size() - 1)]);
    CAIRN_TRY(connection.Execute(sql, params, on_row));
  }
  return {};
}

}  // namespace cairn::records
