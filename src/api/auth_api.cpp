// The user-facing /api/auth routes (D10–D12). Shapes follow Better Auth so its client works
// unchanged; errors use our envelope with Better Auth's reason in `error`.
#include <boost/url/encode.hpp>
#include <boost/url/rfc/unreserved_chars.hpp>

#include "api/auth_route_support.hpp"
#include "api/auth_routes.hpp"
#include "api/two_factor_api.hpp"
#include "auth/auth_errors.hpp"
#include "auth/auth_service.hpp"
#include "common/json.hpp"

namespace cairn::api {
namespace {

using namespace auth_routes;
using http::Execution;
using http::Request;
using http::Response;

constexpr std::string_view kPasswordStrategy = "emailAndPassword";
constexpr std::string_view kSignUpPath = "sign-up/email";
constexpr std::string_view kSignInPath = "sign-in/email";

constexpr const char* kSignUpBody = R"({"type":"object","required":["name","email","password"],
  "properties":{"name":{"type":"string"},"email":{"type":"string"},"password":{"type":"string"},
  "image":{"type":["string","null"]},"callbackURL":{"type":"string"},"rememberMe":{"type":"boolean"}}})";
constexpr const char* kSignInBody = R"({"type":"object","required":["email","password"],
  "properties":{"email":{"type":"string"},"password":{"type":"string"},
  "rememberMe":{"type":"boolean"},"callbackURL":{"type":"string"}}})";
constexpr const char* kTokenBody = R"({"type":"object","required":["token"],
  "properties":{"token":{"type":"string"}}})";
constexpr const char* kUpdateUserBody = R"({"type":"object",
  "properties":{"name":{"type":"string"},"image":{"type":["string","null"]}}})";
constexpr const char* kChangePasswordBody = R"({"type":"object",
  "required":["currentPassword","newPassword"],
  "properties":{"currentPassword":{"type":"string"},"newPassword":{"type":"string"},
  "revokeOtherSessions":{"type":"boolean"}}})";
constexpr const char* kChangeEmailBody = R"({"type":"object","required":["newEmail"],
  "properties":{"newEmail":{"type":"string"},"callbackURL":{"type":"string"}}})";
constexpr const char* kDeleteUserBody = R"({"type":"object",
  "properties":{"password":{"type":"string"},"callbackURL":{"type":"string"}}})";
constexpr const char* kResetRequestBody = R"({"type":"object","required":["email"],
  "properties":{"email":{"type":"string"},"redirectTo":{"type":"string"}}})";
constexpr const char* kResetPasswordBody = R"({"type":"object","required":["newPassword"],
  "properties":{"newPassword":{"type":"string"},"token":{"type":"string"}}})";
constexpr const char* kVerificationBody = R"({"type":"object","required":["email"],
  "properties":{"email":{"type":"string"},"callbackURL":{"type":"string"}}})";

// `url` with one more query parameter (before any fragment).
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

class AuthRoutes : public std::enable_shared_from_this<AuthRoutes> {
 public:
  AuthRoutes(auth::AuthService& auth, const SessionCookies& cookies,
             auth::TwoFactorService* two_factor)
      : auth_(auth), cookies_(cookies), two_factor_(two_factor) {}

  Status Register(http::Router& router) {
    // Without the password strategy no one signs in, signs up or resets with a password: those
    // routes do not exist (404), so a config that offers only other strategies serves none.
    if (auth_.options().config.HasStrategy(kPasswordStrategy)) CAIRN_TRY(AddPasswordRoutes(router));
    CAIRN_TRY(Add(router,
                  Spec("POST", "sign-out", "End the current session", SessionUse::kOptional),
                  &AuthRoutes::SignOut));
    CAIRN_TRY(Add(
        router,
        Spec("GET", "get-session", "The current session and user, or null", SessionUse::kOptional),
        &AuthRoutes::GetSession));
    CAIRN_TRY(Add(router,
                  Spec("GET", "list-sessions", "The caller's live sessions", SessionUse::kRequired),
                  &AuthRoutes::ListSessions));
    CAIRN_TRY(Add(router,
                  Spec("POST", "revoke-session", "End one of the caller's sessions",
                       SessionUse::kRequired, kTokenBody),
                  &AuthRoutes::RevokeSession));
    CAIRN_TRY(Add(
        router,
        Spec("POST", "revoke-sessions", "End all of the caller's sessions", SessionUse::kRequired),
        &AuthRoutes::RevokeSessions));
    CAIRN_TRY(Add(router,
                  Spec("POST", "revoke-other-sessions",
                       "End the caller's sessions but the current one", SessionUse::kRequired),
                  &AuthRoutes::RevokeOtherSessions));
    CAIRN_TRY(Add(router,
                  Spec("POST", "update-user", "Change the caller's name or image",
                       SessionUse::kRequired, kUpdateUserBody),
                  &AuthRoutes::UpdateUser));
    CAIRN_TRY(Add(router,
                  Spec("POST", "change-email", "Change the caller's email address",
                       SessionUse::kRequired, kChangeEmailBody, Execution::kWorker),
                  &AuthRoutes::ChangeEmail));
    CAIRN_TRY(Add(router,
                  Spec("POST", "delete-user", "Schedule the erasure of the caller's account",
                       SessionUse::kRequired, kDeleteUserBody, Execution::kWorker),
                  &AuthRoutes::DeleteUser));
    CAIRN_TRY(Add(router,
                  Spec("POST", "send-verification-email", "Mail a verification link",
                       SessionUse::kNone, kVerificationBody, Execution::kWorker),
                  &AuthRoutes::SendVerificationEmail));
    CAIRN_TRY(Add(router,
                  Spec("GET", "verify-email", "Follow a verification link", SessionUse::kNone),
                  &AuthRoutes::VerifyEmail));
    return {};
  }

