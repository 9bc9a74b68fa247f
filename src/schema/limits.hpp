// Limits of the schema migration.
#pragma once

#include <cstddef>

namespace cairn::schema {

// How deep a stored value's JSON may nest when a type change reads it back (the API accepted it
// inside a request body nested at most 64 deep, so every stored value fits).
inline constexpr int kMaxStoredJsonDepth = 64;

// Converted values written back per UPDATE statement (two bound values each: well under
// SQLite's 32 766 and PostgreSQL's 65 535 parameters); fewer round trips than one per row.
inline constexpr std::size_t kConversionWriteBatch = 500;

}  // namespace cairn::schema
