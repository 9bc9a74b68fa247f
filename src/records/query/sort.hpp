// The `sort` and `order` list parameters (D37): `sort=name:asc,amount:desc` (leftmost first), or
// one bare field with `order=asc|desc`. Keys are readable fields with a column of their own or
// `id`, `createdAt`, `updatedAt`, `createdBy`, `updatedBy`; an unreadable field answers like a
// missing one (D21). At most kMaxSortKeys keys. `id` always ends the order, so pages are stable.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "access/table_access.hpp"
#include "common/result.hpp"
#include "config/model.hpp"

namespace cairn::records::query {

// The ORDER BY list (without the keywords): `"amount" DESC NULLS FIRST, "id" ASC`; NULL sorts
// as the largest value on both databases. Absent `sort`: `"id" ASC` (or `order`'s direction).
Result<std::string> CompileSort(std::optional<std::string_view> sort,
                                std::optional<std::string_view> order, const config::Table& table,
                                const access::TableAccess& access);

}  // namespace cairn::records::query
