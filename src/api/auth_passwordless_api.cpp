// Better Auth's magicLink and emailOTP plugin routes (D19), route for route, so that its
// magicLinkClient and emailOTPClient work unchanged. Each strategy's routes exist only when the
// config has it (otherwise 404).
#include <boost/url/encode.hpp>
#include <boost/url/rfc/unreserved_chars.hpp>

#include "api/auth_route_support.hpp"
#include "api/auth_routes.hpp"
#include "auth/auth_errors.hpp"
#include "auth/auth_service.hpp"
#include "common/json.hpp"

namespace cairn::api {
namespace {

using namespace auth_routes;
using http::Execution;
using http::Request;
using http::Response;

constexpr std::string_view kMagicLinkStrategy = "magicLink";
constexpr std::string_view kEmailOtpStrategy = "emailOtp";
constexpr std::string_view kPasswordStrategy = "emailAndPassword";
constexpr std::string_view kMagicLinkPath = "sign-in/magic-link";
constexpr std::string_view kEmailOtpSignInPath = "sign-in/email-otp";
constexpr std::string_view kSendOtpPath = "email-otp/send-verification-otp";

constexpr const char* kMagicLinkBody = R"({"type":"object","required":["email"],
  "properties":{"email":{"type":"string"},"name":{"type":"string"},
  "callbackURL":{"type":"string"},"newUserCallbackURL":{"type":"string"},
  "errorCallbackURL":{"type":"string"},"metadata":{"type":"object"}}})";
constexpr const char* kSendOtpBody = R"({"type":"object","required":["email","type"],
  "properties":{"email":{"type":"string"},
  "type":{"enum":["sign-in","email-verification","forget-password"]}}})";
constexpr const char* kCheckOtpBody = R"({"type":"object","required":["email","type","otp"],
  "properties":{"email":{"type":"string"},"otp":{"type":"string"},
  "type":{"enum":["sign-in","email-verification","forget-password"]}}})";
constexpr const char* kOtpSignInBody = R"({"type":"object","required":["email","otp"],
  "properties":{"email":{"type":"string"},"otp":{"type":"string"},"name":{"type":"string"},
  "image":{"type":"string"}}})";
constexpr const char* kOtpBody = R"({"type":"object","required":["email","otp"],
  "properties":{"email":{"type":"string"},"otp":{"type":"string"}}})";
constexpr const char* kOtpResetRequestBody = R"({"type":"object","required":["email"],
  "properties":{"email":{"type":"string"}}})";
constexpr const char* kOtpResetBody = R"({"type":"object","required":["email","otp","password"],
  "properties":{"email":{"type":"string"},"otp":{"type":"string"},
  "password":{"type":"string"}}})";

class PasswordlessRoutes : public std::enable_shared_from_this<PasswordlessRoutes> {
 public:
  PasswordlessRoutes(auth::AuthService& auth, const SessionCookies& cookies)
      : auth_(auth), cookies_(cookies) {}

  Status Register(http::Router& router) {
    const config::AuthConfig& config = auth_.options().config;
    if (config.HasStrategy(kMagicLinkStrategy)) CAIRN_TRY(AddMagicLinkRoutes(router));
    if (config.HasStrategy(kEmailOtpStrategy)) CAIRN_TRY(AddEmailOtpRoutes(router));
    return {};
  }

 private:
  Status AddMagicLinkRoutes(http::Router& router) {
    CAIRN_TRY(Add(router,
                  Spec("POST", kMagicLinkPath, "Mail a sign-in link", SessionUse::kNone,
                       kMagicLinkBody, Execution::kWorker),
                  &PasswordlessRoutes::SignInMagicLink));
    return Add(router,
               Spec("GET", "magic-link/verify", "Follow a sign-in link", SessionUse::kNone, nullptr,
                    Execution::kWorker),
               &PasswordlessRoutes::VerifyMagicLink);
  }

