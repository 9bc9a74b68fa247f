#include "schema_edit/version_store.hpp"

#include <boost/json.hpp>

#include "common/crypto.hpp"

namespace cairn::schema_edit {
namespace {

// Plain types that mean the same on both backends; the snapshot is JSON text (read back through
// boost::json, so what is stored is never trusted to be valid).
constexpr std::string_view kSchemaSql = R"SQL(CREATE TABLE IF NOT EXISTS "_cairn_schema_versions" (
  "version" BIGINT PRIMARY KEY,
  "snapshot" TEXT NOT NULL,
  "source" TEXT NOT NULL,
  "restored_from" BIGINT,
  "published_by" TEXT,
  "published_at" BIGINT NOT NULL,
  "message" TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS "_cairn_schema_draft" (
  "id" BIGINT PRIMARY KEY,
  "snapshot" TEXT NOT NULL,
  "base_version" BIGINT NOT NULL,
  "updated_at" BIGINT NOT NULL,
  "updated_by" TEXT
);
CREATE TABLE IF NOT EXISTS "_cairn_schema_state" (
  "key" TEXT PRIMARY KEY,
  "value" TEXT NOT NULL
);
)SQL";

constexpr std::int64_t kDraftRow = 1;  // one working draft
constexpr std::string_view kFileHashKey = "file_hash";

Result<boost::json::value> ParseStored(std::string_view text) {
  boost::system::error_code ec;
  boost::json::value value = boost::json::parse(text, ec);
  if (ec) return Error::Internal("a stored schema snapshot is not valid JSON: " + ec.message());
  return value;
}

db::Value OptionalText(const std::optional<std::string>& text) {
  if (text) return *text;
  return db::Null{};
}

VersionInfo ReadInfo(const db::Row& row, int first) {
  VersionInfo info;
  info.version = row.GetInt64(first);
  info.source = std::string(row.GetText(first + 1));
  if (!row.IsNull(first + 2)) info.restored_from = row.GetInt64(first + 2);
  if (!row.IsNull(first + 3)) info.published_by = std::string(row.GetText(first + 3));
  info.published_at = row.GetInt64(first + 4);
  info.message = std::string(row.GetText(first + 5));
  return info;
}

constexpr std::string_view kInfoColumns =
    "\"version\", \"source\", \"restored_from\", \"published_by\", \"published_at\", \"message\"";

}  // namespace

Status EnsureVersionSchema(db::Database& database) {
  return database.Transaction(db::Access::kSchema, [&](db::Connection& connection) -> Status {
    if (auto lock = connection.dialect().MigrationLockSql()) {
      CAIRN_TRY(connection.Execute(*lock, {}));
    }
    return connection.ExecuteScript(kSchemaSql);
  });
}

Result<std::optional<std::int64_t>> ReadActiveVersion(db::Connection& connection) {
  std::optional<std::int64_t> version;
  CAIRN_TRY(connection.Execute("SELECT MAX(\"version\") FROM \"_cairn_schema_versions\"", {},
                               [&](const db::Row& row) {
                                 if (!row.IsNull(0)) version = row.GetInt64(0);
                               }));
  return version;
}

Result<std::optional<Version>> ReadVersion(db::Connection& connection, std::int64_t number) {
  std::optional<Version> version;
  std::string text;
  CAIRN_TRY(
      connection.Execute("SELECT " + std::string(kInfoColumns) +
                             ", \"snapshot\" FROM \"_cairn_schema_versions\" WHERE \"version\" = ?",
                         {number}, [&](const db::Row& row) {
                           version = Version{ReadInfo(row, 0), {}};
                           text = std::string(row.GetText(6));
                         }));
  if (version) {
    CAIRN_ASSIGN_OR_RETURN(version->snapshot, ParseStored(text));
  }
  return version;
}

