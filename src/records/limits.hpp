// Limits of the records API (D34, D37). Documented in docs/records.md.
#pragma once

#include <cstddef>

namespace cairn::records {

// Items in one batch create, update, delete, restore or upsert; more → 413.
inline constexpr std::size_t kMaxBatchItems = 1000;
// Ids in one many-to-many value; more → 400 naming the field.
inline constexpr std::size_t kMaxLinkedRecords = 1000;

}  // namespace cairn::records
