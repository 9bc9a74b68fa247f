#include "app/settings.hpp"

#include <gtest/gtest.h>

namespace cairn::app {
namespace {

EnvLookup FakeEnv(std::map<std::string, std::string> values) {
  return [values = std::move(values)](const char* name) -> std::optional<std::string> {
    auto it = values.find(name);
    if (it == values.end()) return std::nullopt;
    return it->second;
  };
}

std::vector<std::string> FailingSettings(const Result<Settings>& result) {
  std::vector<std::string> names;
  if (result.ok()) return names;
  for (const auto& error : result.error().errors) names.push_back(error.field);
  return names;
}

TEST(Settings, DefaultsFollowD2) {
  auto settings = LoadSettings({}, FakeEnv({}));
  ASSERT_TRUE(settings.ok());
  EXPECT_EQ(settings->host, "127.0.0.1");
  EXPECT_EQ(settings->port, 3000);
  EXPECT_EQ(settings->data_dir, "./cairn_data");
  EXPECT_EQ(settings->base_url, "http://127.0.0.1:3000");
  EXPECT_TRUE(settings->database_url.empty());
  EXPECT_FALSE(settings->allow_destructive);
  EXPECT_FALSE(settings->storage.default_public);
  EXPECT_EQ(settings->eco_image_format, "avif");
}

TEST(Settings, IoThreadsAreOnePerCore) {
  Settings settings;
  EXPECT_EQ(IoThreads(settings, 2), 2);
  EXPECT_EQ(IoThreads(settings, 0), 1);  // an unknown core count counts as one
  settings.io_threads = 3;               // CAIRN_IO_THREADS wins
  EXPECT_EQ(IoThreads(settings, 16), 3);
}

TEST(Settings, WorkersAreOnePerCoreOnSqliteAndCoverThePoolOnPostgres) {
  Settings settings;
  EXPECT_EQ(WorkerThreads(settings, false, 2), 2);
  EXPECT_EQ(WorkerThreads(settings, false, 0), 1);   // an unknown core count counts as one
  EXPECT_EQ(WorkerThreads(settings, true, 1), 8);    // the default pool's 8 connections
  EXPECT_EQ(WorkerThreads(settings, true, 16), 32);  // never below two per core
  settings.database_pool_size = 32;
  EXPECT_EQ(WorkerThreads(settings, true, 4), 32);
  EXPECT_EQ(WorkerThreads(settings, false, 4), 4);
  settings.worker_threads = 3;  // CAIRN_WORKER_THREADS wins
  EXPECT_EQ(WorkerThreads(settings, true, 16), 3);
  EXPECT_EQ(WorkerThreads(settings, false, 16), 3);
}

TEST(Settings, LongQueryLaneSizeIsReadAndBounded) {
  auto settings = LoadSettings({}, FakeEnv({{"CAIRN_LONG_QUERY_THREADS", "3"}}));
  ASSERT_TRUE(settings.ok()) << settings.error().message;
  EXPECT_EQ(settings->long_query_threads, 3);
  EXPECT_EQ(LoadSettings({}, FakeEnv({}))->long_query_threads, 0);  // the server's default
  for (const char* bad : {"0", "-1", "1025", "two"}) {
    EXPECT_EQ(FailingSettings(LoadSettings({}, FakeEnv({{"CAIRN_LONG_QUERY_THREADS", bad}}))),
              std::vector<std::string>{"CAIRN_LONG_QUERY_THREADS"})
        << bad;
  }
}

TEST(Settings, FlagsBeatEnvironmentBeatsDefaults) {
  auto settings =
      LoadSettings({{"port", "8080"}}, FakeEnv({{"PORT", "9090"},
                                                {"HOST", "0.0.0.0"},
                                                {"BASE_URL", "https://api.example.com/"},
                                                {"CAIRN_ALLOW_DESTRUCTIVE", "true"}}));
  ASSERT_TRUE(settings.ok()) << settings.error().message;
  EXPECT_EQ(settings->port, 8080);
  EXPECT_EQ(settings->host, "0.0.0.0");
  EXPECT_EQ(settings->base_url, "https://api.example.com");
  EXPECT_TRUE(settings->allow_destructive);
}

TEST(Settings, EveryBadSettingIsNamedAtOnce) {
  auto settings =
      LoadSettings({{"log-level", "loud"}}, FakeEnv({{"PORT", "70000"},
                                                     {"HOST", "example.com"},
                                                     {"DATABASE_URL", "mysql://x"},
                                                     {"STORAGE_DEFAULT_ACCESS", "secret"},
                                                     {"ECO_IMAGE_FORMAT", "bmp"},
                                                     {"SCHEMA_EDIT_API_ENABLED", "yes"},
                                                     {"DATABASE_POOL_SIZE", "0"}}));
  ASSERT_FALSE(settings.ok());
  EXPECT_EQ(FailingSettings(settings),
            (std::vector<std::string>{"HOST", "PORT", "--log-level", "DATABASE_URL",
                                      "DATABASE_POOL_SIZE", "STORAGE_DEFAULT_ACCESS",
                                      "ECO_IMAGE_FORMAT", "SCHEMA_EDIT_API_ENABLED"}));
  EXPECT_NE(settings.error().message.find("PORT: must be an integer from 0 to 65535"),
            std::string::npos);
}

TEST(Settings, PurgeDaysAreBoundedAndZeroGraceMeansAtOnce) {
  auto defaults = LoadSettings({}, FakeEnv({}));
  ASSERT_TRUE(defaults.ok());
  EXPECT_EQ(defaults->account_deletion_grace_days, 7);
  EXPECT_FALSE(defaults->eco_retention_purge_days.has_value());
  auto set = LoadSettings(
      {}, FakeEnv({{"ACCOUNT_DELETION_GRACE_DAYS", "0"}, {"ECO_RETENTION_PURGE_DAYS", "30"}}));
  ASSERT_TRUE(set.ok());
  EXPECT_EQ(set->account_deletion_grace_days, 0);
  EXPECT_EQ(set->eco_retention_purge_days, 30);
  auto bad = LoadSettings(
      {}, FakeEnv({{"ACCOUNT_DELETION_GRACE_DAYS", "-1"}, {"ECO_RETENTION_PURGE_DAYS", "0"}}));
  EXPECT_EQ(FailingSettings(bad),
            (std::vector<std::string>{"ACCOUNT_DELETION_GRACE_DAYS", "ECO_RETENTION_PURGE_DAYS"}));
}

TEST(Settings, PublicPathsRejectWildcardsAndOverlaps) {
  EXPECT_TRUE(LoadSettings({}, FakeEnv({{"STORAGE_PUBLIC_PATHS", "public/, avatars/"}})).ok());
  EXPECT_EQ(FailingSettings(LoadSettings({}, FakeEnv({{"STORAGE_PUBLIC_PATHS", "public/*"}}))),
            std::vector<std::string>{"STORAGE_PUBLIC_PATHS"});
  EXPECT_EQ(
      FailingSettings(LoadSettings({}, FakeEnv({{"STORAGE_PUBLIC_PATHS", "public/,public/img/"}}))),
      std::vector<std::string>{"STORAGE_PUBLIC_PATHS"});
}

TEST(Settings, PublicPathsMustBeValidPrefixes) {
  for (const char* bad : {"../x", "docs/../x", "/docs", "docs//x", "docs\\x"}) {
    EXPECT_EQ(FailingSettings(LoadSettings({}, FakeEnv({{"STORAGE_PUBLIC_PATHS", bad}}))),
              std::vector<std::string>{"STORAGE_PUBLIC_PATHS"})
        << bad;
  }
}

TEST(Settings, StorageProviderAndItsSettingsAreChecked) {
  EXPECT_FALSE(LoadSettings({}, FakeEnv({}))->storage.provider.has_value());
  EXPECT_EQ(FailingSettings(LoadSettings({}, FakeEnv({{"STORAGE_PROVIDER", "ftp"}}))),
            std::vector<std::string>{"STORAGE_PROVIDER"});
  EXPECT_EQ(FailingSettings(LoadSettings({}, FakeEnv({{"STORAGE_PROVIDER", "s3"}}))),
            (std::vector<std::string>{"STORAGE_S3_BUCKET", "STORAGE_S3_ACCESS_KEY_ID",
                                      "STORAGE_S3_SECRET_ACCESS_KEY"}));
  const std::map<std::string, std::string> s3 = {{"STORAGE_PROVIDER", "s3"},
                                                 {"STORAGE_S3_BUCKET", "my-files"},
                                                 {"STORAGE_S3_ACCESS_KEY_ID", "id"},
                                                 {"STORAGE_S3_SECRET_ACCESS_KEY", "secret"},
                                                 {"STORAGE_S3_ENDPOINT", "http://127.0.0.1:9000"},
                                                 {"STORAGE_S3_FORCE_PATH_STYLE", "true"}};
  const auto loaded = LoadSettings({}, FakeEnv(s3));
  ASSERT_TRUE(loaded.ok());
  EXPECT_EQ(loaded->storage.provider, storage::Provider::kS3);
  EXPECT_EQ(loaded->storage.s3.bucket, "my-files");
  EXPECT_EQ(loaded->storage.s3.region, "us-east-1");
  EXPECT_TRUE(loaded->storage.s3.force_path_style);
  auto bad_endpoint = s3;
  bad_endpoint["STORAGE_S3_ENDPOINT"] = "ftp://example.com";
  EXPECT_EQ(FailingSettings(LoadSettings({}, FakeEnv(bad_endpoint))),
            std::vector<std::string>{"STORAGE_S3_ENDPOINT"});
  auto bad_bucket = s3;
  bad_bucket["STORAGE_S3_BUCKET"] = "My_Files";
  EXPECT_EQ(FailingSettings(LoadSettings({}, FakeEnv(bad_bucket))),
            std::vector<std::string>{"STORAGE_S3_BUCKET"});
  // A setting of another provider has no effect, so it is an error, not silence.
  EXPECT_EQ(FailingSettings(LoadSettings(
                {}, FakeEnv({{"STORAGE_PROVIDER", "local"}, {"STORAGE_S3_BUCKET", "files"}}))),
            std::vector<std::string>{"STORAGE_S3_BUCKET"});
  EXPECT_EQ(FailingSettings(LoadSettings(
                {}, FakeEnv({{"STORAGE_PROVIDER", "bytea"}, {"STORAGE_LOCAL_DIRECTORY", "/srv"}}))),
            std::vector<std::string>{"STORAGE_LOCAL_DIRECTORY"});
  EXPECT_EQ(LoadSettings({}, FakeEnv({{"STORAGE_LOCAL_DIRECTORY", "/srv/files"}}))
                ->storage.local_directory,
            "/srv/files");
}

TEST(Settings, TransformPresetsMustBeNamedObjects) {
  EXPECT_TRUE(
      LoadSettings({}, FakeEnv({{"STORAGE_TRANSFORM_PRESETS", R"({"thumb-sm":{"width":64}})"}}))
          .ok());
  // Every member is checked as the URL's parameter would be (interface.md rule 7).
  for (const char* bad :
       {"[1]", "{", R"({"bad name":{}})", R"({"thumb":3})", R"({"t":{"width":0}})",
        R"({"t":{"height":2501}})", R"({"t":{"fit":"zoom"}})", R"({"t":{"quality":"80"}})",
        R"({"t":{"crop":"1,200"}})", R"({"t":{"unknown":1}})"}) {
    EXPECT_EQ(FailingSettings(LoadSettings({}, FakeEnv({{"STORAGE_TRANSFORM_PRESETS", bad}}))),
              std::vector<std::string>{"STORAGE_TRANSFORM_PRESETS"})
        << bad;
  }
}

}  // namespace
}  // namespace cairn::app

