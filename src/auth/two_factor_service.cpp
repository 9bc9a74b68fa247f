#include "auth/two_factor_service.hpp"

#include <algorithm>

#include <boost/json.hpp>

#include "auth/limits.hpp"
#include "auth/password.hpp"
#include "auth/session_store.hpp"
#include "auth/totp.hpp"
#include "auth/two_factor_internal.hpp"
#include "auth/two_factor_store.hpp"
#include "auth/user_store.hpp"
#include "common/crypto.hpp"
#include "common/log.hpp"
#include "common/time.hpp"

namespace cairn::auth {

using namespace two_factor;

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

}  // namespace cairn::auth