Result<std::vector<VersionInfo>> ListVersions(db::Connection& connection, std::size_t limit) {
  std::vector<VersionInfo> versions;
  CAIRN_TRY(connection.Execute("SELECT " + std::string(kInfoColumns) +
                                   " FROM \"_cairn_schema_versions\" ORDER BY \"version\" DESC "
                                   "LIMIT ?",
                               {static_cast<std::int64_t>(limit)},
                               [&](const db::Row& row) { versions.push_back(ReadInfo(row, 0)); }));
  return versions;
}

Status InsertVersion(db::Connection& connection, const Version& version) {
  const VersionInfo& info = version.info;
  db::Value restored = db::Null{};
  if (info.restored_from) restored = *info.restored_from;
  CAIRN_TRY(connection.Execute(
      "INSERT INTO \"_cairn_schema_versions\" (" + std::string(kInfoColumns) +
          ", \"snapshot\") VALUES (?, ?, ?, ?, ?, ?, ?)",
      {info.version, info.source, restored, OptionalText(info.published_by), info.published_at,
       info.message, boost::json::serialize(version.snapshot)}));
  return {};
}

Result<std::optional<Draft>> ReadDraft(db::Connection& connection) {
  std::optional<Draft> draft;
  std::string text;
  CAIRN_TRY(connection.Execute(
      "SELECT \"snapshot\", \"base_version\", \"updated_at\", \"updated_by\" FROM "
      "\"_cairn_schema_draft\" WHERE \"id\" = ?",
      {kDraftRow}, [&](const db::Row& row) {
        draft = Draft{};
        text = std::string(row.GetText(0));
        draft->base_version = row.GetInt64(1);
        draft->updated_at = row.GetInt64(2);
        if (!row.IsNull(3)) draft->updated_by = std::string(row.GetText(3));
      }));
  if (draft) {
    CAIRN_ASSIGN_OR_RETURN(draft->snapshot, ParseStored(text));
  }
  return draft;
}

Status WriteDraft(db::Connection& connection, const Draft& draft) {
  CAIRN_TRY(connection.Execute(
      "INSERT INTO \"_cairn_schema_draft\" (\"id\", \"snapshot\", \"base_version\", "
      "\"updated_at\", \"updated_by\") VALUES (?, ?, ?, ?, ?) ON CONFLICT (\"id\") DO UPDATE SET "
      "\"snapshot\" = excluded.\"snapshot\", \"base_version\" = excluded.\"base_version\", "
      "\"updated_at\" = excluded.\"updated_at\", \"updated_by\" = excluded.\"updated_by\"",
      {kDraftRow, boost::json::serialize(draft.snapshot), draft.base_version, draft.updated_at,
       OptionalText(draft.updated_by)}));
  return {};
}

Status DeleteDraft(db::Connection& connection) {
  CAIRN_TRY(
      connection.Execute("DELETE FROM \"_cairn_schema_draft\" WHERE \"id\" = ?", {kDraftRow}));
  return {};
}

Result<std::optional<std::string>> ReadFileHash(db::Connection& connection) {
  std::optional<std::string> hash;
  CAIRN_TRY(connection.Execute("SELECT \"value\" FROM \"_cairn_schema_state\" WHERE \"key\" = ?",
                               {std::string(kFileHashKey)},
                               [&](const db::Row& row) { hash = std::string(row.GetText(0)); }));
  return hash;
}

Status WriteFileHash(db::Connection& connection, std::string_view hash) {
  CAIRN_TRY(connection.Execute(
      "INSERT INTO \"_cairn_schema_state\" (\"key\", \"value\") VALUES (?, ?) ON CONFLICT "
      "(\"key\") DO UPDATE SET \"value\" = excluded.\"value\"",
      {std::string(kFileHashKey), std::string(hash)}));
  return {};
}

std::string DocumentHash(const boost::json::value& document) {
  return crypto::Sha256Hex(boost::json::serialize(document));
}

}  // namespace cairn::schema_edit
