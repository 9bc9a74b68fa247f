#include "api/two_factor_api.hpp"

#include "api/auth_route_support.hpp"
#include "auth/limits.hpp"
#include "common/json.hpp"

namespace cairn::api {
namespace {

using namespace auth_routes;
using http::Execution;
using http::Request;
using http::Response;

constexpr const char* kEnableBody = R"({"type":"object","required":["password"],
  "properties":{"password":{"type":"string"},"method":{"enum":["otp","totp"]},
  "issuer":{"type":"string"}}})";
constexpr const char* kPasswordBody = R"({"type":"object","required":["password"],
  "properties":{"password":{"type":"string"}}})";
constexpr const char* kCodeBody = R"({"type":"object","required":["code"],
  "properties":{"code":{"type":"string"},"trustDevice":{"type":"boolean"}}})";
constexpr const char* kBackupCodeBody = R"({"type":"object","required":["code"],
  "properties":{"code":{"type":"string"},"trustDevice":{"type":"boolean"},
  "disableSession":{"type":"boolean"}}})";

constexpr std::int64_t kChallengeCookieSeconds = auth::kTwoFactorChallengeLifetimeMillis / 1000;
constexpr std::int64_t kTrustCookieSeconds = auth::kTrustDeviceLifetimeMillis / 1000;

std::optional<std::string> SignedCookie(const auth::SessionTokenCodec& codec,
                                        const Request& request, std::string_view name) {
  const auto raw = request.Cookie(name);
  if (!raw) return std::nullopt;
  return codec.VerifySigned(*raw);
}

void AppendStrings(std::string& out, const std::vector<std::string>& values) {
  out.push_back('[');
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out.push_back(',');
    json::AppendString(out, values[i]);
  }
  out.push_back(']');
}

class TwoFactorRoutes : public std::enable_shared_from_this<TwoFactorRoutes> {
 public:
  TwoFactorRoutes(auth::TwoFactorService& two_factor, const auth::SessionTokenCodec& codec,
                  const SessionCookies& cookies)
      : two_factor_(two_factor), codec_(codec), cookies_(cookies) {}

  Status Register(http::Router& router) {
    // Password checks are slow on purpose and mail takes time: those run on workers.
    CAIRN_TRY(
        Add(router,
            Spec("POST", "two-factor/enable", "Start two-factor: a TOTP secret and backup codes",
                 SessionUse::kRequired, kEnableBody, Execution::kWorker),
            &TwoFactorRoutes::Enable));
    CAIRN_TRY(Add(router,
                  Spec("POST", "two-factor/disable", "Turn two-factor off", SessionUse::kRequired,
                       kPasswordBody, Execution::kWorker),
                  &TwoFactorRoutes::Disable));
    CAIRN_TRY(Add(router,
                  Spec("POST", "two-factor/get-totp-uri", "The TOTP URI again",
                       SessionUse::kRequired, kPasswordBody, Execution::kWorker),
                  &TwoFactorRoutes::GetTotpUri));
    CAIRN_TRY(Add(router,
                  Spec("POST", "two-factor/generate-backup-codes",
                       "New backup codes (the old ones stop working)", SessionUse::kRequired,
                       kPasswordBody, Execution::kWorker),
                  &TwoFactorRoutes::GenerateBackupCodes));
    CAIRN_TRY(Add(router,
                  Spec("POST", "two-factor/verify-totp",
                       "Verify an authenticator code (sign-in challenge or setup)",
                       SessionUse::kOptional, kCodeBody, Execution::kWorker),
                  &TwoFactorRoutes::VerifyTotp));
    CAIRN_TRY(Add(router,
                  Spec("POST", "two-factor/verify-backup-code", "Verify a single-use backup code",
                       SessionUse::kOptional, kBackupCodeBody, Execution::kWorker),
                  &TwoFactorRoutes::VerifyBackupCode));
    CAIRN_TRY(Add(router,
                  Spec("POST", "two-factor/send-otp", "Mail a one-time code", SessionUse::kOptional,
                       nullptr, Execution::kWorker),
                  &TwoFactorRoutes::SendOtp));
    return Add(router,
               Spec("POST", "two-factor/verify-otp", "Verify a mailed one-time code",
                    SessionUse::kOptional, kCodeBody, Execution::kWorker),
               &TwoFactorRoutes::VerifyOtp);
  }

 private:
  using Method = Result<Response> (TwoFactorRoutes::*)(Request&);
  Status Add(http::Router& router, http::RouteSpec spec, Method method) {
    return router.Add({std::move(spec), [self = shared_from_this(), method](Request& request) {
                         return ((*self).*method)(request);
                       }});
  }

  Result<auth::TwoFactorSubject> SubjectOf(const Request& request) {
    const auto challenge = SignedCookie(codec_, request, kTwoFactorCookie);
    return two_factor_.Subject(
        CallerOf(request), challenge ? std::optional<std::string_view>(*challenge) : std::nullopt);
  }

  // {token, user}; on the sign-in path also the session cookie, the end of the challenge
  // cookie and, when asked, the trusted device's cookie.
  Response Passed(const auth::SecondFactorPassed& passed) {
    std::string body = "{";
    if (passed.token) {
      body.append(R"("token":)");
      json::AppendString(body, *passed.token);
      body.push_back(',');
    }
    body.append(R"("user":)");
    AppendUser(body, passed.user);
    body.push_back('}');
    Response response = Json(std::move(body));
    if (passed.session) {
      cookies_.SetSession(response, *passed.session);
      cookies_.Clear(response, kTwoFactorCookie);
    }
    if (passed.trusted_device) {
      cookies_.SetSigned(response, kTrustDeviceCookie, *passed.trusted_device, kTrustCookieSeconds);
    }
    return response;
  }