 private:
  // The emailAndPassword strategy's routes.
  Status AddPasswordRoutes(http::Router& router) {
    CAIRN_TRY(Add(router,
                  Spec("POST", kSignUpPath, "Create an account with email and password",
                       SessionUse::kNone, kSignUpBody, Execution::kWorker),
                  &AuthRoutes::SignUp));
    CAIRN_TRY(Add(router,
                  Spec("POST", kSignInPath, "Sign in with email and password", SessionUse::kNone,
                       kSignInBody, Execution::kWorker),
                  &AuthRoutes::SignIn));
    CAIRN_TRY(Add(router,
                  Spec("POST", "change-password", "Change the caller's password",
                       SessionUse::kRequired, kChangePasswordBody, Execution::kWorker),
                  &AuthRoutes::ChangePassword));
    CAIRN_TRY(Add(router,
                  Spec("POST", "request-password-reset", "Mail a password reset link",
                       SessionUse::kNone, kResetRequestBody, Execution::kWorker),
                  &AuthRoutes::RequestPasswordReset));
    CAIRN_TRY(
        Add(router,
            Spec("GET", "reset-password/{token}",
                 "Follow a reset link: redirect to the app with the token", SessionUse::kNone),
            &AuthRoutes::ResetPasswordCallback));
    return Add(router,
               Spec("POST", "reset-password", "Set a new password with a reset token",
                    SessionUse::kNone, kResetPasswordBody, Execution::kWorker),
               &AuthRoutes::ResetPassword);
  }

  using Method = Result<Response> (AuthRoutes::*)(Request&);
  Status Add(http::Router& router, http::RouteSpec spec, Method method) {
    // Each closure shares ownership, so the handlers live as long as the router.
    return router.Add({std::move(spec), [self = shared_from_this(), method](Request& request) {
                         return ((*self).*method)(request);
                       }});
  }

  // {token, user} (+ redirect fields for sign-in) and the session cookie.
  Response SessionIssued(const auth::User& user, const auth::IssuedSession& issued,
                         std::string_view prefix) {
    std::string body(prefix);
    body.append(R"("token":)");
    json::AppendString(body, issued.token);
    body.append(R"(,"user":)");
    AppendUser(body, user);
    body.push_back('}');
    Response response = Json(std::move(body));
    cookies_.SetSession(response, issued);
    return response;
  }

  Result<Response> SignUp(Request& request) {
    const auto& body = Body(request);
    auth::SignUpInput input;
    input.name = RequiredString(body, "name");
    input.email = RequiredString(body, "email");
    input.password = RequiredString(body, "password");
    input.image = OptionalString(body, "image");
    input.callback_url = OptionalString(body, "callbackURL").value_or("");
    input.remember = Flag(body, "rememberMe", true);
    CAIRN_ASSIGN_OR_RETURN(auto result, auth_.SignUp(input, ClientOf(request)));
    if (result.session) return SessionIssued(result.user, *result.session, "{");
    std::string out = R"({"token":null,"user":)";
    AppendUser(out, result.user);
    out.push_back('}');
    return Json(std::move(out));
  }

