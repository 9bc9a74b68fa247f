// The organization tables and the sessions' active_organization_id on a database whose auth
// tables were made before organizations existed: EnsureAuthSchema adds the column, keeps the
// sessions, and is idempotent (both backends).
#include <gtest/gtest.h>

#include "auth/auth_schema.hpp"
#include "db/dialect.hpp"
#include "db/introspection.hpp"
#include "support/test_database.hpp"

namespace cairn::test {
namespace {

db::LiveSchema ReadSchema(db::Database& database) {
  db::LiveSchema live;
  const Status read = database.Transaction(db::Access::kRead, [&](db::Connection& connection) {
    auto schema = connection.dialect().introspector().Read(connection);
    if (!schema.ok()) return Status(schema.error());
    live = std::move(schema.value());
    return Status();
  });
  EXPECT_TRUE(read.ok());
  return live;
}

TEST(OrganizationSchemaTest, OlderSessionsTablesGainTheColumn) {
  auto created = TestDatabase::Create();
  ASSERT_TRUE(created.ok()) << created.error().detail;
  db::Database& database = (*created)->db();
  // The sessions table as the auth core made it, with one session in it.
  ASSERT_TRUE(database
                  .Transaction(db::Access::kSchema,
                               [](db::Connection& connection) {
                                 return connection.ExecuteScript(R"SQL(
CREATE TABLE "_cairn_auth_users" ("id" TEXT PRIMARY KEY, "name" TEXT NOT NULL,
  "email" TEXT NOT NULL, "email_verified" INTEGER NOT NULL DEFAULT 0, "image" TEXT,
  "role" TEXT NOT NULL, "banned" INTEGER NOT NULL DEFAULT 0, "ban_reason" TEXT,
  "ban_expires" BIGINT, "two_factor_enabled" INTEGER NOT NULL DEFAULT 0,
  "created_at" BIGINT NOT NULL, "updated_at" BIGINT NOT NULL);
CREATE TABLE "_cairn_auth_sessions" ("id" TEXT PRIMARY KEY, "token_hash" TEXT NOT NULL,
  "user_id" TEXT NOT NULL REFERENCES "_cairn_auth_users" ("id") ON DELETE CASCADE,
  "expires_at" BIGINT NOT NULL, "remember" INTEGER NOT NULL DEFAULT 1, "ip_address" TEXT,
  "user_agent" TEXT, "impersonated_by" TEXT, "created_at" BIGINT NOT NULL,
  "updated_at" BIGINT NOT NULL);
INSERT INTO "_cairn_auth_users" ("id", "name", "email", "role", "created_at", "updated_at")
  VALUES ('u1', 'U', 'u@example.com', 'member', 1, 1);
INSERT INTO "_cairn_auth_sessions" ("id", "token_hash", "user_id", "expires_at", "created_at",
  "updated_at") VALUES ('s1', 'h1', 'u1', 2, 1, 1);
)SQL");
                               })
                  .ok());
  ASSERT_TRUE(auth::EnsureAuthSchema(database).ok());
  ASSERT_TRUE(auth::EnsureAuthSchema(database).ok());  // a second start changes nothing

  const db::LiveSchema live = ReadSchema(database);
  const db::LiveTable* sessions = live.FindTable("_cairn_auth_sessions");
  ASSERT_NE(sessions, nullptr);
  EXPECT_NE(sessions->FindColumn("active_organization_id"), nullptr);
  EXPECT_NE(sessions->FindIndex("_cairn_auth_sessions_organization"), nullptr);
  for (const char* table :
       {"_cairn_auth_organizations", "_cairn_auth_members", "_cairn_auth_invitations"}) {
    EXPECT_NE(live.FindTable(table), nullptr) << table;
  }
  std::int64_t kept = 0;
  ASSERT_TRUE(database
                  .Transaction(db::Access::kRead,
                               [&](db::Connection& connection) -> Status {
                                 CAIRN_TRY(connection.Execute(
                                     R"(SELECT COUNT(*) FROM "_cairn_auth_sessions" )"
                                     R"(WHERE "id" = 's1' AND "active_organization_id" IS NULL)",
                                     {}, [&](const db::Row& row) { kept = row.GetInt64(0); }));
                                 return {};
                               })
                  .ok());
  EXPECT_EQ(kept, 1);
}

}  // namespace
}  // namespace cairn::test
