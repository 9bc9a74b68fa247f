// Statements over a list of record ids, `… "id" IN (?, …) …`, in chunks. Each list is padded to
// a power of two by repeating its last id, so a handful of statement shapes serve every size and
// stay in the connection's statement cache (one shape per length would evict the write path's
// statements and prepare again each time).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "common/result.hpp"
#include "db/database.hpp"

namespace cairn::records {

inline constexpr std::size_t kMaxIdsPerStatement = 1024;

// Runs `sql_head` + `"id" IN (…)` + `sql_tail` over `ids`, at most `chunk` ids (a power of two)
// per statement; `head_params` are bound before the ids.
Status ForIdChunks(db::Connection& connection, std::string_view sql_head, std::string_view sql_tail,
                   const std::vector<db::Value>& head_params, std::span<const std::int64_t> ids,
                   const db::RowCallback& on_row, std::size_t chunk = kMaxIdsPerStatement);

}  // namespace cairn::records
