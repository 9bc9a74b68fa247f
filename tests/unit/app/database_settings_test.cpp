// The PostgreSQL robustness settings (DATABASE_*_TIMEOUT_*, DATABASE_TCP_KEEPALIVES*).
#include <gtest/gtest.h>

#include "app/settings.hpp"

namespace cairn::app {
namespace {

EnvLookup Env(std::map<std::string, std::string> values) {
  return [values = std::move(values)](const char* name) -> std::optional<std::string> {
    auto it = values.find(name);
    if (it == values.end()) return std::nullopt;
    return it->second;
  };
}

TEST(DatabaseSettings, DefaultsAreSane) {
  auto settings = LoadSettings({}, Env({}));
  ASSERT_TRUE(settings.ok());
  const db::PostgresOptions& postgres = settings->database_postgres;
  EXPECT_EQ(postgres.statement_timeout_ms, 30'000);
  EXPECT_EQ(postgres.lock_timeout_ms, 10'000);
  EXPECT_EQ(postgres.idle_in_transaction_timeout_ms, 60'000);
  EXPECT_EQ(postgres.connect_timeout_seconds, 10);
  EXPECT_TRUE(postgres.keepalives);
  EXPECT_EQ(postgres.keepalives_idle_seconds, 60);
  EXPECT_EQ(postgres.keepalives_interval_seconds, 10);
  EXPECT_EQ(postgres.keepalives_count, 5);
}

TEST(DatabaseSettings, AreReadFromTheEnvironment) {
  auto settings = LoadSettings({}, Env({{"DATABASE_STATEMENT_TIMEOUT_MS", "0"},
                                        {"DATABASE_LOCK_TIMEOUT_MS", "2500"},
                                        {"DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS", "120000"},
                                        {"DATABASE_CONNECT_TIMEOUT_SECONDS", "3"},
                                        {"DATABASE_TCP_KEEPALIVES", "false"},
                                        {"DATABASE_TCP_KEEPALIVES_IDLE_SECONDS", "30"},
                                        {"DATABASE_TCP_KEEPALIVES_INTERVAL_SECONDS", "5"},
                                        {"DATABASE_TCP_KEEPALIVES_COUNT", "3"}}));
  ASSERT_TRUE(settings.ok()) << settings.error().message;
  const db::PostgresOptions& postgres = settings->database_postgres;
  EXPECT_EQ(postgres.statement_timeout_ms, 0);
  EXPECT_EQ(postgres.lock_timeout_ms, 2500);
  EXPECT_EQ(postgres.idle_in_transaction_timeout_ms, 120'000);
  EXPECT_EQ(postgres.connect_timeout_seconds, 3);
  EXPECT_FALSE(postgres.keepalives);
  EXPECT_EQ(postgres.keepalives_idle_seconds, 30);
  EXPECT_EQ(postgres.keepalives_interval_seconds, 5);
  EXPECT_EQ(postgres.keepalives_count, 3);
}

TEST(DatabaseSettings, BadValuesNameTheirSetting) {
  auto settings = LoadSettings({}, Env({{"DATABASE_STATEMENT_TIMEOUT_MS", "-1"},
                                        {"DATABASE_LOCK_TIMEOUT_MS", "10s"},
                                        {"DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS", "99999999999"},
                                        {"DATABASE_CONNECT_TIMEOUT_SECONDS", "0"},
                                        {"DATABASE_TCP_KEEPALIVES", "yes"},
                                        {"DATABASE_TCP_KEEPALIVES_COUNT", "0"}}));
  ASSERT_FALSE(settings.ok());
  std::vector<std::string> names;
  for (const auto& error : settings.error().errors) names.push_back(error.field);
  EXPECT_EQ(names,
            (std::vector<std::string>{"DATABASE_STATEMENT_TIMEOUT_MS", "DATABASE_LOCK_TIMEOUT_MS",
                                      "DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS",
                                      "DATABASE_CONNECT_TIMEOUT_SECONDS", "DATABASE_TCP_KEEPALIVES",
                                      "DATABASE_TCP_KEEPALIVES_COUNT"}));
  EXPECT_NE(settings.error().message.find("DATABASE_LOCK_TIMEOUT_MS: must be an integer"),
            std::string::npos)
      << settings.error().message;
}

}  // namespace
}  // namespace cairn::app