  Status AddEmailOtpRoutes(http::Router& router) {
    CAIRN_TRY(Add(router,
                  Spec("POST", kSendOtpPath, "Mail a one-time code", SessionUse::kNone,
                       kSendOtpBody, Execution::kWorker),
                  &PasswordlessRoutes::SendOtp));
    CAIRN_TRY(Add(
        router,
        Spec("POST", "email-otp/check-verification-otp", "Check a one-time code without using it",
             SessionUse::kNone, kCheckOtpBody, Execution::kWorker),
        &PasswordlessRoutes::CheckOtp));
    CAIRN_TRY(Add(router,
                  Spec("POST", kEmailOtpSignInPath, "Sign in with a one-time code",
                       SessionUse::kNone, kOtpSignInBody, Execution::kWorker),
                  &PasswordlessRoutes::SignInOtp));
    CAIRN_TRY(Add(router,
                  Spec("POST", "email-otp/verify-email", "Verify an email with a one-time code",
                       SessionUse::kNone, kOtpBody, Execution::kWorker),
                  &PasswordlessRoutes::VerifyEmailOtp));
    // A password reset by code needs a password to reset.
    if (!auth_.options().config.HasStrategy(kPasswordStrategy)) return {};
    CAIRN_TRY(Add(router,
                  Spec("POST", "email-otp/request-password-reset", "Mail a password reset code",
                       SessionUse::kNone, kOtpResetRequestBody, Execution::kWorker),
                  &PasswordlessRoutes::RequestPasswordReset));
    // Better Auth's deprecated name for the same.
    CAIRN_TRY(Add(router,
                  Spec("POST", "forget-password/email-otp", "Mail a password reset code",
                       SessionUse::kNone, kOtpResetRequestBody, Execution::kWorker),
                  &PasswordlessRoutes::RequestPasswordReset));
    return Add(router,
               Spec("POST", "email-otp/reset-password", "Set a new password with a one-time code",
                    SessionUse::kNone, kOtpResetBody, Execution::kWorker),
               &PasswordlessRoutes::ResetPassword);
  }

  using Method = Result<Response> (PasswordlessRoutes::*)(Request&);
  Status Add(http::Router& router, http::RouteSpec spec, Method method) {
    return router.Add({std::move(spec), [self = shared_from_this(), method](Request& request) {
                         return ((*self).*method)(request);
                       }});
  }

  // An absolute URL for a redirect: a path here is put on this server's origin.
  std::string Absolute(std::string_view url) const {
    if (url.empty()) return auth_.options().base_url + "/";
    if (url.front() == '/') return auth_.options().base_url + std::string(url);
    return std::string(url);
  }

  // `url` with `error` (before any fragment), as Better Auth redirects failures.
  static std::string WithError(std::string_view url, std::string_view error) {
    const std::size_t hash = url.find('#');
    const std::string_view base = url.substr(0, hash);
    std::string out(base);
    out.append(base.find('?') == std::string_view::npos ? "?error=" : "&error=");
    out.append(boost::urls::encode(error, boost::urls::unreserved_chars));
    if (hash != std::string_view::npos) out.append(url.substr(hash));
    return out;
  }

  std::string SignedInBody(const auth::PasswordlessSignIn& result) {
    std::string body(R"({"token":)");
    json::AppendString(body, result.session.token);
    body.append(R"(,"user":)");
    AppendUser(body, result.user);
    body.push_back('}');
    return body;
  }

  Result<Response> SignInMagicLink(Request& request) {
    const auto& body = Body(request);
    auth::AuthService::MagicLinkRequest input;
    input.email = RequiredString(body, "email");
    input.name = OptionalString(body, "name").value_or("");
    input.callback_url = OptionalString(body, "callbackURL").value_or("");
    input.new_user_callback_url = OptionalString(body, "newUserCallbackURL").value_or("");
    input.error_callback_url = OptionalString(body, "errorCallbackURL").value_or("");
    CAIRN_TRY(auth_.RequestMagicLink(input));
    return Json(R"({"status":true})");
  }

