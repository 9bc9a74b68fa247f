#include "app/not_served.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>

namespace cairn::app {
namespace {

using boost::json::array;
using boost::json::object;
using boost::json::value;

// The member `key` of `parent` when `parent` is an object and the member is an array.
// (It takes a value, never an object: an object would convert to a temporary value.)
const array* ArrayAt(const value& parent, std::string_view key) {
  const object* o = parent.if_object();
  const value* child = o != nullptr ? o->if_contains(key) : nullptr;
  return child != nullptr ? child->if_array() : nullptr;
}

const array* ArrayAt(const object&, std::string_view) = delete;

// A root key that is present.
template <const std::string_view& kKey>
void RootKey(const NotServedProbe& probe, std::vector<std::string>& where) {
  if (const object* root = probe.document.if_object(); root && root->contains(kKey)) {
    where.emplace_back(kKey);
  }
}

bool HasAuth(const NotServedProbe& probe) {
  const object* root = probe.document.if_object();
  return root != nullptr && root->contains("auth");
}

// File storage is served with auth only: signing needs a session.
void BucketsWithoutAuth(const NotServedProbe& probe, std::vector<std::string>& where) {
  if (const array* buckets = ArrayAt(probe.document, "buckets");
      buckets && !buckets->empty() && !HasAuth(probe)) {
    where.emplace_back("buckets");
  }
}

bool IsSet(const NotServedProbe& probe, const std::string& name) {
  if (probe.env == nullptr) return false;
  const auto value = (*probe.env)(name.c_str());
  return value.has_value() && !value->empty();
}

// The storage settings that are set when there is no auth section (no storage without it).
void StorageSettingsWithoutAuth(const NotServedProbe& probe, std::vector<std::string>& where) {
  if (HasAuth(probe)) return;
  for (const char* name :
       {"STORAGE_PROVIDER", "STORAGE_LOCAL_DIRECTORY", "STORAGE_DEFAULT_ACCESS",
        "STORAGE_PUBLIC_PATHS", "STORAGE_S3_ENDPOINT", "STORAGE_S3_BUCKET", "STORAGE_S3_REGION",
        "STORAGE_S3_ACCESS_KEY_ID", "STORAGE_S3_SECRET_ACCESS_KEY", "STORAGE_S3_FORCE_PATH_STYLE",
        "STORAGE_TRANSFORM_PRESETS", "STORAGE_TRANSFORM_CACHE_DIR",
        "STORAGE_TRANSFORM_CACHE_MAX_SIZE", "STORAGE_TRANSFORM_MAX_PIXELS", "ECO_IMAGE_FORMAT"}) {
    if (IsSet(probe, name)) where.emplace_back(name);
  }
}

// The purge job (D19a) settings that are set when there is no auth section: no accounts to erase
// and no records in a trash without one.
void PurgeSettingsWithoutAuth(const NotServedProbe& probe, std::vector<std::string>& where) {
  if (HasAuth(probe)) return;
  for (const char* name : {"ECO_RETENTION_PURGE_DAYS", "ACCOUNT_DELETION_GRACE_DAYS"}) {
    if (IsSet(probe, name)) where.emplace_back(name);
  }
}

// Live schema editing (D51) needs an admin session, so it is served with an auth section only.
void SchemaEditWithoutAuth(const NotServedProbe& probe, std::vector<std::string>& where) {
  if (HasAuth(probe)) return;
  if (IsSet(probe, "SCHEMA_EDIT_API_ENABLED")) where.emplace_back("SCHEMA_EDIT_API_ENABLED");
}

constexpr std::string_view kTheme = "theme";
constexpr std::string_view kLanguages = "languages";
constexpr std::string_view kComponents = "components";
constexpr std::string_view kPages = "pages";

constexpr NoticeKind kWarn = NoticeKind::kNotServed;
constexpr NoticeKind kInfo = NoticeKind::kNoBackendEffect;
constexpr std::string_view kD6 =
    "by design (D6); kept in the schema versions and GET /api/admin/schema/export";
constexpr std::string_view kPurgeNeedsAuth =
    "the purge job runs with an auth section only (accounts and records are served with one)";
constexpr std::string_view kStorageNeedsAuth =
    "file storage is served with an auth section only (signing needs a session)";

// Each later issue that serves one of these removes its row (and its line in docs/config.md or
// docs/settings.md, and in tests/unit/app/not_served_test.cpp).
constexpr NotServedEntry kTable[] = {
    {"buckets", kWarn, false, kStorageNeedsAuth, BucketsWithoutAuth},
    {"STORAGE_* without auth", kWarn, true, kStorageNeedsAuth, StorageSettingsWithoutAuth},
    {"ECO_RETENTION_PURGE_DAYS, ACCOUNT_DELETION_GRACE_DAYS without auth", kWarn, true,
     kPurgeNeedsAuth, PurgeSettingsWithoutAuth},
    {"SCHEMA_EDIT_API_ENABLED without auth", kWarn, true,
     "live schema editing is served with an auth section only (its routes are admin only)",
     SchemaEditWithoutAuth},
    {"theme", kInfo, false, kD6, RootKey<kTheme>},
    {"languages", kInfo, false, kD6, RootKey<kLanguages>},
    {"components", kInfo, false, kD6, RootKey<kComponents>},
    {"pages", kInfo, false, kD6, RootKey<kPages>},
};

}  // namespace

std::span<const NotServedEntry> NotServedTable() {
  return kTable;
}

std::vector<NotServedFinding> FindNotServed(const boost::json::value& document,
                                            const EnvLookup* env) {
  const NotServedProbe probe{document, env};
  std::vector<NotServedFinding> found;
  for (const NotServedEntry& entry : kTable) {
    std::vector<std::string> where;
    if (entry.detect != nullptr) {
      entry.detect(probe, where);
    } else if (IsSet(probe, std::string(entry.name))) {
      where.emplace_back(entry.name);
    }
    for (std::string& subject : where) found.push_back({std::move(subject), &entry});
  }
  return found;
}

std::string FormatNotServed(const NotServedFinding& finding, const config::LocationMap& locations) {
  config::ConfigIssue line{finding.subject, {}, {}, 0};
  if (!finding.entry->is_setting) {
    config::SourceLocation where = locations.Find(finding.subject);
    line.file = std::move(where.file);
    line.line = where.line;
  }
  line.message = finding.entry->kind == NoticeKind::kNotServed
                     ? "accepted, not served by this build: "
                     : "kept, drives no backend behaviour: ";
  line.message += finding.entry->why;
  return config::FormatIssue(line);
}

std::vector<NotServedLine> NotServedReport(const config::LoadOutcome& outcome,
                                           const EnvLookup* env) {
  struct Placed {
    NotServedLine line;
    std::size_t file = 0;  // files in order of first appearance; settings after every file
    int line_number = 0;
  };
  std::vector<std::string> files;
  std::vector<Placed> placed;
  for (const NotServedFinding& finding : FindNotServed(outcome.config->document, env)) {
    Placed item{{finding.entry->kind, FormatNotServed(finding, outcome.locations)}, SIZE_MAX, 0};
    if (!finding.entry->is_setting) {
      const config::SourceLocation where = outcome.locations.Find(finding.subject);
      item.file = std::find(files.begin(), files.end(), where.file) - files.begin();
      if (item.file == files.size()) files.push_back(where.file);
      item.line_number = where.line;
    }
    placed.push_back(std::move(item));
  }
  std::stable_sort(placed.begin(), placed.end(), [](const Placed& a, const Placed& b) {
    return std::pair(a.file, a.line_number) < std::pair(b.file, b.line_number);
  });
  std::vector<NotServedLine> lines;
  for (Placed& item : placed) lines.push_back(std::move(item.line));
  return lines;
}

}  // namespace cairn::app