  Result<Response> Enable(Request& request) {
    const auth::Caller& caller = RequireCaller(request);
    const auto& body = Body(request);
    const std::string password = RequiredString(body, "password");
    if (OptionalString(body, "method") == "otp") {
      CAIRN_TRY(two_factor_.EnableOtp(caller, password, ClientOf(request)));
      return Json(R"({"method":"otp"})");
    }
    const auto issuer = OptionalString(body, "issuer");
    CAIRN_ASSIGN_OR_RETURN(
        auto enrolment,
        two_factor_.Enable(caller, password,
                           issuer ? std::optional<std::string_view>(*issuer) : std::nullopt));
    std::string out = R"({"method":"totp","totpURI":)";
    json::AppendString(out, enrolment.totp_uri);
    out.append(R"(,"backupCodes":)");
    AppendStrings(out, enrolment.backup_codes);
    out.push_back('}');
    return Json(std::move(out));
  }

  Result<Response> Disable(Request& request) {
    CAIRN_TRY(two_factor_.Disable(RequireCaller(request), RequiredString(Body(request), "password"),
                                  ClientOf(request)));
    Response response = StatusTrue();
    if (request.Cookie(kTrustDeviceCookie)) cookies_.Clear(response, kTrustDeviceCookie);
    return response;
  }

  Result<Response> GetTotpUri(Request& request) {
    CAIRN_ASSIGN_OR_RETURN(
        auto uri,
        two_factor_.TotpUri(RequireCaller(request), RequiredString(Body(request), "password")));
    std::string out = R"({"totpURI":)";
    json::AppendString(out, uri);
    out.push_back('}');
    return Json(std::move(out));
  }

  Result<Response> GenerateBackupCodes(Request& request) {
    CAIRN_ASSIGN_OR_RETURN(
        auto codes, two_factor_.RegenerateBackupCodes(RequireCaller(request),
                                                      RequiredString(Body(request), "password")));
    std::string out = R"({"status":true,"backupCodes":)";
    AppendStrings(out, codes);
    out.push_back('}');
    return Json(std::move(out));
  }

  Result<Response> VerifyTotp(Request& request) {
    CAIRN_ASSIGN_OR_RETURN(auto subject, SubjectOf(request));
    const auto& body = Body(request);
    CAIRN_ASSIGN_OR_RETURN(
        auto passed, two_factor_.VerifyTotp(subject, RequiredString(body, "code"),
                                            Flag(body, "trustDevice", false), ClientOf(request)));
    return Passed(passed);
  }

  Result<Response> VerifyBackupCode(Request& request) {
    CAIRN_ASSIGN_OR_RETURN(auto subject, SubjectOf(request));
    const auto& body = Body(request);
    CAIRN_ASSIGN_OR_RETURN(
        auto passed, two_factor_.VerifyBackupCode(
                         subject, RequiredString(body, "code"), Flag(body, "trustDevice", false),
                         !Flag(body, "disableSession", false), ClientOf(request)));
    return Passed(passed);
  }

  Result<Response> SendOtp(Request& request) {
    CAIRN_ASSIGN_OR_RETURN(auto subject, SubjectOf(request));
    CAIRN_TRY(two_factor_.SendOtp(subject));
    return StatusTrue();
  }

  Result<Response> VerifyOtp(Request& request) {
    CAIRN_ASSIGN_OR_RETURN(auto subject, SubjectOf(request));
    const auto& body = Body(request);
    CAIRN_ASSIGN_OR_RETURN(
        auto passed, two_factor_.VerifyOtp(subject, RequiredString(body, "code"),
                                           Flag(body, "trustDevice", false), ClientOf(request)));
    return Passed(passed);
  }

  auth::TwoFactorService& two_factor_;
  const auth::SessionTokenCodec& codec_;
  const SessionCookies& cookies_;
};

}  // namespace

Status AddTwoFactorRoutes(http::Router& router, auth::TwoFactorService& two_factor,
                          const auth::SessionTokenCodec& codec, const SessionCookies& cookies) {
  return std::make_shared<TwoFactorRoutes>(two_factor, codec, cookies)->Register(router);
}

auth::SecondFactorGate TwoFactorSignIn::Gate() {
  return [this](const auth::User& user, bool remember) -> Result<std::optional<std::string>> {
    const auto trust = SignedCookie(codec_, request_, kTrustDeviceCookie);
    CAIRN_ASSIGN_OR_RETURN(
        outcome_,
        two_factor_.GateSignIn(user, remember,
                               trust ? std::optional<std::string_view>(*trust) : std::nullopt));
    return outcome_.challenge;
  };
}

Result<http::Response> TwoFactorSignIn::ChallengeAnswer(std::string_view user_id,
                                                        std::string_view challenge) const {
  CAIRN_ASSIGN_OR_RETURN(auto methods, two_factor_.Methods(user_id));
  std::string out = R"({"twoFactorRedirect":true,"twoFactorMethods":)";
  AppendStrings(out, methods);
  out.push_back('}');
  Response response = Json(std::move(out));
  cookies_.SetSigned(response, kTwoFactorCookie, challenge, kChallengeCookieSeconds);
  Finish(response);
  return response;
}

void TwoFactorSignIn::Finish(http::Response& response) const {
  if (outcome_.trusted_device) {
    cookies_.SetSigned(response, kTrustDeviceCookie, *outcome_.trusted_device, kTrustCookieSeconds);
  } else if (outcome_.forget_trust_cookie) {
    cookies_.Clear(response, kTrustDeviceCookie);
  }
}

}  // namespace cairn::api
