#include "auth/oauth/oauth_service.hpp"

#include <boost/json.hpp>
#include <boost/url/encode.hpp>
#include <boost/url/rfc/unreserved_chars.hpp>

#include "auth/auth_errors.hpp"
#include "auth/limits.hpp"
#include "auth/oauth/provider_http.hpp"
#include "auth/user_store.hpp"
#include "common/crypto.hpp"
#include "common/log.hpp"
#include "common/time.hpp"

namespace cairn::auth::oauth {

namespace json = boost::json;

struct OAuthService::Runtime {
  Provider provider;
  std::mutex mutex;  // guards what follows
  bool discovered = false;
  std::shared_ptr<const Jwks> keys;
  std::int64_t keys_fetched_at = 0;
};

struct OAuthService::Identity {
  std::string account_id;
  std::string email;
  bool email_verified = false;
  std::string name;
  std::optional<std::string> image;
};

namespace {

constexpr std::string_view kCallbackPath = "/api/auth/callback/";
constexpr std::string_view kCredentialProvider = "credential";
constexpr std::size_t kStateBytes = 32;
constexpr std::size_t kVerifierBytes = 32;
constexpr std::size_t kNonceBytes = 16;
// What the provider's own `error` may pass through to the app as (RFC 6749 codes are short
// lowercase words); anything else is reported as oauth_error.
constexpr std::size_t kMaxProviderErrorLength = 64;

// A failure of the callback: the `?error=` code, and what is logged.
struct Failure {
  std::string code;
  std::string detail;
};

Failure Fail(std::string code, std::string detail = {}) {
  return {std::move(code), std::move(detail)};
}

std::string WithQuery(std::string_view url, std::string_view key, std::string_view value) {
  const std::size_t hash = url.find('#');
  const std::string_view base = url.substr(0, hash);
  std::string out(base);
  out.push_back(base.find('?') == std::string_view::npos ? '?' : '&');
  out.append(key).push_back('=');
  out.append(boost::urls::encode(value, boost::urls::unreserved_chars));
  if (hash != std::string_view::npos) out.append(url.substr(hash));
  return out;
}

std::string Str(const json::object& object, std::string_view key) {
  const json::value* value = object.if_contains(key);
  if (value == nullptr) return {};
  if (value->is_string()) return std::string(value->get_string());
  if (value->is_int64()) return std::to_string(value->get_int64());
  if (value->is_uint64()) return std::to_string(value->get_uint64());
  return {};
}

// `email_verified` is a boolean, or (some providers) the string "true".
bool Verified(const json::object& object, std::string_view key) {
  const json::value* value = object.if_contains(key);
  if (value == nullptr) return false;
  if (value->is_bool()) return value->get_bool();
  return value->is_string() && value->get_string() == "true";
}

// BASE_URL as a page: "https://app.example.com/" rather than "https://app.example.com".
std::string Landing(const std::string& base_url) {
  const std::size_t authority = base_url.find("://");
  const bool has_path =
      authority != std::string::npos && base_url.find('/', authority + 3) != std::string::npos;
  return has_path ? base_url : base_url + "/";
}

bool IsProviderErrorCode(std::string_view code) {
  if (code.empty() || code.size() > kMaxProviderErrorLength) return false;
  for (const char c : code) {
    if (!((c >= 'a' && c <= 'z') || c == '_')) return false;
  }
  return true;
}

}  // namespace

OAuthService::OAuthService(db::Database& database, AuthService& auth,
                           std::vector<Provider> providers)
    : database_(database), auth_(auth) {
  for (auto& provider : providers) {
    auto runtime = std::make_unique<Runtime>();
    runtime->discovered = provider.discovery_url.empty();
    std::string name = provider.name;
    runtime->provider = std::move(provider);
    providers_.emplace(std::move(name), std::move(runtime));
  }
}

OAuthService::~OAuthService() = default;

bool OAuthService::HasProvider(std::string_view name) const {
  return Find(name) != nullptr;
}

const std::string& OAuthService::base_url() const {
  return auth_.options().base_url;
}

OAuthService::Runtime* OAuthService::Find(std::string_view name) const {
  const auto found = providers_.find(name);
  return found == providers_.end() ? nullptr : found->second.get();
}

Status OAuthService::EnsureDiscovered(Runtime& runtime) {
  {
    std::lock_guard lock(runtime.mutex);
    if (runtime.discovered) return {};
  }
  Provider& p = runtime.provider;
  CAIRN_ASSIGN_OR_RETURN(const ProviderAnswer answer, CallProvider(p.discovery_url, {}));
  CAIRN_ASSIGN_OR_RETURN(const json::object document,
                         JsonObjectAnswer(answer, p.name + " discovery"));
  // OpenID Connect Discovery 4.3: the document's issuer is exactly the configured one.
  if (Str(document, "issuer") != p.issuer) {
    return Error::Unavailable("The sign-in provider is unavailable",
                              p.name + " discovery names issuer " + Str(document, "issuer"));
  }
  std::string endpoints[3] = {Str(document, "authorization_endpoint"),
                              Str(document, "token_endpoint"), Str(document, "jwks_uri")};
  for (const std::string& url : endpoints) {
    CAIRN_TRY(CheckProviderUrl(url, p.name + " discovery endpoint"));
  }
  std::string userinfo = Str(document, "userinfo_endpoint");
  if (!userinfo.empty()) CAIRN_TRY(CheckProviderUrl(userinfo, p.name + " discovery endpoint"));
  std::lock_guard lock(runtime.mutex);
  p.userinfo_endpoint = std::move(userinfo);
  p.authorization_endpoint = std::move(endpoints[0]);
  p.token_endpoint = std::move(endpoints[1]);
  p.jwks_uri = std::move(endpoints[2]);
  runtime.discovered = true;
  return {};
}

Result<std::shared_ptr<const Jwks>> OAuthService::Keys(Runtime& runtime, bool refresh) {
  const std::int64_t now = time::NowMillis();
  std::string uri;
  {
    std::lock_guard lock(runtime.mutex);
    const std::int64_t age = now - runtime.keys_fetched_at;
    const bool fresh = runtime.keys && age < kJwksLifetimeMillis;
    if (fresh && (!refresh || age < kJwksMinRefetchMillis)) return runtime.keys;
    uri = runtime.provider.jwks_uri;
  }
  CAIRN_ASSIGN_OR_RETURN(const ProviderAnswer answer, CallProvider(uri, {}));
  if (answer.status != 200) {
    return Error::Unavailable("The sign-in provider is unavailable",
                              "JWKS answered HTTP " + std::to_string(answer.status));
  }
  CAIRN_ASSIGN_OR_RETURN(Jwks parsed, Jwks::Parse(answer.body));
  auto keys = std::make_shared<const Jwks>(std::move(parsed));
  std::lock_guard lock(runtime.mutex);
  runtime.keys = keys;
  runtime.keys_fetched_at = now;
  return keys;
}

Result<std::string> OAuthService::Authorize(const AuthorizationRequest& request) {
  Runtime* runtime = Find(request.provider);
  if (runtime == nullptr) {
    return AuthError(ErrorCode::kNotFound, "PROVIDER_NOT_FOUND", "Provider not found");
  }
  CAIRN_TRY(EnsureDiscovered(*runtime));
  const std::string state = crypto::Base64Url(crypto::RandomBytes(kStateBytes));
  PendingAuthorization pending;
  pending.provider = request.provider;
  pending.code_verifier = crypto::Base64Url(crypto::RandomBytes(kVerifierBytes));
  pending.nonce = crypto::Base64Url(crypto::RandomBytes(kNonceBytes));
  pending.callback_url = request.callback_url.empty() ? Landing(base_url()) : request.callback_url;
  pending.error_callback_url =
      request.error_callback_url.empty() ? Landing(base_url()) : request.error_callback_url;
  pending.new_user_callback_url =
      request.new_user_callback_url.empty() ? pending.callback_url : request.new_user_callback_url;
  pending.link_user_id = request.link_user_id;
  const std::int64_t now = time::NowMillis();
  pending.expires_at = now + kAuthorizationLifetimeMillis;
  CAIRN_TRY(database_.Transaction(db::Access::kWrite, [&](db::Connection& connection) -> Status {
    CAIRN_TRY(PurgeExpiredAuthorizations(connection, now));
    return InsertPendingAuthorization(connection, state, pending, now);
  }));

  Provider provider;
  {
    std::lock_guard lock(runtime->mutex);
    provider = runtime->provider;
  }
  std::string url = provider.authorization_endpoint;
  url = WithQuery(url, "response_type", "code");
  url = WithQuery(url, "client_id", provider.client_id);
  url = WithQuery(url, "redirect_uri", base_url() + std::string(kCallbackPath) + provider.name);
  url = WithQuery(url, "scope", provider.scopes);
  url = WithQuery(url, "state", state);
  url = WithQuery(url, "code_challenge", crypto::Base64Url(crypto::Sha256(pending.code_verifier)));
  url = WithQuery(url, "code_challenge_method", "S256");
  if (provider.kind == ProviderKind::kOidc) url = WithQuery(url, "nonce", pending.nonce);
  if (!request.login_hint.empty()) url = WithQuery(url, "login_hint", request.login_hint);
  return url;
}

Result<OAuthService::Identity> OAuthService::Exchange(Runtime& runtime,
                                                      const PendingAuthorization& pending,
                                                      std::string_view code) {
  Provider provider;
  {
    std::lock_guard lock(runtime.mutex);
    provider = runtime.provider;
  }
  const std::string form = FormEncode({
      {"grant_type", "authorization_code"},
      {"code", std::string(code)},
      {"redirect_uri", base_url() + std::string(kCallbackPath) + provider.name},
      {"client_id", provider.client_id},
      {"client_secret", provider.client_secret},
      {"code_verifier", pending.code_verifier},
  });
  CAIRN_ASSIGN_OR_RETURN(
      const ProviderAnswer answer,
      CallProvider(provider.token_endpoint, {{"Accept", "application/json"}}, form));
  auto tokens = JsonObjectAnswer(answer, provider.name + " token endpoint");
  // GitHub answers a bad code with 200 and {"error": …}.
  if (!tokens.ok() || tokens->contains("error")) {
    Error error = AuthError(ErrorCode::kValidation, "invalid_code", "Invalid code");
    error.detail = tokens.ok() ? "token endpoint: " + Str(*tokens, "error") : tokens.error().detail;
    return error;
  }
  if (provider.kind == ProviderKind::kGitHub) {
    const std::string access_token = Str(*tokens, "access_token");
    if (access_token.empty()) {
      return AuthError(ErrorCode::kValidation, "invalid_code", "No access token");
    }
    return IdentityFromGitHub(runtime, access_token);
  }
  const std::string id_token = Str(*tokens, "id_token");
  if (id_token.empty()) {
    Error error = AuthError(ErrorCode::kValidation, "invalid_code", "No ID token");
    error.detail = "the token endpoint sent no id_token";
    return error;
  }
  CAIRN_ASSIGN_OR_RETURN(Identity identity, IdentityFromIdToken(runtime, id_token, pending.nonce));
  const std::string access_token = Str(*tokens, "access_token");
  if (identity.email.empty() && !provider.userinfo_endpoint.empty() && !access_token.empty()) {
    CAIRN_TRY(AddUserInfo(provider, access_token, identity));
  }
  return identity;
}

Status OAuthService::AddUserInfo(const Provider& provider, std::string_view access_token,
                                 Identity& identity) {
  CAIRN_ASSIGN_OR_RETURN(const ProviderAnswer answer,
                         CallProvider(provider.userinfo_endpoint,
                                      {{"Authorization", "Bearer " + std::string(access_token)},
                                       {"Accept", "application/json"}}));
  CAIRN_ASSIGN_OR_RETURN(const json::object info,
                         JsonObjectAnswer(answer, provider.name + " userinfo"));
  // OIDC Core 5.3.2: claims of another subject must not be used.
  if (Str(info, "sub") != identity.account_id) {
    return AuthError(ErrorCode::kValidation, "unable_to_get_user_info", "userinfo sub mismatch");
  }
  identity.email = Str(info, "email");
  identity.email_verified = Verified(info, "email_verified");
  if (identity.name.empty()) identity.name = Str(info, "name");
  if (std::string picture = Str(info, "picture"); !identity.image && !picture.empty()) {
    identity.image = picture;
  }
  return {};
}

Result<OAuthService::Identity> OAuthService::IdentityFromIdToken(Runtime& runtime,
                                                                 std::string_view id_token,
                                                                 std::string_view nonce) {
  IdTokenExpectations expect;
  {
    std::lock_guard lock(runtime.mutex);
    expect.issuer = runtime.provider.issuer;
    expect.audience = runtime.provider.client_id;
  }
  if (runtime.provider.issuer_per_tenant) {
    // https://login.microsoftonline.com/{tid}/v2.0, the tenant being the token's own `tid`.
    expect.issuer_matches = [](std::string_view iss, const json::object& claims) {
      const std::string tid = Str(claims, "tid");
      return !tid.empty() && iss == "https://login.microsoftonline.com/" + tid + "/v2.0";
    };
  }
  expect.nonce = std::string(nonce);
  expect.now_seconds = time::NowMillis() / 1000;
  CAIRN_ASSIGN_OR_RETURN(auto keys, Keys(runtime, false));
  auto claims = VerifyIdToken(id_token, *keys, expect);
  if (!claims.ok() && claims.error().reason == kUnknownKeyReason) {
    // The provider may have rotated its keys since they were fetched.
    CAIRN_ASSIGN_OR_RETURN(keys, Keys(runtime, true));
    claims = VerifyIdToken(id_token, *keys, expect);
  }
  if (!claims.ok()) return claims.error();
  Identity identity;
  identity.account_id = Str(*claims, "sub");
  identity.email = Str(*claims, "email");
  identity.email_verified = Verified(*claims, "email_verified");
  identity.name = Str(*claims, "name");
  if (std::string picture = Str(*claims, "picture"); !picture.empty()) identity.image = picture;
  if (identity.account_id.empty()) {
    return AuthError(ErrorCode::kValidation, "unable_to_get_user_info", "No subject");
  }
  return identity;
}

Result<OAuthService::Identity> OAuthService::IdentityFromGitHub(Runtime& runtime,
                                                                std::string_view access_token) {
  const Provider& provider = runtime.provider;  // GitHub's endpoints are fixed at startup
  const net::NameValues headers{{"Authorization", "Bearer " + std::string(access_token)},
                                {"Accept", "application/vnd.github+json"}};
  CAIRN_ASSIGN_OR_RETURN(const ProviderAnswer user_answer,
                         CallProvider(provider.user_endpoint, headers));
  CAIRN_ASSIGN_OR_RETURN(const json::object user, JsonObjectAnswer(user_answer, "GitHub user"));
  Identity identity;
  identity.account_id = Str(user, "id");
  identity.name = Str(user, "name");
  if (identity.name.empty()) identity.name = Str(user, "login");
  if (std::string avatar = Str(user, "avatar_url"); !avatar.empty()) identity.image = avatar;
  if (identity.account_id.empty()) {
    return AuthError(ErrorCode::kValidation, "unable_to_get_user_info", "No GitHub user id");
  }
  // The primary address and whether GitHub has verified it (a user's public `email` is not).
  CAIRN_ASSIGN_OR_RETURN(const ProviderAnswer emails_answer,
                         CallProvider(provider.emails_endpoint, headers));
  boost::system::error_code ec;
  const json::value emails = json::parse(emails_answer.body, ec);
  if (emails_answer.status == 200 && !ec && emails.is_array()) {
    for (const json::value& item : emails.get_array()) {
      if (!item.is_object() || !Verified(item.get_object(), "primary")) continue;
      identity.email = Str(item.get_object(), "email");
      identity.email_verified = Verified(item.get_object(), "verified");
    }
  }
  return identity;
}

bool OAuthService::CanSignInWith(const LinkedAccount& account) const {
  if (account.provider_id == kCredentialProvider) {
    return auth_.options().config.HasStrategy("emailAndPassword");
  }
  return HasProvider(account.provider_id);
}

Result<CallbackOutcome> OAuthService::Complete(const Runtime& runtime,
                                               const PendingAuthorization& pending,
                                               const Identity& identity, const ClientInfo& client) {
  const std::string& provider = runtime.provider.name;
  const std::string email = NormalizeEmail(identity.email);
  if (email.empty()) return AuthError(ErrorCode::kValidation, "email_not_found", "No email");
  const config::AuthConfig& config = auth_.options().config;
  const std::int64_t now = time::NowMillis();
  CallbackOutcome outcome;
  CAIRN_TRY(auth_.Write([&](db::Connection& connection) -> Status {
    // From scratch: the transaction may run again (a busy database).
    outcome = CallbackOutcome{pending.callback_url, std::nullopt};
    CAIRN_ASSIGN_OR_RETURN(auto account, FindAccount(connection, provider, identity.account_id));
    LinkedAccount fresh;
    fresh.id = crypto::RandomAlphanumeric(kIdLength);
    fresh.provider_id = provider;
    fresh.account_id = identity.account_id;
    fresh.scope = runtime.provider.scopes;
    for (char& c : fresh.scope) c = c == ' ' ? ',' : c;
    fresh.created_at = fresh.updated_at = now;

    if (pending.link_user_id) {
      // link-social: the signed-in user adds this provider account.
      CAIRN_ASSIGN_OR_RETURN(auto user, FindUserById(connection, *pending.link_user_id));
      if (!user) return AuthError(ErrorCode::kNotFound, "user_not_found", "User not found");
      if (account) {
        if (account->user_id == user->id) return {};
        return AuthError(ErrorCode::kConflict, "account_already_linked_to_different_user",
                         "Account already linked to a different user");
      }
      if (email != user->email) {
        return AuthError(ErrorCode::kForbidden, "email_doesn't_match", "Email doesn't match");
      }
      fresh.user_id = user->id;
      CAIRN_TRY(InsertAccount(connection, fresh));
      json::object metadata{{"provider", provider}, {"accountId", fresh.id}};
      return AuthService::Record(connection, "account.linked", Actor{user->id, {}, client},
                                 std::move(metadata));
    }

    std::optional<User> user;
    std::string action = "sign_in";
    if (account) {
      CAIRN_ASSIGN_OR_RETURN(user, FindUserById(connection, account->user_id));
      if (!user) return AuthError(ErrorCode::kNotFound, "user_not_found", "User not found");
    } else {
      CAIRN_ASSIGN_OR_RETURN(user, FindUserByEmail(connection, email));
      if (user) {
        // D18: only a provider that vouches for the address may join an existing user.
        if (!identity.email_verified) {
          return AuthError(ErrorCode::kUnauthorized, "account_not_linked",
                           "Account not linked: the provider has not verified this email");
        }
        if (!user->email_verified) {
          user->email_verified = true;
          user->updated_at = now;
          CAIRN_TRY(UpdateUser(connection, *user));
        }
      } else {
        if (!config.allow_sign_up) {
          return AuthError(ErrorCode::kForbidden, "signup_disabled", "Sign-up is disabled");
        }
        std::string name = identity.name.empty() ? email.substr(0, email.find('@')) : identity.name;
        if (name.size() > kMaxNameLength) name.resize(kMaxNameLength);
        user = NewUser(std::move(name), email, config.default_role, now);
        user->email_verified = identity.email_verified;
        if (identity.image && identity.image->size() <= kMaxImageLength)
          user->image = identity.image;
        CAIRN_ASSIGN_OR_RETURN(const bool created,
                               InsertUserUnlessTaken(connection, *user, std::nullopt));
        if (!created) return AuthError(ErrorCode::kConflict, "unable_to_create_user", "Taken");
        action = "sign_up";
        outcome.location = pending.new_user_callback_url;
      }
      fresh.user_id = user->id;
      CAIRN_TRY(InsertAccount(connection, fresh));
    }
    if (user->banned && (!user->ban_expires || *user->ban_expires > now)) {
      return AuthError(ErrorCode::kForbidden, "banned", "Banned");
    }
    CAIRN_ASSIGN_OR_RETURN(outcome.session, auth_.CreateSession(connection, *user, client, true));
    json::object metadata{{"method", "oauth"}, {"provider", provider}};
    return AuthService::Record(connection, action, Actor{user->id, {}, client},
                               std::move(metadata));
  }));
  return outcome;
}

CallbackOutcome OAuthService::Callback(const CallbackInput& input, const ClientInfo& client) {
  const auto fail_to = [&](std::string_view url, const Failure& failure) {
    log::Info("OAuth callback for " + input.provider.substr(0, kMaxProviderErrorLength) +
              " failed: " + failure.code +
              (failure.detail.empty() ? "" : " (" + failure.detail + ")"));
    return CallbackOutcome{WithQuery(url, "error", failure.code), std::nullopt};
  };
  if (input.state.empty()) return fail_to(Landing(base_url()), Fail("state_not_found"));

  // Consumed at once, whatever follows: a state is good for one attempt.
  std::optional<PendingAuthorization> pending;
  const Status consumed =
      database_.Transaction(db::Access::kWrite, [&](db::Connection& connection) -> Status {
        CAIRN_ASSIGN_OR_RETURN(
            pending, TakePendingAuthorization(connection, input.state, time::NowMillis()));
        return {};
      });
  if (!consumed.ok())
    return fail_to(Landing(base_url()), Fail("internal_server_error", consumed.error().detail));
  if (!pending)
    return fail_to(Landing(base_url()), Fail("state_mismatch", "unknown, used or expired state"));
  const std::string& error_url = pending->error_callback_url;
  if (pending->provider != input.provider) {
    return fail_to(error_url, Fail("state_mismatch", "state of another provider"));
  }
  Runtime* runtime = Find(input.provider);
  if (runtime == nullptr) return fail_to(error_url, Fail("oauth_provider_not_found"));
  if (!input.error.empty()) {
    return fail_to(error_url, Fail(IsProviderErrorCode(input.error) ? input.error : "oauth_error"));
  }
  if (input.code.empty()) return fail_to(error_url, Fail("no_code"));

  auto identity = Exchange(*runtime, *pending, input.code);
  if (!identity.ok()) {
    const Error& error = identity.error();
    const bool coded = !error.reason.empty() && error.reason != kInvalidIdTokenReason &&
                       error.reason != kUnknownKeyReason;
    return fail_to(error_url,
                   Fail(coded ? error.reason
                              : (error.code == ErrorCode::kUnavailable ? "unable_to_get_user_info"
                                                                       : "invalid_id_token"),
                        error.detail.empty() ? error.message : error.detail));
  }
  auto outcome = Complete(*runtime, *pending, *identity, client);
  if (!outcome.ok()) {
    const Error& error = outcome.error();
    return fail_to(error_url, Fail(error.reason.empty() ? "internal_server_error" : error.reason,
                                   error.detail));
  }
  return std::move(*outcome);
}

Result<std::vector<LinkedAccount>> OAuthService::Accounts(std::string_view user_id) {
  std::vector<LinkedAccount> accounts;
  CAIRN_TRY(database_.Transaction(db::Access::kRead, [&](db::Connection& connection) -> Status {
    CAIRN_ASSIGN_OR_RETURN(accounts, ListAccounts(connection, user_id));
    return {};
  }));
  return accounts;
}

Status OAuthService::Unlink(const Actor& actor, std::string_view account_id) {
  const config::AuthConfig& config = auth_.options().config;
  // With these strategies the address itself signs the user in; accounts are not needed.
  const bool email_signs_in = config.HasStrategy("magicLink") || config.HasStrategy("emailOtp");
  return auth_.Write([&](db::Connection& connection) -> Status {
    CAIRN_ASSIGN_OR_RETURN(auto accounts, ListAccounts(connection, actor.user_id));
    const LinkedAccount* target = nullptr;
    int other_ways = 0;
    for (const auto& account : accounts) {
      if (account.id == account_id) {
        target = &account;
      } else if (CanSignInWith(account)) {
        ++other_ways;
      }
    }
    if (target == nullptr) {
      return AuthError(ErrorCode::kValidation, "ACCOUNT_NOT_FOUND", "Account not found");
    }
    if (accounts.size() == 1 || (other_ways == 0 && !email_signs_in)) {
      return AuthError(ErrorCode::kValidation, "FAILED_TO_UNLINK_LAST_ACCOUNT",
                       "You can't unlink your last account");
    }
    CAIRN_TRY(DeleteAccount(connection, actor.user_id, target->id));
    json::object metadata{{"provider", target->provider_id}, {"accountId", target->id}};
    return AuthService::Record(connection, "account.unlinked", actor, std::move(metadata));
  });
}

}  // namespace cairn::auth::oauth