  Result<Response> SignIn(Request& request) {
    const auto& body = Body(request);
    const auto callback = OptionalString(body, "callbackURL");
    if (callback) {
      CAIRN_TRY(auth::CheckCallbackUrl(*callback, auth_.options().base_url, "callbackURL"));
    }
    // With two-factor on, a user who needs a second factor gets a challenge, not a session.
    std::optional<TwoFactorSignIn> two_factor;
    auth::SecondFactorGate gate;
    if (two_factor_ != nullptr) {
      gate = two_factor.emplace(*two_factor_, auth_.codec(), cookies_, request).Gate();
    }
    CAIRN_ASSIGN_OR_RETURN(
        auto result, auth_.SignIn(RequiredString(body, "email"), RequiredString(body, "password"),
                                  Flag(body, "rememberMe", true), ClientOf(request),
                                  callback.value_or(""), gate));
    if (result.two_factor_challenge) {
      return two_factor->ChallengeAnswer(result.user.id, *result.two_factor_challenge);
    }
    // Better Auth sends `url` only with a callbackURL.
    std::string prefix = callback ? R"({"redirect":true,"url":)" : R"({"redirect":false)";
    if (callback) json::AppendString(prefix, *callback);
    prefix.push_back(',');
    Response response = SessionIssued(result.user, result.session, prefix);
    if (callback) response.SetHeader("Location", *callback);
    if (two_factor) two_factor->Finish(response);
    return response;
  }

  Result<Response> SignOut(Request& request) {
    if (const auth::Caller* caller = CallerOf(request)) {
      CAIRN_TRY(auth_.SignOut(*caller, ClientOf(request)));
    }
    Response response = Json(R"({"success":true})");
    cookies_.Clear(response, kSessionCookie);
    return response;
  }

  Result<Response> GetSession(Request& request) {
    const auth::Caller* caller = CallerOf(request);
    Response response =
        caller ? Json(SessionAndUser(caller->session, caller->token, caller->user)) : Json("null");
    response.SetHeader("Cache-Control", "no-store");
    return response;
  }

  Result<Response> ListSessions(Request& request) {
    const auth::Caller& caller = RequireCaller(request);
    CAIRN_ASSIGN_OR_RETURN(auto sessions, auth_.ListSessions(caller.user.id));
    std::string out = "[";
    for (const auto& view : sessions) {
      // As Better Auth's admin plugin does: impersonation sessions are not the user's own.
      if (view.session.impersonated_by) continue;
      if (out.size() > 1) out.push_back(',');
      const bool own = view.session.id == caller.session.id;
      AppendSession(out, view.session, own ? std::string_view(caller.token) : view.token_hash);
    }
    out.push_back(']');
    return Json(std::move(out));
  }

  Result<Response> RevokeSession(Request& request) {
    const auth::Caller& caller = RequireCaller(request);
    const std::string token = RequiredString(Body(request), "token");
    CAIRN_TRY(auth_.RevokeSession(RequireActor(request), caller.user.id, token));
    Response response = StatusTrue();
    if (token == caller.token || token == auth::SessionTokenCodec::Hash(caller.token)) {
      cookies_.Clear(response, kSessionCookie);
    }
    return response;
  }

  Result<Response> RevokeSessions(Request& request) {
    const auth::Caller& caller = RequireCaller(request);
    CAIRN_TRY(auth_.RevokeSessions(RequireActor(request), caller.user.id, std::nullopt));
    Response response = StatusTrue();
    cookies_.Clear(response, kSessionCookie);
    return response;
  }

  Result<Response> RevokeOtherSessions(Request& request) {
    const auth::Caller& caller = RequireCaller(request);
    CAIRN_TRY(auth_.RevokeSessions(RequireActor(request), caller.user.id, caller.session.id));
    return StatusTrue();
  }

  Result<Response> UpdateUser(Request& request) {
    const auth::Caller& caller = RequireCaller(request);
    const auto& body = Body(request);
    if (body.contains("email")) {
      return auth::FieldFailure("EMAIL_CAN_NOT_BE_UPDATED", "email",
                                "Email can not be updated: use change-email");
    }
    // Better Auth's admin fields are `input: false`: setting one is refused, not ignored, so a
    // client learns that it cannot promote or unban itself (mass assignment).
    for (std::string_view key : {"role", "banned", "banReason", "banExpires"}) {
      const auto* value = body.if_contains(key);
      if (value != nullptr && !value->is_null() && !(value->is_bool() && !value->get_bool())) {
        return auth::FieldFailure("FIELD_NOT_ALLOWED", key,
                                  std::string(key) + " is not allowed to be set");
      }
    }
    if (!body.contains("name") && !body.contains("image")) {
      return auth::FieldFailure("NO_FIELDS_TO_UPDATE", "name", "No fields to update");
    }
    std::optional<std::optional<std::string>> image;
    if (const auto* value = body.if_contains("image")) {
      image = value->is_string() ? std::optional<std::string>(std::string(value->get_string()))
                                 : std::nullopt;
    }
    CAIRN_TRY(auth_.UpdateProfile(caller.user, OptionalString(body, "name"), std::move(image)));
    return StatusTrue();
  }

