#include "auth/oauth/oauth_store.hpp"

#include "common/crypto.hpp"

namespace cairn::auth::oauth {
namespace {

constexpr const char* kSchemaSql = R"SQL(
CREATE TABLE IF NOT EXISTS "_cairn_auth_oauth_states" (
  "state_hash" TEXT PRIMARY KEY,
  "provider" TEXT NOT NULL,
  "code_verifier" TEXT NOT NULL,
  "nonce" TEXT NOT NULL,
  "callback_url" TEXT NOT NULL,
  "error_callback_url" TEXT NOT NULL,
  "new_user_callback_url" TEXT NOT NULL,
  "link_user_id" TEXT REFERENCES "_cairn_auth_users" ("id") ON DELETE CASCADE,
  "expires_at" BIGINT NOT NULL,
  "created_at" BIGINT NOT NULL
);
CREATE INDEX IF NOT EXISTS "_cairn_auth_oauth_states_expires" ON "_cairn_auth_oauth_states" ("expires_at");
)SQL";

constexpr const char* kAccountColumns =
    R"("id", "user_id", "provider_id", "account_id", "scope", "created_at", "updated_at")";

LinkedAccount ReadAccount(const db::Row& row) {
  LinkedAccount account;
  account.id = std::string(row.GetText(0));
  account.user_id = std::string(row.GetText(1));
  account.provider_id = std::string(row.GetText(2));
  account.account_id = std::string(row.GetText(3));
  if (!row.IsNull(4)) account.scope = std::string(row.GetText(4));
  account.created_at = row.GetInt64(5);
  account.updated_at = row.GetInt64(6);
  return account;
}

std::string StateHash(std::string_view state) {
  return crypto::Sha256Hex(state);
}

}  // namespace

Status EnsureOAuthSchema(db::Database& database) {
  return database.Transaction(db::Access::kSchema, [&](db::Connection& connection) -> Status {
    if (auto lock = connection.dialect().MigrationLockSql()) {
      CAIRN_TRY(connection.Execute(*lock, {}));
    }
    return CreateOAuthSchema(connection);
  });
}

Status CreateOAuthSchema(db::Connection& connection) {
  return connection.ExecuteScript(kSchemaSql);
}

Status InsertPendingAuthorization(db::Connection& connection, std::string_view state,
                                  const PendingAuthorization& pending, std::int64_t now) {
  const std::string hash = StateHash(state);
  db::Value link = db::Null{};
  if (pending.link_user_id) link = std::string_view(*pending.link_user_id);
  CAIRN_TRY(connection.Execute(
      R"(INSERT INTO "_cairn_auth_oauth_states" ("state_hash", "provider", "code_verifier", )"
      R"("nonce", "callback_url", "error_callback_url", "new_user_callback_url", )"
      R"("link_user_id", "expires_at", "created_at") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?))",
      {std::string_view(hash), std::string_view(pending.provider),
       std::string_view(pending.code_verifier), std::string_view(pending.nonce),
       std::string_view(pending.callback_url), std::string_view(pending.error_callback_url),
       std::string_view(pending.new_user_callback_url), link, pending.expires_at, now}));
  return {};
}

Result<std::optional<PendingAuthorization>> TakePendingAuthorization(db::Connection& connection,
                                                                     std::string_view state,
                                                                     std::int64_t now) {
  const std::string hash = StateHash(state);
  std::optional<PendingAuthorization> found;
  CAIRN_TRY(connection.Execute(
      R"(SELECT "provider", "code_verifier", "nonce", "callback_url", "error_callback_url", )"
      R"("new_user_callback_url", "link_user_id", "expires_at" )"
      R"(FROM "_cairn_auth_oauth_states" WHERE "state_hash" = ?)",
      {std::string_view(hash)}, [&](const db::Row& row) {
        PendingAuthorization pending;
        pending.provider = std::string(row.GetText(0));
        pending.code_verifier = std::string(row.GetText(1));
        pending.nonce = std::string(row.GetText(2));
        pending.callback_url = std::string(row.GetText(3));
        pending.error_callback_url = std::string(row.GetText(4));
        pending.new_user_callback_url = std::string(row.GetText(5));
        if (!row.IsNull(6)) pending.link_user_id = std::string(row.GetText(6));
        pending.expires_at = row.GetInt64(7);
        found = std::move(pending);
      }));
  if (!found) return found;
  // Whoever deletes the row owns it: a concurrent replay on another node deletes nothing.
  CAIRN_ASSIGN_OR_RETURN(
      const std::int64_t deleted,
      connection.Execute(R"(DELETE FROM "_cairn_auth_oauth_states" WHERE "state_hash" = ?)",
                         {std::string_view(hash)}));
  if (deleted != 1 || found->expires_at <= now) return std::optional<PendingAuthorization>();
  return found;
}

Status PurgeExpiredAuthorizations(db::Connection& connection, std::int64_t now) {
  CAIRN_TRY(connection.Execute(R"(DELETE FROM "_cairn_auth_oauth_states" WHERE "expires_at" <= ?)",
                               {now}));
  return {};
}

Result<std::optional<LinkedAccount>> FindAccount(db::Connection& connection,
                                                 std::string_view provider_id,
                                                 std::string_view account_id) {
  std::optional<LinkedAccount> found;
  CAIRN_TRY(connection.Execute(
      std::string("SELECT ") + kAccountColumns +
          R"( FROM "_cairn_auth_accounts" WHERE "provider_id" = ? AND "account_id" = ?)",
      {provider_id, account_id}, [&](const db::Row& row) { found = ReadAccount(row); }));
  return found;
}

Result<std::vector<LinkedAccount>> ListAccounts(db::Connection& connection,
                                                std::string_view user_id) {
  std::vector<LinkedAccount> out;
  CAIRN_TRY(connection.Execute(
      std::string("SELECT ") + kAccountColumns +
          R"( FROM "_cairn_auth_accounts" WHERE "user_id" = ? ORDER BY "created_at", "id")",
      {user_id}, [&](const db::Row& row) { out.push_back(ReadAccount(row)); }));
  return out;
}

Status InsertAccount(db::Connection& connection, const LinkedAccount& account) {
  CAIRN_TRY(connection.Execute(
      R"(INSERT INTO "_cairn_auth_accounts" ("id", "user_id", "provider_id", "account_id", )"
      R"("scope", "created_at", "updated_at") VALUES (?, ?, ?, ?, ?, ?, ?))",
      {std::string_view(account.id), std::string_view(account.user_id),
       std::string_view(account.provider_id), std::string_view(account.account_id),
       std::string_view(account.scope), account.created_at, account.updated_at}));
  return {};
}

Result<std::int64_t> DeleteAccount(db::Connection& connection, std::string_view user_id,
                                   std::string_view id) {
  return connection.Execute(
      R"(DELETE FROM "_cairn_auth_accounts" WHERE "id" = ? AND "user_id" = ?)", {id, user_id});
}

}  // namespace cairn::auth::oauth
