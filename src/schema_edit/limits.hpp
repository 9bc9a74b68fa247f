// Limits of live schema editing (docs/schema-editing.md).
#pragma once

#include <chrono>
#include <cstddef>

namespace cairn::schema_edit {

// Versions listed by GET /api/admin/schema/versions (newest first); older ones stay readable by
// number.
inline constexpr std::size_t kMaxListedVersions = 1000;
// A version message (PUT draft / publish / restore `message`).
inline constexpr std::size_t kMaxMessageLength = 2000;
// How often a node asks PostgreSQL for the active version (another node may have published):
// every node switches within a second.
inline constexpr std::chrono::milliseconds kFollowInterval{250};

}  // namespace cairn::schema_edit
