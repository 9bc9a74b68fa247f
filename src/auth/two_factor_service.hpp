// Two-factor authentication (D19), Better Auth's twoFactor plugin without HTTP types: TOTP
// (RFC 6238) with backup codes, one-time codes by mail, the sign-in challenge and trusted
// devices. api/two_factor_api.cpp maps the wire format onto it. Setup lives in
// two_factor_service.cpp, sign-in and the code checks in two_factor_sign_in.cpp.
//
// Who proves a second factor is either a signed-in user (setting it up, or re-checking) or
// someone who passed the password and holds a sign-in challenge: then no session exists until
// a factor is verified, and the verification creates it (a sign_in event naming the factor).
// Secrets and backup codes are sealed at rest (secret_box.hpp). An accepted TOTP code claims its
// time step in the database, so it is refused the second time on every node. Every code guess
// counts against per-user and per-address limits (limits.hpp) besides the route limits.
// Turning two-factor on and off are two_factor_enabled / two_factor_disabled events.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "auth/auth_service.hpp"
#include "auth/secret_box.hpp"
#include "ratelimit/rate_limiter.hpp"

namespace cairn::auth {

struct TwoFactorOptions {
  std::string issuer;  // the authenticator app's label: the app's name
  // Counts code guesses; null when rate limiting is off (RATE_LIMIT_DISABLED).
  std::shared_ptr<ratelimit::RateLimiter> limiter;
};

// The one proving a second factor.
struct TwoFactorSubject {
  User user;
  const Caller* caller = nullptr;  // the session, when signed in
  std::string challenge;           // else the sign-in challenge's identifier
  bool remember = true;            // the sign-in's rememberMe
  int attempts = 0;                // wrong codes so far on this challenge
};

// A verified second factor.
struct SecondFactorPassed {
  User user;
  std::optional<std::string> token;      // the session's token (new on the sign-in path)
  std::optional<IssuedSession> session;  // set when the verification signed the user in
  // `<hmac>!<id>` for the trust_device cookie, when the device was trusted.
  std::optional<std::string> trusted_device;
};

// What sign-in does about the second factor.
struct SignInGateOutcome {
  std::optional<std::string> challenge;  // a challenge was opened: no session yet
  // A trusted device signs in: the renewed `<hmac>!<id>` for its trust_device cookie.
  std::optional<std::string> trusted_device;
  bool forget_trust_cookie = false;  // the presented trust cookie no longer counts
};

class TwoFactorService {
 public:
  TwoFactorService(AuthService& auth, db::Database& database, std::shared_ptr<mail::Mailer> mailer,
                   TwoFactorOptions options);

  // --- Sign-in ----------------------------------------------------------------------------------
  // After the password: no challenge when the user may sign in now (two-factor off, or
  // `trust_cookie` names a live trusted device of this user, which is then renewed), else the
  // identifier of a new challenge (for the two_factor cookie).
  Result<SignInGateOutcome> GateSignIn(const User& user, bool remember,
                                       std::optional<std::string_view> trust_cookie);
  // The methods a challenge may use: "totp" when a verified secret exists, and "otp".
  Result<std::vector<std::string>> Methods(std::string_view user_id);
  // The signed-in caller, else the live challenge `challenge` names; 401
  // INVALID_TWO_FACTOR_COOKIE otherwise.
  Result<TwoFactorSubject> Subject(const Caller* caller, std::optional<std::string_view> challenge);

  // --- Setup (signed in; each needs the password) -----------------------------------------------
  struct Enrolment {
    std::string totp_uri;
    std::vector<std::string> backup_codes;
  };
  // A new secret and backup codes; two-factor turns on when a first TOTP code verifies them.
  Result<Enrolment> Enable(const Caller& caller, std::string_view password,
                           std::optional<std::string_view> issuer);
  // Turns two-factor on with mailed codes only (Better Auth's `method: "otp"`).
  Status EnableOtp(const Caller& caller, std::string_view password, const ClientInfo& client);
  Result<std::string> TotpUri(const Caller& caller, std::string_view password);
  // Off: the secret, backup codes and trusted devices go.
  Status Disable(const Caller& caller, std::string_view password, const ClientInfo& client);
  Result<std::vector<std::string>> RegenerateBackupCodes(const Caller& caller,
                                                         std::string_view password);

  // --- Second factors ---------------------------------------------------------------------------
  Result<SecondFactorPassed> VerifyTotp(const TwoFactorSubject& subject, std::string_view code,
                                        bool trust_device, const ClientInfo& client);
  // `open_session` false (disableSession) checks the code without signing in.
  Result<SecondFactorPassed> VerifyBackupCode(const TwoFactorSubject& subject,
                                              std::string_view code, bool trust_device,
                                              bool open_session, const ClientInfo& client);
  Status SendOtp(const TwoFactorSubject& subject);
  Result<SecondFactorPassed> VerifyOtp(const TwoFactorSubject& subject, std::string_view code,
                                       bool trust_device, const ClientInfo& client);

 private:
  Status CheckPassword(const User& user, std::string_view password);
  Status CountGuess(const TwoFactorSubject& subject, const ClientInfo& client);
  // The challenge path counts wrong codes: past kTwoFactorAttemptsPerChallenge it ends.
  Status BeforeAttempt(const TwoFactorSubject& subject);
  Status RecordWrongAttempt(const TwoFactorSubject& subject);
  // The factor is verified: the session path keeps its session; the challenge path consumes the
  // challenge and opens a session (and trusts the device when asked).
  Result<SecondFactorPassed> Pass(const TwoFactorSubject& subject, std::string_view method,
                                  bool trust_device, const ClientInfo& client);
  // Turns the user's flag on inside a write (an event when it changes).
  Status TurnOn(db::Connection& connection, const User& user, std::string_view method,
                const Actor& actor);
  std::string TrustToken(std::string_view user_id, std::string_view trust_id) const;
  // A trusted-device row for 30 days; its cookie value.
  Result<std::string> NewTrustedDevice(db::Connection& connection, std::string_view user_id,
                                       std::int64_t now) const;
  std::string OtpKey(const TwoFactorSubject& subject) const;
  std::vector<std::string> NewBackupCodes() const;
  Result<std::vector<std::string>> OpenBackupCodes(std::string_view sealed) const;
  std::string SealBackupCodes(const std::vector<std::string>& codes) const;

  AuthService& auth_;
  db::Database& database_;
  std::shared_ptr<mail::Mailer> mailer_;
  TwoFactorOptions options_;
  SecretBox box_;
};

}  // namespace cairn::auth
