// OAuth sign-in routes (D18), Better Auth's wire format: sign-in/social, callback/{provider},
// list-accounts, link-social, unlink-account. Registered only with the oauth strategy.
#include "api/auth_route_support.hpp"
#include "api/auth_routes.hpp"
#include "api/origin_check.hpp"
#include "auth/auth_errors.hpp"
#include "auth/limits.hpp"
#include "auth/oauth/oauth_service.hpp"
#include "common/json.hpp"
#include "common/time.hpp"

namespace cairn::api {
namespace {

using namespace auth_routes;
using auth::oauth::OAuthService;
using http::Execution;
using http::Request;
using http::Response;

constexpr std::string_view kOAuthStrategy = "oauth";
constexpr std::string_view kSocialSignInPath = "sign-in/social";

constexpr const char* kSocialSignInBody = R"({"type":"object","required":["provider"],
  "properties":{"provider":{"type":"string"},"callbackURL":{"type":"string"},
  "errorCallbackURL":{"type":"string"},"newUserCallbackURL":{"type":"string"},
  "disableRedirect":{"type":"boolean"},"loginHint":{"type":"string"},"requestSignUp":{"type":"boolean"},
  "scopes":{"type":"array","items":{"type":"string"}},"idToken":{"type":"object"}}})";
constexpr const char* kLinkSocialBody = R"({"type":"object","required":["provider"],
  "properties":{"provider":{"type":"string"},"callbackURL":{"type":"string"},
  "errorCallbackURL":{"type":"string"},"disableRedirect":{"type":"boolean"},
  "loginHint":{"type":"string"},"scopes":{"type":"array","items":{"type":"string"}},
  "idToken":{"type":"object"}}})";
constexpr const char* kUnlinkBody = R"({"type":"object","required":["accountId"],
  "properties":{"accountId":{"type":"string"}}})";

class OAuthRoutes : public std::enable_shared_from_this<OAuthRoutes> {
 public:
  OAuthRoutes(OAuthService& oauth, const SessionCookies& cookies,
              std::vector<std::string> trusted_origins)
      : oauth_(oauth), cookies_(cookies), trusted_(std::move(trusted_origins)) {}

  Status Register(http::Router& router) {
    CAIRN_TRY(Add(router,
                  Spec("POST", kSocialSignInPath, "Start signing in with an OAuth provider",
                       SessionUse::kNone, kSocialSignInBody, Execution::kWorker),
                  &OAuthRoutes::SignInSocial));
    CAIRN_TRY(Add(router,
                  Spec("GET", "callback/{provider}",
                       "The provider's redirect back: sign in, then redirect to the app",
                       SessionUse::kNone, nullptr, Execution::kWorker),
                  &OAuthRoutes::Callback));
    CAIRN_TRY(Add(router,
                  Spec("GET", "list-accounts", "The caller's sign-in accounts",
                       SessionUse::kRequired, nullptr, Execution::kWorker),
                  &OAuthRoutes::ListAccounts));
    CAIRN_TRY(Add(router,
                  Spec("POST", "link-social", "Link an OAuth provider account to the caller",
                       SessionUse::kRequired, kLinkSocialBody, Execution::kWorker),
                  &OAuthRoutes::LinkSocial));
    return Add(router,
               Spec("POST", "unlink-account", "Unlink one of the caller's accounts",
                    SessionUse::kRequired, kUnlinkBody, Execution::kWorker),
               &OAuthRoutes::UnlinkAccount);
  }

 private:
  using Method = Result<Response> (OAuthRoutes::*)(Request&);
  Status Add(http::Router& router, http::RouteSpec spec, Method method) {
    return router.Add({std::move(spec), [self = shared_from_this(), method](Request& request) {
                         return ((*self).*method)(request);
                       }});
  }

  // A redirect target must stay on a trusted origin (no open redirect): a path on this server,
  // or an absolute URL whose origin is BASE_URL's or in TRUSTED_ORIGINS.
  Status CheckRedirect(const std::optional<std::string>& url, std::string_view field) const {
    if (!url || url->empty()) return {};
    const std::string& value = *url;
    const auto refuse = [&] {
      return auth::FieldFailure("INVALID_CALLBACK_URL", field,
                                "Invalid " + std::string(field) + ": not a trusted origin");
    };
    if (value.size() > auth::oauth::kMaxCallbackUrlLength) return refuse();
    for (const char c : value) {
      if (static_cast<unsigned char>(c) < 0x21 || c == '\\' || c == 0x7f) return refuse();
    }
    if (value.front() == '/') return value.starts_with("//") ? refuse() : Status{};
    const std::string origin = OriginOf(value);
    if (origin.empty()) return refuse();
    for (const auto& trusted : trusted_) {
      if (origin == trusted) return {};
    }
    return refuse();
  }

