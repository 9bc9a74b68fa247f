#include "auth/two_factor_service.hpp"

#include <algorithm>

#include <boost/json.hpp>

#include "auth/auth_errors.hpp"
#include "auth/limits.hpp"
#include "auth/password.hpp"
#include "auth/session_store.hpp"
#include "auth/totp.hpp"
#include "auth/two_factor_store.hpp"
#include "auth/user_store.hpp"
#include "common/crypto.hpp"
#include "common/log.hpp"
#include "common/time.hpp"

namespace cairn::auth {
namespace {

// Purposes of the `_cairn_auth_verifications` rows two-factor keeps.
constexpr std::string_view kChallengePurpose = "two-factor-challenge";
constexpr std::string_view kTrustPurpose = "trust-device";
constexpr std::string_view kOtpPurpose = "two-factor-otp";
// Keeps the derived key apart from any other use of the auth secret.
constexpr std::string_view kSealPurpose = "two-factor";

Error InvalidTwoFactorCookie() {
  return AuthError(ErrorCode::kUnauthorized, "INVALID_TWO_FACTOR_COOKIE",
                   "Invalid two factor cookie");
}
Error InvalidCode() {
  return AuthError(ErrorCode::kUnauthorized, "INVALID_CODE", "Invalid code");
}
Error TotpNotEnabled() {
  return AuthError(ErrorCode::kValidation, "TOTP_NOT_ENABLED", "TOTP not enabled");
}
Error TwoFactorNotEnabled() {
  return AuthError(ErrorCode::kValidation, "TWO_FACTOR_NOT_ENABLED", "Two factor isn't enabled");
}
Error TooManyAttempts() {
  return AuthError(ErrorCode::kValidation, "TOO_MANY_ATTEMPTS_REQUEST_NEW_CODE",
                   "Too many attempts. Please request a new code.");
}
Error SealBroken() {
  // Only a changed AUTH_SECRET (or an altered row) gets here; the client cannot fix it.
  return Error::Internal("a sealed two-factor value cannot be opened: was AUTH_SECRET changed?");
}

// "<attempts>:<remember 0|1>", the value of a challenge row (a mailed code's is
// "<attempts>:<sealed code>").
std::string ChallengeValue(bool remember, int attempts) {
  return std::to_string(attempts) + ":" + (remember ? "1" : "0");
}

// A leading count before ':' and the rest ("3:abc" → 3, "abc"); count -1 when malformed.
std::pair<int, std::string> SplitCount(std::string_view value) {
  const std::size_t colon = value.find(':');
  if (colon == std::string_view::npos || colon == 0 || colon > 3) return {-1, std::string(value)};
  int count = 0;
  for (char c : value.substr(0, colon)) {
    if (c < '0' || c > '9') return {-1, std::string(value)};
    count = count * 10 + (c - '0');
  }
  return {count, std::string(value.substr(colon + 1))};
}

std::string RandomDigits(int count) {
  std::string out;
  while (out.size() < static_cast<std::size_t>(count)) {
    for (char c : crypto::RandomBytes(16)) {
      const auto byte = static_cast<unsigned char>(c);
      if (byte >= 250) continue;  // 250 = 25 * 10: keeps every digit equally likely
      out.push_back(static_cast<char>('0' + byte % 10));
      if (out.size() == static_cast<std::size_t>(count)) break;
    }
  }
  return out;
}

Actor ActorFor(const TwoFactorSubject& subject, const ClientInfo& client) {
  if (subject.caller != nullptr) return ActorOf(*subject.caller, client);
  return Actor{subject.user.id, std::nullopt, client};
}

}  // namespace

TwoFactorService::TwoFactorService(AuthService& auth, db::Database& database,
                                   std::shared_ptr<mail::Mailer> mailer, TwoFactorOptions options)
    : auth_(auth),
      database_(database),
      mailer_(std::move(mailer)),
      options_(std::move(options)),
      box_(auth.options().secret, kSealPurpose) {}

// --- Helpers ------------------------------------------------------------------------------------

std::string TwoFactorService::TrustToken(std::string_view user_id,
                                         std::string_view trust_id) const {
  // Better Auth's: base64url (no padding) of HMAC-SHA256(secret, "<userId>!<trustId>").
  std::string message(user_id);
  message.push_back('!');
  message.append(trust_id);
  return crypto::Base64Url(crypto::HmacSha256(auth_.options().secret, message));
}

std::string TwoFactorService::OtpKey(const TwoFactorSubject& subject) const {
  const std::string key = subject.caller != nullptr
                              ? subject.user.id + "!" + subject.caller->session.id
                              : subject.challenge;
  return SessionTokenCodec::Hash(std::string(kOtpPurpose) + ":" + key);
}

std::vector<std::string> TwoFactorService::NewBackupCodes() const {
  std::vector<std::string> codes;
  for (int i = 0; i < kBackupCodeCount; ++i) {
    std::string code = crypto::RandomAlphanumeric(kBackupCodeLength);
    code.insert(kBackupCodeLength / 2, "-");
    codes.push_back(std::move(code));
  }
  return codes;
}

std::string TwoFactorService::SealBackupCodes(const std::vector<std::string>& codes) const {
  boost::json::array array;
  for (const auto& code : codes) array.emplace_back(code);
  return box_.Seal(boost::json::serialize(array));
}

Result<std::vector<std::string>> TwoFactorService::OpenBackupCodes(std::string_view sealed) const {
  const auto plain = box_.Open(sealed);
  if (!plain) return SealBroken();
  boost::system::error_code error;
  const boost::json::value parsed = boost::json::parse(*plain, error);
  if (error || !parsed.is_array()) return SealBroken();
  std::vector<std::string> codes;
  for (const auto& item : parsed.get_array()) {
    if (item.is_string()) codes.emplace_back(item.get_string());
  }
  return codes;
}

Status TwoFactorService::CheckPassword(const User& user, std::string_view password) {
  const Error invalid = FieldFailure("INVALID_PASSWORD", "password", "Invalid password");
  // A password beyond any accepted length is wrong without the (slow) hash.
  if (password.empty() ||
      password.size() > 4 * static_cast<std::size_t>(auth_.options().config.max_password_length)) {
    return invalid;
  }
  std::optional<std::string> hash;
  CAIRN_TRY(database_.Transaction(db::Access::kRead, [&](db::Connection& connection) -> Status {
    CAIRN_ASSIGN_OR_RETURN(hash, FindPasswordHash(connection, user.id));
    return {};
  }));
  if (!hash) {
    BurnPasswordVerification(password);
    return invalid;
  }
  if (!VerifyPassword(password, *hash)) return invalid;
  return {};
}

Status TwoFactorService::CountGuess(const TwoFactorSubject& subject, const ClientInfo& client) {
  if (!options_.limiter) return {};
  const std::int64_t now = time::NowMillis();
  int retry_after = 0;
  const auto hit = [&](const std::string& key, int max) {
    auto decision = options_.limiter->Hit(key, {max, kCodeGuessWindowMillis}, now);
    if (!decision.ok()) {
      // As the route limiter does: a failing limiter lets the request through.
      log::Warn("two-factor code limiter failed: " + decision.error().detail);
      return;
    }
    if (!decision->allowed) retry_after = std::max(retry_after, decision->retry_after_seconds);
  };
  hit("2fa-code-user:" + subject.user.id, kCodeGuessesPerUser);
  if (!client.ip_address.empty()) {
    hit("2fa-code-address:" + client.ip_address, kCodeGuessesPerAddress);
  }
  if (retry_after == 0) return {};
  Error error = AuthError(ErrorCode::kRateLimited, "RATE_LIMITED",
                          "Too many code attempts, retry in " + std::to_string(retry_after) + " s");
  error.retry_after_seconds = retry_after;
  return error;
}

Status TwoFactorService::BeforeAttempt(const TwoFactorSubject& subject) {
  if (subject.caller != nullptr || subject.attempts < kTwoFactorAttemptsPerChallenge) return {};
  CAIRN_TRY(auth_.WriteTransaction([&](db::Connection& connection) -> Status {
    CAIRN_TRY(ConsumeVerification(connection, SessionTokenCodec::Hash(subject.challenge)));
    return {};
  }));
  return TooManyAttempts();
}

Status TwoFactorService::RecordWrongAttempt(const TwoFactorSubject& subject) {
  if (subject.caller != nullptr) return {};
  return auth_.WriteTransaction([&](db::Connection& connection) {
    return UpdateVerificationValue(connection, SessionTokenCodec::Hash(subject.challenge),
                                   ChallengeValue(subject.remember, subject.attempts + 1));
  });
}

Status TwoFactorService::TurnOn(db::Connection& connection, const User& user,
                                std::string_view method, const Actor& actor) {
  CAIRN_ASSIGN_OR_RETURN(User current, auth_.LoadUser(connection, user.id));
  if (current.two_factor_enabled) return {};
  CAIRN_TRY(SetTwoFactorEnabled(connection, user.id, true, time::NowMillis()));
  return AuthService::RecordEvent(connection, "two_factor_enabled", actor, {{"method", method}});
}

// --- Sign-in ------------------------------------------------------------------------------------

Result<std::string> TwoFactorService::NewTrustedDevice(db::Connection& connection,
                                                       std::string_view user_id,
                                                       std::int64_t now) const {
  const std::string trust_id = "trust-device-" + crypto::RandomAlphanumeric(kSessionTokenLength);
  CAIRN_TRY(InsertVerification(
      connection, SessionTokenCodec::Hash(trust_id),
      {std::string(kTrustPurpose), std::string(user_id), {}, now + kTrustDeviceLifetimeMillis},
      now));
  return TrustToken(user_id, trust_id) + "!" + trust_id;
}

Result<SignInGateOutcome> TwoFactorService::GateSignIn(
    const User& user, bool remember, std::optional<std::string_view> trust_cookie) {
  SignInGateOutcome outcome;
  if (!user.two_factor_enabled) return outcome;
  const std::int64_t now = time::NowMillis();
  if (trust_cookie) {
    // `<hmac>!<id>`: the HMAC binds the device to this user, the row keeps it revocable.
    const std::size_t bang = trust_cookie->find('!');
    const std::string_view trust_id =
        bang == std::string_view::npos ? std::string_view() : trust_cookie->substr(bang + 1);
    if (!trust_id.empty() &&
        crypto::ConstantTimeEquals(trust_cookie->substr(0, bang), TrustToken(user.id, trust_id))) {
      // Each trusted sign-in swaps the device's row for a new one, 30 days from now (as Better
      // Auth refreshes it); of two sign-ins with one cookie, only one finds the old row.
      CAIRN_TRY(auth_.WriteTransaction([&](db::Connection& connection) -> Status {
        outcome.trusted_device.reset();
        CAIRN_ASSIGN_OR_RETURN(auto found,
                               ConsumeVerification(connection, SessionTokenCodec::Hash(trust_id)));
        if (found && found->purpose == kTrustPurpose && found->user_id == user.id &&
            found->expires_at > now) {
          CAIRN_ASSIGN_OR_RETURN(outcome.trusted_device,
                                 NewTrustedDevice(connection, user.id, now));
        }
        return {};
      }));
      if (outcome.trusted_device) return outcome;
    }
    outcome.forget_trust_cookie = true;  // it no longer counts: the browser may drop it
  }
  std::string challenge = "2fa-" + crypto::RandomAlphanumeric(kSessionTokenLength);
  CAIRN_TRY(auth_.WriteTransaction([&](db::Connection& connection) {
    return InsertVerification(connection, SessionTokenCodec::Hash(challenge),
                              {std::string(kChallengePurpose), user.id, ChallengeValue(remember, 0),
                               now + kTwoFactorChallengeLifetimeMillis},
                              now);
  }));
  outcome.challenge = std::move(challenge);
  return outcome;
}

Result<std::vector<std::string>> TwoFactorService::Methods(std::string_view user_id) {
  std::optional<TwoFactorRow> row;
  CAIRN_TRY(database_.Transaction(db::Access::kRead, [&](db::Connection& connection) -> Status {
    CAIRN_ASSIGN_OR_RETURN(row, FindTwoFactor(connection, user_id));
    return {};
  }));
  std::vector<std::string> methods;
  if (row && row->verified) methods.emplace_back("totp");
  methods.emplace_back("otp");
  return methods;
}

Result<TwoFactorSubject> TwoFactorService::Subject(const Caller* caller,
                                                   std::optional<std::string_view> challenge) {
  if (caller != nullptr)
    return TwoFactorSubject{caller->user, caller, {}, caller->session.remember};
  if (!challenge) return InvalidTwoFactorCookie();
  std::optional<Verification> found;
  std::optional<User> user;
  CAIRN_TRY(database_.Transaction(db::Access::kRead, [&](db::Connection& connection) -> Status {
    CAIRN_ASSIGN_OR_RETURN(found,
                           FindVerification(connection, SessionTokenCodec::Hash(*challenge)));
    if (found) {
      CAIRN_ASSIGN_OR_RETURN(user, FindUserById(connection, found->user_id));
    }
    return {};
  }));
  if (!found || !user || found->purpose != kChallengePurpose ||
      found->expires_at <= time::NowMillis()) {
    return InvalidTwoFactorCookie();
  }
  const auto [attempts, remember] = SplitCount(found->value);
  TwoFactorSubject subject;
  subject.user = std::move(*user);
  subject.challenge = std::string(*challenge);
  subject.remember = remember == "1";
  // A malformed count ends the challenge at the next attempt rather than granting more.
  subject.attempts = attempts < 0 ? kTwoFactorAttemptsPerChallenge : attempts;
  return subject;
}

Result<SecondFactorPassed> TwoFactorService::Pass(const TwoFactorSubject& subject,
                                                  std::string_view method, bool trust_device,
                                                  const ClientInfo& client) {
  SecondFactorPassed passed;
  passed.user = subject.user;
  if (subject.caller != nullptr) {
    passed.token = subject.caller->token;
    return passed;
  }
  bool valid = false;
  CAIRN_TRY(auth_.WriteTransaction([&](db::Connection& connection) -> Status {
    const std::int64_t now = time::NowMillis();
    // Consumed here, once: of concurrent verifications, only one signs in.
    CAIRN_ASSIGN_OR_RETURN(
        auto found, ConsumeVerification(connection, SessionTokenCodec::Hash(subject.challenge)));
    valid = found && found->purpose == kChallengePurpose && found->user_id == subject.user.id &&
            found->expires_at > now;
    if (!valid) return {};
    CAIRN_ASSIGN_OR_RETURN(auto issued,
                           auth_.CreateSession(connection, subject.user, client, subject.remember));
    passed.session = std::move(issued);
    if (trust_device) {
      CAIRN_ASSIGN_OR_RETURN(passed.trusted_device,
                             NewTrustedDevice(connection, subject.user.id, now));
    }
    return AuthService::RecordEvent(
        connection, "sign_in", Actor{subject.user.id, std::nullopt, client},
        {{"sessionId", passed.session->session.id}, {"secondFactor", method}});
  }));
  if (!valid) return InvalidTwoFactorCookie();
  passed.token = passed.session->token;
  return passed;
}

// --- Setup --------------------------------------------------------------------------------------

Result<TwoFactorService::Enrolment> TwoFactorService::Enable(
    const Caller& caller, std::string_view password, std::optional<std::string_view> issuer) {
  CAIRN_TRY(CheckPassword(caller.user, password));
  const std::string secret = crypto::RandomAlphanumeric(kTotpSecretLength);
  Enrolment enrolment{totp::KeyUri(issuer.value_or(options_.issuer), caller.user.email, secret),
                      NewBackupCodes()};
  const TwoFactorRow row{box_.Seal(secret), SealBackupCodes(enrolment.backup_codes), false};
  bool already = false;
  CAIRN_TRY(auth_.WriteTransaction([&](db::Connection& connection) -> Status {
    CAIRN_ASSIGN_OR_RETURN(auto existing, FindTwoFactor(connection, caller.user.id));
    already = existing && existing->verified;
    if (already) return {};
    return PutTwoFactor(connection, caller.user.id, row, time::NowMillis());
  }));
  if (already) {
    return AuthError(ErrorCode::kValidation, "TOTP_ALREADY_ENABLED", "TOTP is already enabled");
  }
  return enrolment;
}

Status TwoFactorService::EnableOtp(const Caller& caller, std::string_view password,
                                   const ClientInfo& client) {
  CAIRN_TRY(CheckPassword(caller.user, password));
  return auth_.WriteTransaction([&](db::Connection& connection) {
    return TurnOn(connection, caller.user, "otp", ActorOf(caller, client));
  });
}

Result<std::string> TwoFactorService::TotpUri(const Caller& caller, std::string_view password) {
  std::optional<TwoFactorRow> row;
  CAIRN_TRY(database_.Transaction(db::Access::kRead, [&](db::Connection& connection) -> Status {
    CAIRN_ASSIGN_OR_RETURN(row, FindTwoFactor(connection, caller.user.id));
    return {};
  }));
  if (!row) return TotpNotEnabled();
  CAIRN_TRY(CheckPassword(caller.user, password));
  const auto secret = box_.Open(row->secret);
  if (!secret) return SealBroken();
  return totp::KeyUri(options_.issuer, caller.user.email, *secret);
}

Status TwoFactorService::Disable(const Caller& caller, std::string_view password,
                                 const ClientInfo& client) {
  CAIRN_TRY(CheckPassword(caller.user, password));
  return auth_.WriteTransaction([&](db::Connection& connection) -> Status {
    CAIRN_ASSIGN_OR_RETURN(User user, auth_.LoadUser(connection, caller.user.id));
    CAIRN_ASSIGN_OR_RETURN(auto row, FindTwoFactor(connection, user.id));
    const bool was_on = user.two_factor_enabled || row.has_value();
    CAIRN_TRY(DeleteTwoFactor(connection, user.id));
    // A device trusted to skip the second factor must not skip it once it is on again.
    CAIRN_TRY(DeleteVerificationsOfUser(connection, user.id, kTrustPurpose));
    if (!was_on) return {};
    CAIRN_TRY(SetTwoFactorEnabled(connection, user.id, false, time::NowMillis()));
    return AuthService::RecordEvent(connection, "two_factor_disabled", ActorOf(caller, client));
  });
}

Result<std::vector<std::string>> TwoFactorService::RegenerateBackupCodes(
    const Caller& caller, std::string_view password) {
  if (!caller.user.two_factor_enabled) return TwoFactorNotEnabled();
  CAIRN_TRY(CheckPassword(caller.user, password));
  std::vector<std::string> codes = NewBackupCodes();
  const std::string sealed = SealBackupCodes(codes);
  bool found = false;
  CAIRN_TRY(auth_.WriteTransaction([&](db::Connection& connection) -> Status {
    CAIRN_ASSIGN_OR_RETURN(auto row, FindTwoFactor(connection, caller.user.id));
    found = row.has_value();
    if (!found) return {};
    CAIRN_ASSIGN_OR_RETURN(bool replaced,
                           ReplaceBackupCodes(connection, caller.user.id, row->backup_codes, sealed,
                                              time::NowMillis()));
    // Read in this transaction: it could only differ under a concurrent change.
    if (!replaced) return Error::Conflict("Backup codes changed meanwhile; try again.");
    return {};
  }));
  if (!found) return TwoFactorNotEnabled();
  return codes;
}

// --- Second factors -----------------------------------------------------------------------------

Result<SecondFactorPassed> TwoFactorService::VerifyTotp(const TwoFactorSubject& subject,
                                                        std::string_view code, bool trust_device,
                                                        const ClientInfo& client) {
  CAIRN_TRY(CountGuess(subject, client));
  std::optional<TwoFactorRow> row;
  CAIRN_TRY(database_.Transaction(db::Access::kRead, [&](db::Connection& connection) -> Status {
    CAIRN_ASSIGN_OR_RETURN(row, FindTwoFactor(connection, subject.user.id));
    return {};
  }));
  // Signing in needs a confirmed secret; setting up is how it gets confirmed.
  if (!row || (subject.caller == nullptr && !row->verified)) return TotpNotEnabled();
  CAIRN_TRY(BeforeAttempt(subject));
  const auto secret = box_.Open(row->secret);
  if (!secret) return SealBroken();
  const std::int64_t now = time::NowMillis();
  std::optional<std::int64_t> step;
  if (code.size() <= kMaxTwoFactorCodeLength) step = totp::MatchingStep(*secret, code, now / 1000);
  bool claimed = false;
  if (step) {
    CAIRN_TRY(auth_.WriteTransaction([&](db::Connection& connection) -> Status {
      CAIRN_ASSIGN_OR_RETURN(claimed, ClaimTotpStep(connection, subject.user.id, *step, now));
      if (!claimed || row->verified) return {};
      CAIRN_TRY(MarkTwoFactorVerified(connection, subject.user.id, now));
      return TurnOn(connection, subject.user, "totp", ActorFor(subject, client));
    }));
  }
  // A code already used (or an older one) is as wrong as a mistyped one.
  if (!claimed) {
    CAIRN_TRY(RecordWrongAttempt(subject));
    return InvalidCode();
  }
  auto passed = Pass(subject, "totp", trust_device, client);
  if (passed.ok() && subject.caller != nullptr) passed->user.two_factor_enabled = true;
  return passed;
}

Result<SecondFactorPassed> TwoFactorService::VerifyBackupCode(const TwoFactorSubject& subject,
                                                              std::string_view code,
                                                              bool trust_device, bool open_session,
                                                              const ClientInfo& client) {
  CAIRN_TRY(CountGuess(subject, client));
  std::optional<TwoFactorRow> row;
  CAIRN_TRY(database_.Transaction(db::Access::kRead, [&](db::Connection& connection) -> Status {
    CAIRN_ASSIGN_OR_RETURN(row, FindTwoFactor(connection, subject.user.id));
    return {};
  }));
  if (!row) {
    return AuthError(ErrorCode::kValidation, "BACKUP_CODES_NOT_ENABLED",
                     "Backup codes aren't enabled");
  }
  CAIRN_TRY(BeforeAttempt(subject));
  CAIRN_ASSIGN_OR_RETURN(std::vector<std::string> codes, OpenBackupCodes(row->backup_codes));
  std::optional<std::size_t> match;
  for (std::size_t i = 0; i < codes.size(); ++i) {
    // Every code is compared, whichever matches.
    if (crypto::ConstantTimeEquals(codes[i], code)) match = i;
  }
  const Error invalid =
      AuthError(ErrorCode::kUnauthorized, "INVALID_BACKUP_CODE", "Invalid backup code");
  if (!match) {
    CAIRN_TRY(RecordWrongAttempt(subject));
    return invalid;
  }
  codes.erase(codes.begin() + static_cast<std::ptrdiff_t>(*match));
  const std::string remaining = SealBackupCodes(codes);
  bool replaced = false;
  CAIRN_TRY(auth_.WriteTransaction([&](db::Connection& connection) -> Status {
    CAIRN_ASSIGN_OR_RETURN(
        replaced, ReplaceBackupCodes(connection, subject.user.id, row->backup_codes, remaining,
                                     time::NowMillis()));
    return {};
  }));
  // Another request changed the codes in between (perhaps using this very code).
  if (!replaced) return Error::Conflict("Failed to verify backup code. Please try again.");
  if (!open_session) {
    SecondFactorPassed checked;
    checked.user = subject.user;
    if (subject.caller != nullptr) checked.token = subject.caller->token;
    return checked;
  }
  return Pass(subject, "backup_code", trust_device, client);
}

Status TwoFactorService::SendOtp(const TwoFactorSubject& subject) {
  const std::string code = RandomDigits(kTwoFactorOtpDigits);
  const std::string key = OtpKey(subject);
  CAIRN_TRY(auth_.WriteTransaction([&](db::Connection& connection) -> Status {
    const std::int64_t now = time::NowMillis();
    // One live code per challenge (or session): asking again replaces it.
    CAIRN_TRY(ConsumeVerification(connection, key));
    return InsertVerification(connection, key,
                              {std::string(kOtpPurpose), subject.user.id, "0:" + box_.Seal(code),
                               now + kTwoFactorOtpLifetimeMillis},
                              now);
  }));
  mail::Message message;
  message.to = subject.user.email;
  message.subject = "Your verification code";
  message.text = "Hello,\r\n\r\nYour verification code is " + code + ". It expires in " +
                 std::to_string(kTwoFactorOtpLifetimeMillis / 60000) +
                 " minutes.\r\n\r\nIf you did not try to sign in, change your password.\r\n";
  if (Status sent = mailer_->Send(message); !sent.ok()) {
    log::Error("cannot send the two-factor code mail: " + sent.error().message + " " +
               sent.error().detail);
    return Error::Unavailable("The email could not be sent; try again later", sent.error().detail);
  }
  return {};
}

Result<SecondFactorPassed> TwoFactorService::VerifyOtp(const TwoFactorSubject& subject,
                                                       std::string_view code, bool trust_device,
                                                       const ClientInfo& client) {
  CAIRN_TRY(CountGuess(subject, client));
  const std::string key = OtpKey(subject);
  enum class Outcome { kExpired, kTooMany, kWrong, kRight } outcome = Outcome::kExpired;
  CAIRN_TRY(auth_.WriteTransaction([&](db::Connection& connection) -> Status {
    const std::int64_t now = time::NowMillis();
    outcome = Outcome::kExpired;
    CAIRN_ASSIGN_OR_RETURN(auto found, ConsumeVerification(connection, key));
    if (!found || found->purpose != kOtpPurpose || found->user_id != subject.user.id ||
        found->expires_at <= now) {
      return {};
    }
    const auto [attempts, sealed] = SplitCount(found->value);
    if (attempts < 0 || attempts >= kTwoFactorOtpAttempts) {
      outcome = Outcome::kTooMany;  // the code stays consumed: a new one is needed
      return {};
    }
    const auto expected = box_.Open(sealed);
    if (!expected) return SealBroken();
    if (code.size() <= kMaxTwoFactorCodeLength && crypto::ConstantTimeEquals(*expected, code)) {
      outcome = Outcome::kRight;
      if (subject.caller == nullptr) return {};
      // Verifying a mailed code while signed in turns two-factor on (Better Auth's behaviour).
      return TurnOn(connection, subject.user, "otp", ActorFor(subject, client));
    }
    outcome = Outcome::kWrong;
    Verification again = *found;
    again.value = std::to_string(attempts + 1) + ":" + sealed;
    return InsertVerification(connection, key, again, now);
  }));
  switch (outcome) {
    case Outcome::kExpired:
      return AuthError(ErrorCode::kValidation, "OTP_HAS_EXPIRED", "OTP has expired");
    case Outcome::kTooMany:
      return TooManyAttempts();
    case Outcome::kWrong:
      return InvalidCode();
    case Outcome::kRight:
      break;
  }
  auto passed = Pass(subject, "otp", trust_device, client);
  if (passed.ok() && subject.caller != nullptr) passed->user.two_factor_enabled = true;
  return passed;
}

}  // namespace cairn::auth
