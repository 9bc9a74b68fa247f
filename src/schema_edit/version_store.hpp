// The schema versions, the working draft and the config file last read, in the database
// (D51): `_cairn_schema_versions`, `_cairn_schema_draft`, `_cairn_schema_state`. No HTTP types.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <boost/json/value.hpp>

#include "common/result.hpp"
#include "db/database.hpp"

namespace cairn::schema_edit {

// The table of the versions.
inline constexpr std::string_view kVersionsTable = "_cairn_schema_versions";

// Where a version came from.
inline constexpr std::string_view kSourceFile = "file";
inline constexpr std::string_view kSourcePublish = "publish";
inline constexpr std::string_view kSourceRestore = "restore";

struct VersionInfo {
  std::int64_t version = 0;
  std::string source;  // file, publish or restore
  std::optional<std::int64_t> restored_from;
  std::optional<std::string> published_by;  // user id; none for the file
  std::int64_t published_at = 0;            // epoch millis
  std::string message;
};

struct Version {
  VersionInfo info;
  boost::json::value snapshot;  // the config document
};

struct Draft {
  boost::json::value snapshot;
  std::int64_t base_version = 0;
  std::int64_t updated_at = 0;
  std::optional<std::string> updated_by;
};

// Creates the three tables (idempotent).
Status EnsureVersionSchema(db::Database& database);

// The newest version is the active one (a restore publishes a new version). None before the
// first start has recorded version 1.
Result<std::optional<std::int64_t>> ReadActiveVersion(db::Connection& connection);
Result<std::optional<Version>> ReadVersion(db::Connection& connection, std::int64_t version);
// Newest first, at most `limit`.
Result<std::vector<VersionInfo>> ListVersions(db::Connection& connection, std::size_t limit);
Status InsertVersion(db::Connection& connection, const Version& version);

Result<std::optional<Draft>> ReadDraft(db::Connection& connection);
Status WriteDraft(db::Connection& connection, const Draft& draft);
Status DeleteDraft(db::Connection& connection);

// The hash of the config file the previous start read.
Result<std::optional<std::string>> ReadFileHash(db::Connection& connection);
Status WriteFileHash(db::Connection& connection, std::string_view hash);

// The hash stored for `document` (the file after `$ref` includes are resolved).
std::string DocumentHash(const boost::json::value& document);

}  // namespace cairn::schema_edit
