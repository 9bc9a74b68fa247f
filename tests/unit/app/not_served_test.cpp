// Nothing inert: every config key and setting this build accepts without acting on it is named,
// with where it was written. The expected lists below are written out by hand: a key or setting
// that loses its warning without becoming real fails here.
#include "app/not_served.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>

#include "config/loader.hpp"

namespace cairn::app {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

EnvLookup FakeEnv(std::map<std::string, std::string> values) {
  return [values = std::move(values)](const char* name) -> std::optional<std::string> {
    auto it = values.find(name);
    if (it == values.end()) return std::nullopt;
    return it->second;
  };
}

config::LoadOutcome Load(const std::string& yaml) {
  auto outcome = config::LoadConfigText(yaml, /*yaml=*/true, std::filesystem::temp_directory_path(),
                                        "app.yaml");
  EXPECT_TRUE(outcome.ok()) << (outcome.issues.empty() ? "" : FormatIssue(outcome.issues[0]));
  return outcome;
}

// Every inert config key, each set once (the strategies once each; magicLink and emailOtp are
// served, so only the oauth strategy is named).
constexpr const char* kEveryInertKey = R"(name: inert
tables:
  - name: docs
    fields:
      - name: title
        type: single-line-text
      - name: scan
        type: attachment
        bucket: files
        allowedFileTypes: [application/pdf]
        maxFileSize: 1000
      - name: pages
        type: multiple-attachments
        maxFiles: 3
buckets:
  - name: files
auth:
  strategies:
    - type: emailAndPassword
    - type: magicLink
    - type: emailOtp
    - type: oauth
      providers: [google, { name: my-idp, issuer: "https://idp.example.com" }]
  twoFactor: true
  roles:
    - name: editor
      permissions:
        storage: { sign: true }
analytics: { retentionDays: 30 }
theme: { primary: blue }
languages: { default: en }
components: []
pages: []
)";

const std::map<std::string, std::string> kEveryInertSetting = {
    {"STORAGE_DEFAULT_ACCESS", "public"},
    {"STORAGE_PUBLIC_PATHS", "public/"},
    {"STORAGE_TRANSFORM_PRESETS", R"({"thumb":{"width":100}})"},
    {"STORAGE_TRANSFORM_CACHE_DIR", "/tmp/cache"},
    {"STORAGE_TRANSFORM_CACHE_MAX_SIZE", "100"},
    {"ECO_IMAGE_FORMAT", "webp"},
    // Served settings: no notice.
    {"SCHEMA_EDIT_API_ENABLED", "true"},  // with auth: the admin schema routes
    {"GOOGLE_CLIENT_ID", "id"},
    {"GOOGLE_CLIENT_SECRET", "secret"},
    {"MY_IDP_CLIENT_ID", "id"},
    {"PORT", "8080"},
    {"SMTP_HOST", "mail.example.com"},
    {"RATE_LIMIT_DISABLED", "true"},
    {"ECO_RETENTION_PURGE_DAYS", "30"},  // with auth: the purge job applies it
    {"ACCOUNT_DELETION_GRACE_DAYS", "3"},
};

// Storage is served with auth only: without it, buckets and storage settings are named.
constexpr const char* kStorageWithoutAuth = R"(name: no-auth
buckets:
  - name: files
)";

std::vector<std::string> Subjects(const std::vector<NotServedFinding>& findings, NoticeKind kind) {
  std::vector<std::string> out;
  for (const auto& finding : findings) {
    if (finding.entry->kind == kind) out.push_back(finding.subject);
  }
  return out;
}

TEST(NotServed, EveryInertKeyAndSettingIsNamed) {
  const auto outcome = Load(kEveryInertKey);
  ASSERT_TRUE(outcome.ok());
  const EnvLookup env = FakeEnv(kEveryInertSetting);
  const auto findings = FindNotServed(outcome.config->document, &env);
  // analytics is served (D54), SCHEMA_EDIT_API_ENABLED with auth (D51).
  EXPECT_TRUE(Subjects(findings, NoticeKind::kNotServed).empty());
  EXPECT_THAT(Subjects(findings, NoticeKind::kNoBackendEffect),
              ElementsAre("theme", "languages", "components", "pages"));
}

TEST(NotServed, StorageWithoutAuthIsNamed) {
  const auto outcome = Load(kStorageWithoutAuth);
  ASSERT_TRUE(outcome.ok());
  const EnvLookup env = FakeEnv({{"STORAGE_PUBLIC_PATHS", "files/public"},
                                 {"STORAGE_PROVIDER", "local"},
                                 {"STORAGE_TRANSFORM_CACHE_MAX_SIZE", "100"},
                                 {"ECO_IMAGE_FORMAT", "webp"},
                                 {"SCHEMA_EDIT_API_ENABLED", "true"},
                                 {"PORT", "8080"}});
  EXPECT_THAT(Subjects(FindNotServed(outcome.config->document, &env), NoticeKind::kNotServed),
              ElementsAre("buckets", "STORAGE_PROVIDER", "STORAGE_PUBLIC_PATHS",
                          "STORAGE_TRANSFORM_CACHE_MAX_SIZE", "ECO_IMAGE_FORMAT",
                          "SCHEMA_EDIT_API_ENABLED"));
  // With auth the same settings are served.
  const auto with_auth = Load(kEveryInertKey);
  ASSERT_TRUE(with_auth.ok());
  for (const auto& finding : FindNotServed(with_auth.config->document, &env)) {
    EXPECT_FALSE(finding.subject.starts_with("STORAGE_") || finding.subject == "buckets" ||
                 finding.subject == "ECO_IMAGE_FORMAT" ||
                 finding.subject == "SCHEMA_EDIT_API_ENABLED")
        << finding.subject;
  }
}

