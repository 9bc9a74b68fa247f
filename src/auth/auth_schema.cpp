#include "auth/auth_schema.hpp"

#include "activity/activity_schema.hpp"
#include "common/crypto.hpp"

namespace cairn::auth {
namespace {

// Types chosen to mean the same on both databases: times are epoch milliseconds (BIGINT),
// flags are 0/1 integers, ids are random text.
constexpr const char* kSchemaSql = R"SQL(
CREATE TABLE IF NOT EXISTS "_cairn_auth_users" (
  "id" TEXT PRIMARY KEY,
  "name" TEXT NOT NULL,
  "email" TEXT NOT NULL,
  "email_verified" INTEGER NOT NULL DEFAULT 0,
  "image" TEXT,
  "role" TEXT NOT NULL,
  "banned" INTEGER NOT NULL DEFAULT 0,
  "ban_reason" TEXT,
  "ban_expires" BIGINT,
  "two_factor_enabled" INTEGER NOT NULL DEFAULT 0,
  "created_at" BIGINT NOT NULL,
  "updated_at" BIGINT NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS "_cairn_auth_users_email" ON "_cairn_auth_users" ("email");
CREATE INDEX IF NOT EXISTS "_cairn_auth_users_created" ON "_cairn_auth_users" ("created_at");

CREATE TABLE IF NOT EXISTS "_cairn_auth_sessions" (
  "id" TEXT PRIMARY KEY,
  "token_hash" TEXT NOT NULL,
  "user_id" TEXT NOT NULL REFERENCES "_cairn_auth_users" ("id") ON DELETE CASCADE,
  "expires_at" BIGINT NOT NULL,
  "remember" INTEGER NOT NULL DEFAULT 1,
  "ip_address" TEXT,
  "user_agent" TEXT,
  "impersonated_by" TEXT,
  "created_at" BIGINT NOT NULL,
  "updated_at" BIGINT NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS "_cairn_auth_sessions_token" ON "_cairn_auth_sessions" ("token_hash");
CREATE INDEX IF NOT EXISTS "_cairn_auth_sessions_user" ON "_cairn_auth_sessions" ("user_id");

CREATE TABLE IF NOT EXISTS "_cairn_auth_accounts" (
  "id" TEXT PRIMARY KEY,
  "user_id" TEXT NOT NULL REFERENCES "_cairn_auth_users" ("id") ON DELETE CASCADE,
  "provider_id" TEXT NOT NULL,
  "account_id" TEXT NOT NULL,
  "password" TEXT,
  "access_token" TEXT,
  "refresh_token" TEXT,
  "id_token" TEXT,
  "access_token_expires_at" BIGINT,
  "refresh_token_expires_at" BIGINT,
  "scope" TEXT,
  "created_at" BIGINT NOT NULL,
  "updated_at" BIGINT NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS "_cairn_auth_accounts_provider" ON "_cairn_auth_accounts" ("provider_id", "account_id");
CREATE INDEX IF NOT EXISTS "_cairn_auth_accounts_user" ON "_cairn_auth_accounts" ("user_id");

CREATE TABLE IF NOT EXISTS "_cairn_auth_verifications" (
  "id" TEXT PRIMARY KEY,
  "token_hash" TEXT NOT NULL,
  "purpose" TEXT NOT NULL,
  "user_id" TEXT NOT NULL REFERENCES "_cairn_auth_users" ("id") ON DELETE CASCADE,
  "value" TEXT,
  "expires_at" BIGINT NOT NULL,
  "created_at" BIGINT NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS "_cairn_auth_verifications_token" ON "_cairn_auth_verifications" ("token_hash");
CREATE INDEX IF NOT EXISTS "_cairn_auth_verifications_user" ON "_cairn_auth_verifications" ("user_id", "purpose");

-- Magic links and email one-time codes (D19), keyed by address: the address may have no account
-- yet. secret_hash is an HMAC of the link token or code under the auth secret.
CREATE TABLE IF NOT EXISTS "_cairn_auth_email_codes" (
  "id" TEXT PRIMARY KEY,
  "purpose" TEXT NOT NULL,
  "email" TEXT NOT NULL,
  "secret_hash" TEXT NOT NULL,
  "value" TEXT,
  "attempts" INTEGER NOT NULL DEFAULT 0,
  "expires_at" BIGINT NOT NULL,
  "created_at" BIGINT NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS "_cairn_auth_email_codes_email" ON "_cairn_auth_email_codes" ("email", "purpose");
CREATE INDEX IF NOT EXISTS "_cairn_auth_email_codes_secret" ON "_cairn_auth_email_codes" ("secret_hash");
-- Two-factor (D19): the TOTP secret and backup codes, sealed with a key derived from the auth
-- secret (secret_box.hpp); last_totp_step refuses a code's second use on every node.
CREATE TABLE IF NOT EXISTS "_cairn_auth_two_factor" (
  "user_id" TEXT PRIMARY KEY REFERENCES "_cairn_auth_users" ("id") ON DELETE CASCADE,
  "secret" TEXT NOT NULL,
  "backup_codes" TEXT NOT NULL,
  "verified" INTEGER NOT NULL DEFAULT 0,
  "last_totp_step" BIGINT,
  "created_at" BIGINT NOT NULL,
  "updated_at" BIGINT NOT NULL
);
-- D19a: accounts whose owner asked for erasure; the purge job erases them after the grace period.
CREATE TABLE IF NOT EXISTS "_cairn_auth_deletions" (
  "user_id" TEXT PRIMARY KEY REFERENCES "_cairn_auth_users" ("id") ON DELETE CASCADE,
  "requested_at" BIGINT NOT NULL
);
CREATE INDEX IF NOT EXISTS "_cairn_auth_deletions_requested" ON "_cairn_auth_deletions" ("requested_at");

CREATE TABLE IF NOT EXISTS "_cairn_secrets" (
  "name" TEXT PRIMARY KEY,
  "value" TEXT NOT NULL
);
)SQL";

}  // namespace

Status EnsureAuthSchema(db::Database& database) {
  CAIRN_TRY(database.Transaction(db::Access::kSchema, [&](db::Connection& connection) -> Status {
    if (auto lock = connection.dialect().MigrationLockSql()) {
      CAIRN_TRY(connection.Execute(*lock, {}));
    }
    return connection.ExecuteScript(kSchemaSql);
  }));
  // Auth writes its events to the activity log, also from `cairn admin create`.
  return activity::EnsureActivitySchema(database);
}

Result<std::string> LoadOrCreateSecret(db::Database& database) {
  std::string secret;
  CAIRN_TRY(database.Transaction(db::Access::kWrite, [&](db::Connection& connection) -> Status {
    const std::string candidate = crypto::Base64Url(crypto::RandomBytes(32));
    CAIRN_TRY(
        connection.Execute(R"(INSERT INTO "_cairn_secrets" ("name", "value") VALUES ('auth', ?) )"
                           R"(ON CONFLICT ("name") DO NOTHING)",
                           {std::string_view(candidate)}));
    CAIRN_TRY(connection.Execute(R"(SELECT "value" FROM "_cairn_secrets" WHERE "name" = 'auth')",
                                 {}, [&](const db::Row& row) { secret = row.GetText(0); }));
    return {};
  }));
  return secret;
}

}  // namespace cairn::auth
