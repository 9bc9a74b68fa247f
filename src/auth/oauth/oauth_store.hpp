// SQL for OAuth sign-in: pending authorization requests (`_cairn_auth_oauth_states`) and the
// provider accounts in `_cairn_auth_accounts`. Every function runs inside the caller's
// transaction; values are always bound.
//
// A pending request lives in the database, not in memory, so the callback may reach any
// PostgreSQL node. Its state is stored hashed (a leaked table cannot complete a sign-in); it is
// consumed by its first use. Provider tokens are not stored: cairn needs only who the user is.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "db/database.hpp"

namespace cairn::auth::oauth {

Status EnsureOAuthSchema(db::Database& database);
// The same inside the caller's schema transaction (a publish that turns the strategy on).
Status CreateOAuthSchema(db::Connection& connection);

struct PendingAuthorization {
  std::string provider;
  std::string code_verifier;  // PKCE (RFC 7636)
  std::string nonce;          // OIDC
  std::string callback_url, error_callback_url, new_user_callback_url;
  std::optional<std::string> link_user_id;  // link-social: the signed-in user
  std::int64_t expires_at = 0;
};

Status InsertPendingAuthorization(db::Connection& connection, std::string_view state,
                                  const PendingAuthorization& pending, std::int64_t now);
// The live request for this state, deleted in the same transaction (single use); nothing when
// it is unknown, used or expired.
Result<std::optional<PendingAuthorization>> TakePendingAuthorization(db::Connection& connection,
                                                                     std::string_view state,
                                                                     std::int64_t now);
Status PurgeExpiredAuthorizations(db::Connection& connection, std::int64_t now);

struct LinkedAccount {
  std::string id;
  std::string user_id;
  std::string provider_id;  // "credential" for the password
  std::string account_id;
  std::string scope;  // comma-separated, as Better Auth stores it
  std::int64_t created_at = 0;
  std::int64_t updated_at = 0;
};

Result<std::optional<LinkedAccount>> FindAccount(db::Connection& connection,
                                                 std::string_view provider_id,
                                                 std::string_view account_id);
Result<std::vector<LinkedAccount>> ListAccounts(db::Connection& connection,
                                                std::string_view user_id);
Status InsertAccount(db::Connection& connection, const LinkedAccount& account);
// Deletes the user's account with this id; the number deleted.
Result<std::int64_t> DeleteAccount(db::Connection& connection, std::string_view user_id,
                                   std::string_view id);

}  // namespace cairn::auth::oauth