  Result<Response> ChangePassword(Request& request) {
    const auth::Caller& caller = RequireCaller(request);
    const auto& body = Body(request);
    CAIRN_ASSIGN_OR_RETURN(
        auto replacement,
        auth_.ChangePassword(caller, RequiredString(body, "currentPassword"),
                             RequiredString(body, "newPassword"),
                             Flag(body, "revokeOtherSessions", false), ClientOf(request)));
    if (replacement) return SessionIssued(caller.user, *replacement, "{");
    std::string out = R"({"token":null,"user":)";
    AppendUser(out, caller.user);
    out.push_back('}');
    return Json(std::move(out));
  }

  Result<Response> ChangeEmail(Request& request) {
    const auth::Caller& caller = RequireCaller(request);
    const auto& body = Body(request);
    CAIRN_TRY(auth_.ChangeEmail(caller.user, RequiredString(body, "newEmail"),
                                OptionalString(body, "callbackURL").value_or("")));
    return StatusTrue();
  }

  Result<Response> DeleteUser(Request& request) {
    const auth::Caller& caller = RequireCaller(request);
    const auto password = OptionalString(Body(request), "password");
    // Scheduled (D19a); Better Auth's answer, since the account is gone for its owner now.
    CAIRN_TRY(auth_.DeleteUser(caller,
                               password ? std::optional<std::string_view>(*password) : std::nullopt,
                               ClientOf(request)));
    Response response = Json(R"({"success":true,"message":"User deleted"})");
    cookies_.Clear(response, kSessionCookie);
    return response;
  }

  Result<Response> RequestPasswordReset(Request& request) {
    const auto& body = Body(request);
    CAIRN_TRY(auth_.RequestPasswordReset(RequiredString(body, "email"),
                                         OptionalString(body, "redirectTo").value_or("")));
    return Json(
        R"({"status":true,"message":"If this email exists in our system, check your email for the reset link"})");
  }

  Result<Response> ResetPasswordCallback(Request& request) {
    const std::string callback(request.Query("callbackURL").value_or(""));
    if (callback.empty()) {
      return auth::FieldFailure("CALLBACK_URL_REQUIRED", "callbackURL", "callbackURL is required");
    }
    CAIRN_TRY(auth::CheckCallbackUrl(callback, auth_.options().base_url, "callbackURL"));
    // The token is checked when it is used (POST reset-password); the app just receives it.
    return Redirect(WithQuery(callback, "token", request.PathParam("token")));
  }

  Result<Response> ResetPassword(Request& request) {
    const auto& body = Body(request);
    std::string token = OptionalString(body, "token").value_or("");
    if (token.empty()) token = std::string(request.Query("token").value_or(""));
    if (token.empty()) return auth::InvalidToken();
    CAIRN_TRY(auth_.ResetPassword(token, RequiredString(body, "newPassword"), ClientOf(request)));
    return StatusTrue();
  }

  Result<Response> SendVerificationEmail(Request& request) {
    const auto& body = Body(request);
    CAIRN_TRY(auth_.SendVerificationEmail(RequiredString(body, "email"),
                                          OptionalString(body, "callbackURL").value_or("")));
    return StatusTrue();
  }

  Result<Response> VerifyEmail(Request& request) {
    const std::string token(request.Query("token").value_or(""));
    const std::string callback(request.Query("callbackURL").value_or(""));
    if (!callback.empty()) {
      CAIRN_TRY(auth::CheckCallbackUrl(callback, auth_.options().base_url, "callbackURL"));
    }
    auto verified = auth_.VerifyEmail(token);
    if (!callback.empty()) {
      if (!verified.ok()) {
        // Better Auth's reason, as its client reads it from the query.
        const std::string& reason = verified.error().reason;
        return Redirect(WithQuery(callback, "error", reason.empty() ? "INVALID_TOKEN" : reason));
      }
      return Redirect(callback);
    }
    if (!verified.ok()) return verified.error();
    std::string out = R"({"status":true,"user":)";
    AppendUser(out, verified.value());
    out.push_back('}');
    return Json(std::move(out));
  }

  auth::AuthService& auth_;
  const SessionCookies& cookies_;
  auth::TwoFactorService* two_factor_;  // null unless `auth.twoFactor: true`
};

}  // namespace

Status AddAuthRoutes(http::Router& router, auth::AuthService& auth, const SessionCookies& cookies,
                     auth::TwoFactorService* two_factor) {
  return std::make_shared<AuthRoutes>(auth, cookies, two_factor)->Register(router);
}

std::vector<std::string> PasswordSignInPaths(const config::AuthConfig& config) {
  if (!config.HasStrategy(kPasswordStrategy)) return {};
  return {std::string(kPrefix) + std::string(kSignInPath),
          std::string(kPrefix) + std::string(kSignUpPath)};
}

}  // namespace cairn::api