namespace cairn::app {
namespace {

TEST(Settings, GitHubUrlsForAnEnterpriseServerAreChecked) {
  const auto defaults = LoadSettings({}, FakeEnv({}));
  ASSERT_TRUE(defaults.ok());
  EXPECT_EQ(defaults->github_url, "https://github.com");
  EXPECT_EQ(defaults->github_api_url, "https://api.github.com");
  const auto enterprise =
      LoadSettings({}, FakeEnv({{"GITHUB_URL", "https://ghe.example.com/"},
                                {"GITHUB_API_URL", "https://ghe.example.com/api/v3"}}));
  ASSERT_TRUE(enterprise.ok());
  EXPECT_EQ(enterprise->github_url, "https://ghe.example.com");
  EXPECT_EQ(enterprise->github_api_url, "https://ghe.example.com/api/v3");
  // The environment stays reachable for the credentials the config names.
  EXPECT_EQ(enterprise->env("GITHUB_URL"), "https://ghe.example.com/");
  // Plain http only on a loopback host.
  EXPECT_EQ(FailingSettings(LoadSettings({}, FakeEnv({{"GITHUB_URL", "http://ghe.example.com"},
                                                      {"GITHUB_API_URL", "ftp://x"}}))),
            (std::vector<std::string>{"GITHUB_URL", "GITHUB_API_URL"}));
}

}  // namespace
}  // namespace cairn::app