  Result<Response> VerifyMagicLink(Request& request) {
    const std::string token(request.Query("token").value_or(""));
    const auto callback = request.Query("callbackURL");
    const std::string new_user_callback(request.Query("newUserCallbackURL").value_or(""));
    const std::string error_callback(request.Query("errorCallbackURL").value_or(""));
    // Never a redirect off this server's origin (no open redirect through our links).
    const std::string& base = auth_.options().base_url;
    if (callback) CAIRN_TRY(auth::CheckCallbackUrl(*callback, base, "callbackURL"));
    CAIRN_TRY(auth::CheckCallbackUrl(new_user_callback, base, "newUserCallbackURL"));
    CAIRN_TRY(auth::CheckCallbackUrl(error_callback, base, "errorCallbackURL"));
    const std::string success_url = Absolute(callback.value_or("/"));
    auto result = auth_.VerifyMagicLink(token, ClientOf(request));
    if (!result.ok()) {
      const std::string& reason = result.error().reason;
      const std::string failure_url =
          error_callback.empty() ? success_url : Absolute(error_callback);
      return Redirect(WithError(failure_url, reason.empty() ? "INVALID_TOKEN" : reason));
    }
    const auth::PasswordlessSignIn& signed_in = result.value();
    Response response;
    if (!callback) {
      // Without a callbackURL Better Auth answers with the session instead of redirecting.
      std::string body = SignedInBody(signed_in);
      body.pop_back();
      body.append(R"(,"session":)");
      AppendSession(body, signed_in.session.session, signed_in.session.token);
      body.push_back('}');
      response = Json(std::move(body));
    } else {
      response =
          Redirect(signed_in.new_user && !new_user_callback.empty() ? Absolute(new_user_callback)
                                                                    : success_url);
    }
    cookies_.SetSession(response, signed_in.session);
    return response;
  }

  Result<Response> SendOtp(Request& request) {
    const auto& body = Body(request);
    CAIRN_TRY(auth_.SendEmailOtp(RequiredString(body, "email"), RequiredString(body, "type")));
    return Json(R"({"success":true})");
  }

  Result<Response> CheckOtp(Request& request) {
    const auto& body = Body(request);
    CAIRN_TRY(auth_.CheckEmailOtp(RequiredString(body, "email"), RequiredString(body, "type"),
                                  RequiredString(body, "otp")));
    return Json(R"({"success":true})");
  }

  Result<Response> SignInOtp(Request& request) {
    const auto& body = Body(request);
    CAIRN_ASSIGN_OR_RETURN(
        auto result,
        auth_.SignInWithEmailOtp(RequiredString(body, "email"), RequiredString(body, "otp"),
                                 OptionalString(body, "name"), OptionalString(body, "image"),
                                 ClientOf(request)));
    Response response = Json(SignedInBody(result));
    cookies_.SetSession(response, result.session);
    return response;
  }

  Result<Response> VerifyEmailOtp(Request& request) {
    const auto& body = Body(request);
    CAIRN_ASSIGN_OR_RETURN(auto user, auth_.VerifyEmailWithOtp(RequiredString(body, "email"),
                                                               RequiredString(body, "otp")));
    std::string out = R"({"status":true,"token":null,"user":)";
    AppendUser(out, user);
    out.push_back('}');
    return Json(std::move(out));
  }

  Result<Response> RequestPasswordReset(Request& request) {
    CAIRN_TRY(auth_.SendEmailOtp(RequiredString(Body(request), "email"), "forget-password"));
    return Json(R"({"success":true})");
  }

  Result<Response> ResetPassword(Request& request) {
    const auto& body = Body(request);
    CAIRN_TRY(auth_.ResetPasswordWithOtp(RequiredString(body, "email"), RequiredString(body, "otp"),
                                         RequiredString(body, "password"), ClientOf(request)));
    return Json(R"({"success":true})");
  }

  auth::AuthService& auth_;
  const SessionCookies& cookies_;
};

}  // namespace

Status AddAuthPasswordlessRoutes(http::Router& router, auth::AuthService& auth,
                                 const SessionCookies& cookies) {
  return std::make_shared<PasswordlessRoutes>(auth, cookies)->Register(router);
}

std::vector<std::string> PasswordlessSignInPaths(const config::AuthConfig& config) {
  std::vector<std::string> paths;
  if (config.HasStrategy(kMagicLinkStrategy)) {
    paths.push_back(std::string(kPrefix) + std::string(kMagicLinkPath));
  }
  if (config.HasStrategy(kEmailOtpStrategy)) {
    paths.push_back(std::string(kPrefix) + std::string(kEmailOtpSignInPath));
    paths.push_back(std::string(kPrefix) + std::string(kSendOtpPath));
  }
  return paths;
}

}  // namespace cairn::api
