// OAuth sign-in (D18): the authorization code flow with `state` and PKCE (S256), a nonce for
// OpenID Connect providers, ID tokens verified against the provider's JWKS, and the accounts
// that tie a provider's user to a cairn user. No HTTP types: api/oauth_api.cpp maps Better
// Auth's routes onto it.
//
// Linking: a provider account is added to an existing user found by email only when the
// provider says the address is verified; link-social adds one to the signed-in user when the
// provider's address is that user's.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "auth/auth_service.hpp"
#include "auth/oauth/id_token.hpp"
#include "auth/oauth/oauth_store.hpp"
#include "auth/oauth/providers.hpp"

namespace cairn::auth::oauth {

// A pending authorization request lives 10 minutes (D18).
inline constexpr std::int64_t kAuthorizationLifetimeMillis = 10LL * 60 * 1000;
// A provider's key set is refetched after an hour, or sooner for a token signed by an unknown
// key, but not more often than once a minute (a forged kid cannot make cairn hammer the
// provider).
inline constexpr std::int64_t kJwksLifetimeMillis = 60LL * 60 * 1000;
inline constexpr std::int64_t kJwksMinRefetchMillis = 60LL * 1000;
// Bounds on the sign-in/social inputs.
inline constexpr std::size_t kMaxCallbackUrlLength = 2048;
inline constexpr std::size_t kMaxLoginHintLength = 256;

struct AuthorizationRequest {
  std::string provider;
  std::string callback_url;           // where to go after sign-in (default BASE_URL)
  std::string error_callback_url;     // where failures go (default BASE_URL)
  std::string new_user_callback_url;  // a new user's first landing (default callback_url)
  std::optional<std::string> link_user_id;
  std::string login_hint;
};

// Where the browser goes after the callback, and the session to set when it signed in.
struct CallbackOutcome {
  std::string location;
  std::optional<IssuedSession> session;
};

struct CallbackInput {
  std::string provider;
  std::string code, state, error;  // the query the provider sent back
};

class OAuthService {
 public:
  OAuthService(db::Database& database, AuthService& auth, std::vector<Provider> providers);
  ~OAuthService();

  bool HasProvider(std::string_view name) const;
  const std::string& base_url() const;

  // The provider's authorization URL for a new pending request.
  Result<std::string> Authorize(const AuthorizationRequest& request);
  // Never fails: any failure is a redirect to the request's error URL (or BASE_URL) with
  // `?error=<code>`.
  CallbackOutcome Callback(const CallbackInput& input, const ClientInfo& client);

  Result<std::vector<LinkedAccount>> Accounts(std::string_view user_id);
  // Refused when the account is the user's last way to sign in.
  Status Unlink(const Actor& actor, std::string_view account_id);

 private:
  struct Runtime;  // a provider with its discovered endpoints and cached keys
  struct Identity;
  Runtime* Find(std::string_view name) const;
  Status EnsureDiscovered(Runtime& runtime);
  Result<std::shared_ptr<const Jwks>> Keys(Runtime& runtime, bool refresh);
  Result<Identity> Exchange(Runtime& runtime, const PendingAuthorization& pending,
                            std::string_view code);
  Result<Identity> IdentityFromIdToken(Runtime& runtime, std::string_view id_token,
                                       std::string_view nonce);
  // The userinfo endpoint's address (and name, picture) for an ID token that has none.
  Status AddUserInfo(const Provider& provider, std::string_view access_token, Identity& identity);
  Result<Identity> IdentityFromGitHub(Runtime& runtime, std::string_view access_token);
  // The callback after the code is exchanged: signs in, signs up or links.
  Result<CallbackOutcome> Complete(const Runtime& runtime, const PendingAuthorization& pending,
                                   const Identity& identity, const ClientInfo& client);
  bool CanSignInWith(const LinkedAccount& account) const;

  db::Database& database_;
  AuthService& auth_;
  std::map<std::string, std::unique_ptr<Runtime>, std::less<>> providers_;
};

}  // namespace cairn::auth::oauth
