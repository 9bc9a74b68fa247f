// Database failures as cairn Errors. Each backend maps its driver codes to a DbErrorKind once;
// this file turns the kind into the Error every caller sees and back (ErrorKindOf).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/error.hpp"
#include "db/database.hpp"

namespace cairn::db {

// Error::reason of each kind.
inline constexpr std::string_view kUniqueViolation = "UNIQUE_VIOLATION";
inline constexpr std::string_view kForeignKeyViolation = "FOREIGN_KEY_VIOLATION";
inline constexpr std::string_view kSerializationFailure = "SERIALIZATION_FAILURE";
inline constexpr std::string_view kDatabaseUnavailable = "DATABASE_UNAVAILABLE";
inline constexpr std::string_view kDatabaseTimeout = "DATABASE_TIMEOUT";
inline constexpr std::string_view kDatabaseFull = "DATABASE_FULL";
inline constexpr std::string_view kDatabaseError = "DATABASE_ERROR";

// kUnique, kForeignKey, kBusy → kConflict (409); kUnavailable → kUnavailable (503); kTimeout →
// kUnavailable (503) with Retry-After; kFull → kUnavailable answered 507 (Insufficient Storage,
// as a full disk under an upload, D47) with Retry-After; kOther → kInternal (500).
// `detail` is the driver's message (logged, never sent). For unique violations, `columns` (when
// known) become `errors: [{field: column, message: "must be unique"}]`.
Error MakeDbError(DbErrorKind kind, std::string detail,
                  const std::vector<std::string>& columns = {});

// The kind of a PostgreSQL error from its SQLSTATE (and, for 0A000, its message).
DbErrorKind PostgresErrorKind(std::string_view sqlstate, std::string_view message);

// Columns named by SQLite's `UNIQUE constraint failed: t.a, t.b` (empty when not named).
std::vector<std::string> SqliteUniqueColumns(std::string_view message);
// Columns named by PostgreSQL's unique-violation detail `Key (a, b)=(…) already exists.`
// (empty when the key is an expression).
std::vector<std::string> PostgresKeyColumns(std::string_view detail);

}  // namespace cairn::db