TEST(NotServed, PurgeSettingsWithoutAuthAreNamed) {
  const EnvLookup env =
      FakeEnv({{"ECO_RETENTION_PURGE_DAYS", "30"}, {"ACCOUNT_DELETION_GRACE_DAYS", "3"}});
  const auto without_auth = Load("name: plain\n");
  ASSERT_TRUE(without_auth.ok());
  EXPECT_THAT(Subjects(FindNotServed(without_auth.config->document, &env), NoticeKind::kNotServed),
              ElementsAre("ECO_RETENTION_PURGE_DAYS", "ACCOUNT_DELETION_GRACE_DAYS"));
  // With auth the purge job applies them.
  const auto with_auth = Load(kEveryInertKey);
  ASSERT_TRUE(with_auth.ok());
  for (const auto& finding : FindNotServed(with_auth.config->document, &env)) {
    EXPECT_NE(finding.subject, "ECO_RETENTION_PURGE_DAYS");
    EXPECT_NE(finding.subject, "ACCOUNT_DELETION_GRACE_DAYS");
  }
}

TEST(NotServed, EveryRowOfTheTableIsExercisedAbove) {
  // A new row must be set in the config or settings above (and named in the lists there).
  const auto outcome = Load(kEveryInertKey);
  ASSERT_TRUE(outcome.ok());
  const EnvLookup env = FakeEnv(kEveryInertSetting);
  const auto without_auth = Load(kStorageWithoutAuth);
  ASSERT_TRUE(without_auth.ok());
  std::set<const NotServedEntry*> hit;
  for (const auto& finding : FindNotServed(outcome.config->document, &env)) {
    hit.insert(finding.entry);
  }
  for (const auto& finding : FindNotServed(without_auth.config->document, &env)) {
    hit.insert(finding.entry);
  }
  for (const NotServedEntry& entry : NotServedTable()) {
    EXPECT_TRUE(hit.contains(&entry)) << entry.name;
  }
}

TEST(NotServed, ServedKeysAndOffSwitchesRaiseNothing) {
  const auto outcome = Load(R"(name: served
tables:
  - name: docs
    fields:
      - { name: pages, type: multiple-attachments, maxFiles: 3 }
auth:
  strategies: [{ type: emailAndPassword, minPasswordLength: 10 }]
  twoFactor: false
  roles: [{ name: editor, description: Edits }]
analytics: { enabled: false }
buckets: []
)");
  ASSERT_TRUE(outcome.ok());
  const EnvLookup env = FakeEnv({{"PORT", "8080"}, {"GOOGLE_CLIENT_ID", "no oauth configured"}});
  EXPECT_THAT(FindNotServed(outcome.config->document, &env), IsEmpty());
}

TEST(NotServed, SettingsAreLookedAtOnlyWithAnEnvironment) {
  const auto outcome = Load("name: plain\n");
  ASSERT_TRUE(outcome.ok());
  EXPECT_THAT(FindNotServed(outcome.config->document, nullptr), IsEmpty());
  const EnvLookup env = FakeEnv({{"ECO_RETENTION_PURGE_DAYS", "30"}, {"STORAGE_PUBLIC_PATHS", ""}});
  const auto findings = FindNotServed(outcome.config->document, &env);
  ASSERT_EQ(findings.size(), 1u);  // an empty value is unset, as LoadSettings reads it
  EXPECT_EQ(FormatNotServed(findings[0], outcome.locations),
            "ECO_RETENTION_PURGE_DAYS: accepted, not served by this build: the purge job runs "
            "with an auth section only (accounts and records are served with one)");
}

TEST(NotServed, ConfigKeysAreNamedWithFileAndLine) {
  const auto outcome = Load(kEveryInertKey);
  ASSERT_TRUE(outcome.ok());
  const auto findings = FindNotServed(outcome.config->document, nullptr);
  std::vector<std::string> lines;
  for (const auto& finding : findings) lines.push_back(FormatNotServed(finding, outcome.locations));
  ASSERT_GE(lines.size(), 3u);
  EXPECT_EQ(lines[0],
            "app.yaml:30: theme: kept, drives no backend behaviour: by design (D6); kept in the "
            "schema versions and GET /api/admin/schema/export");
  EXPECT_EQ(lines.back(),
            "app.yaml:33: pages: kept, drives no backend behaviour: by design (D6); kept in the "
            "schema versions and GET /api/admin/schema/export");
}

TEST(NotServed, TheReportListsKeysInFileOrderThenSettings) {
  const auto outcome = Load(kEveryInertKey);
  ASSERT_TRUE(outcome.ok());
  const EnvLookup env = FakeEnv({{"SCHEMA_EDIT_API_ENABLED", "true"}});
  std::vector<std::string> starts;
  for (const NotServedLine& line : NotServedReport(outcome, &env)) {
    starts.push_back(line.text.substr(0, line.text.find(": ", line.text.find(": ") + 2)));
  }
  EXPECT_THAT(starts, ElementsAre("app.yaml:30: theme", "app.yaml:31: languages",
                                  "app.yaml:32: components", "app.yaml:33: pages"));
}

}  // namespace
}  // namespace cairn::app
