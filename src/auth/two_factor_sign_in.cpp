// Sign-in with a second factor: the gate after the password, the challenge, and the
// verification of TOTP, backup and mailed codes (TwoFactorService's other half).
#include "auth/two_factor_service.hpp"

#include "auth/limits.hpp"
#include "auth/session_store.hpp"
#include "auth/totp.hpp"
#include "auth/two_factor_internal.hpp"
#include "auth/two_factor_store.hpp"
#include "auth/user_store.hpp"
#include "common/crypto.hpp"
#include "common/log.hpp"
#include "common/time.hpp"

namespace cairn::auth {
namespace {

using namespace two_factor;

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
