// Limits of the schema migration.
#pragma once

namespace cairn::schema {

// How deep a stored value's JSON may nest when a type change reads it back (the API accepted it
// inside a request body nested at most 64 deep, so every stored value fits).
inline constexpr int kMaxStoredJsonDepth = 64;

}  // namespace cairn::schema