  Result<auth::oauth::AuthorizationRequest> ReadRequest(const boost::json::object& body) {
    if (body.contains("idToken")) {
      return auth::AuthError(ErrorCode::kValidation, "ID_TOKEN_NOT_SUPPORTED",
                             "Sign-in with an ID token is not supported: use the redirect flow");
    }
    auth::oauth::AuthorizationRequest request;
    request.provider = RequiredString(body, "provider");
    const auto callback = OptionalString(body, "callbackURL");
    const auto error_callback = OptionalString(body, "errorCallbackURL");
    const auto new_user = OptionalString(body, "newUserCallbackURL");
    CAIRN_TRY(CheckRedirect(callback, "callbackURL"));
    CAIRN_TRY(CheckRedirect(error_callback, "errorCallbackURL"));
    CAIRN_TRY(CheckRedirect(new_user, "newUserCallbackURL"));
    request.callback_url = callback.value_or("");
    request.error_callback_url = error_callback.value_or("");
    request.new_user_callback_url = new_user.value_or("");
    request.login_hint = OptionalString(body, "loginHint").value_or("");
    if (request.login_hint.size() > auth::oauth::kMaxLoginHintLength) {
      return auth::FieldFailure("INVALID_LOGIN_HINT", "loginHint", "loginHint is too long");
    }
    return request;
  }

  // {url, redirect} and, unless disableRedirect, the Location header (as Better Auth).
  Response AuthorizationAnswer(const std::string& url, const boost::json::object& body) {
    const bool redirect = !Flag(body, "disableRedirect", false);
    std::string out = R"({"url":)";
    json::AppendString(out, url);
    out.append(redirect ? R"(,"redirect":true})" : R"(,"redirect":false})");
    Response response = Json(std::move(out));
    if (redirect) response.SetHeader("Location", url);
    return response;
  }

  Result<Response> SignInSocial(Request& request) {
    const auto& body = Body(request);
    CAIRN_ASSIGN_OR_RETURN(auto authorization, ReadRequest(body));
    CAIRN_ASSIGN_OR_RETURN(const std::string url, oauth_.Authorize(authorization));
    return AuthorizationAnswer(url, body);
  }

  Result<Response> LinkSocial(Request& request) {
    const auth::Caller& caller = RequireCaller(request);
    const auto& body = Body(request);
    CAIRN_ASSIGN_OR_RETURN(auto authorization, ReadRequest(body));
    authorization.link_user_id = caller.user.id;
    CAIRN_ASSIGN_OR_RETURN(const std::string url, oauth_.Authorize(authorization));
    return AuthorizationAnswer(url, body);
  }

  Result<Response> Callback(Request& request) {
    const auto query = [&](std::string_view name) {
      return std::string(request.Query(name).value_or(""));
    };
    const auth::oauth::CallbackInput input{std::string(request.PathParam("provider")),
                                           query("code"), query("state"), query("error")};
    auth::oauth::CallbackOutcome outcome = oauth_.Callback(input, ClientOf(request));
    Response response = Redirect(std::move(outcome.location));
    if (outcome.session) cookies_.SetSession(response, *outcome.session);
    response.SetHeader("Cache-Control", "no-store");
    return response;
  }

  Result<Response> ListAccounts(Request& request) {
    const auth::Caller& caller = RequireCaller(request);
    CAIRN_ASSIGN_OR_RETURN(auto accounts, oauth_.Accounts(caller.user.id));
    std::string out = "[";
    for (const auto& account : accounts) {
      if (out.size() > 1) out.push_back(',');
      out.append(R"({"id":)");
      json::AppendString(out, account.id);
      out.append(R"(,"providerId":)");
      json::AppendString(out, account.provider_id);
      out.append(R"(,"accountId":)");
      json::AppendString(out, account.account_id);
      out.append(R"(,"userId":)");
      json::AppendString(out, account.user_id);
      out.append(R"(,"createdAt":")");
      time::AppendIso(out, account.created_at);
      out.append(R"(","updatedAt":")");
      time::AppendIso(out, account.updated_at);
      out.append(R"(","scopes":[)");
      std::string_view scopes = account.scope;
      bool first = true;
      while (!scopes.empty()) {
        const std::size_t comma = scopes.find(',');
        const std::string_view scope = scopes.substr(0, comma);
        if (!scope.empty()) {
          if (!first) out.push_back(',');
          json::AppendString(out, scope);
          first = false;
        }
        if (comma == std::string_view::npos) break;
        scopes.remove_prefix(comma + 1);
      }
      out.append("]}");
    }
    out.push_back(']');
    return Json(std::move(out));
  }

  Result<Response> UnlinkAccount(Request& request) {
    const auth::Caller& caller = RequireCaller(request);
    // As Better Auth's freshSessionMiddleware: a session older than a day re-authenticates.
    if (time::NowMillis() - caller.session.created_at >= auth::kMillisPerDay) {
      return auth::AuthError(ErrorCode::kForbidden, "SESSION_NOT_FRESH", "Session is not fresh");
    }
    CAIRN_TRY(oauth_.Unlink(RequireActor(request), RequiredString(Body(request), "accountId")));
    return Json(R"({"status":true})");
  }

  OAuthService& oauth_;
  const SessionCookies& cookies_;
  std::vector<std::string> trusted_;
};

}  // namespace

Status AddOAuthRoutes(http::Router& router, auth::oauth::OAuthService& oauth,
                      const SessionCookies& cookies, std::vector<std::string> trusted_origins) {
  return std::make_shared<OAuthRoutes>(oauth, cookies, std::move(trusted_origins))
      ->Register(router);
}

std::vector<std::string> OAuthSignInPaths(const config::AuthConfig& config) {
  if (!config.HasStrategy(kOAuthStrategy)) return {};
  return {std::string(kPrefix) + std::string(kSocialSignInPath)};
}

}  // namespace cairn::api
