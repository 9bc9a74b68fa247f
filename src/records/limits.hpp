// Limits of the records API (D34, D37). Documented in docs/records.md.
#pragma once

#include <cstddef>

namespace cairn::records {

// Items in one batch create, update, delete, restore or upsert; more → 413.
inline constexpr std::size_t kMaxBatchItems = 1000;
// Ids in one many-to-many value; more → 400 naming the field.
inline constexpr std::size_t kMaxLinkedRecords = 1000;

// List queries (D37, D61); past any of them → 400 naming the parameter.
inline constexpr int kDefaultListLimit = 100;
inline constexpr int kMaxListLimit = 1000;
// and/or groups nested in one `filter`, counting the outermost.
inline constexpr int kMaxFilterDepth = 8;
// {field, operator, value} conditions in one `filter` (a flat object's keys count too).
inline constexpr std::size_t kMaxFilterConditions = 100;
// Values in one `in`, `notIn`, `containsAny` or `containsAll`.
inline constexpr std::size_t kMaxFilterValues = 1000;
// Keys in one `sort`.
inline constexpr std::size_t kMaxSortKeys = 10;
// Entries in one `aggregate`.
inline constexpr std::size_t kMaxAggregates = 20;
// Groups one `groupBy` may return; more → 400 (filter first).
inline constexpr std::size_t kMaxGroups = 1000;
// Characters in `q`.
inline constexpr std::size_t kMaxSearchLength = 200;

}  // namespace cairn::records
