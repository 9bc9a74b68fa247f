// Magic links and email one-time codes of AuthService (D19), as Better Auth's magicLink and
// emailOTP plugins behave: single use, 5 minutes, 3 guesses per code, sign-up on first use when
// sign-up is allowed, and the same answer whether or not an address has an account.
#include <boost/url/encode.hpp>
#include <boost/url/rfc/unreserved_chars.hpp>

#include <boost/json.hpp>

#include "auth/auth_errors.hpp"
#include "auth/auth_service.hpp"
#include "auth/email_code_store.hpp"
#include "auth/limits.hpp"
#include "auth/password.hpp"
#include "auth/session_store.hpp"
#include "common/crypto.hpp"
#include "common/log.hpp"
#include "common/time.hpp"
#include "db/db_error.hpp"

namespace cairn::auth {
namespace {

constexpr std::string_view kMagicLinkPurpose = "magic-link";
constexpr std::string_view kPasswordStrategy = "emailAndPassword";
constexpr std::string_view kSignUpDisabled = "NEW_USER_SIGNUP_DISABLED";

// A refusal of SignInByProvenEmail (no sign-up, a banned user) comes before any write: it is
// kept for the answer and the transaction commits, so the link or code stays used up (as in
// Better Auth). Any other error rolls back.
Status KeepRefusal(const Error& error, std::optional<Error>& refusal) {
  if (error.reason != kSignUpDisabled && error.reason != "BANNED_USER") return error;
  refusal = error;
  return {};
}

// `digits` decimal digits from the CSPRNG, each uniform (bytes of 250 and more are redrawn so
// that byte % 10 has no bias).
std::string RandomDigits(int digits) {
  std::string out;
  while (static_cast<int>(out.size()) < digits) {
    for (unsigned char byte : crypto::RandomBytes(static_cast<std::size_t>(digits))) {
      if (byte < 250 && static_cast<int>(out.size()) < digits) {
        out.push_back(static_cast<char>('0' + byte % 10));
      }
    }
  }
  return out;
}

Error UserNotFoundForCode() {
  // Safe to say once the code has been proven (Better Auth does the same).
  return AuthError(ErrorCode::kValidation, "USER_NOT_FOUND", "User not found");
}

struct OtpMail {
  std::string_view subject;
  std::string_view intro;
};

OtpMail OtpMailFor(std::string_view type) {
  if (type == "sign-in") {
    return {"Your sign-in code", "Enter this code within 5 minutes to sign in:"};
  }
  if (type == "forget-password") {
    return {"Your password reset code",
            "Someone asked to reset the password of your account. If it was you, enter this "
            "code within 5 minutes to choose a new password:"};
  }
  return {"Your verification code", "Enter this code within 5 minutes to verify your email:"};
}

std::string EncodedParam(std::string_view key, std::string_view value) {
  std::string out("&");
  out.append(key).push_back('=');
  out += boost::urls::encode(value, boost::urls::unreserved_chars);
  return out;
}

}  // namespace

Error AuthService::OtpFailure(OtpCheck check) {
  switch (check) {
    case OtpCheck::kExpired:
      return AuthError(ErrorCode::kValidation, "OTP_EXPIRED", "OTP expired");
    case OtpCheck::kTooManyAttempts:
      return AuthError(ErrorCode::kForbidden, "TOO_MANY_ATTEMPTS", "Too many attempts");
    default:
      return AuthError(ErrorCode::kValidation, "INVALID_OTP", "Invalid OTP");
  }
}

std::string AuthService::OneTimeSecretHash(std::string_view purpose, std::string_view email,
                                           std::string_view secret) const {
  std::string data("cairn-one-time-secret\n");
  data.append(purpose).push_back('\n');
  data.append(email).push_back('\n');
  data.append(secret);
  return crypto::Base64Url(crypto::HmacSha256(options_.secret, data));
}

Status AuthService::LimitPerEmail(std::string_view kind, std::string_view email, int max) {
  if (!options_.rate_check) return {};
  std::string key("per-email:");
  key.append(kind).push_back(':');
  key.append(email);
  CAIRN_ASSIGN_OR_RETURN(int retry_after,
                         options_.rate_check(key, max, kOneTimeCodeEmailWindowMillis));
  if (retry_after <= 0) return {};
  Error error = AuthError(ErrorCode::kRateLimited, "RATE_LIMITED",
                          "Too many requests, retry in " + std::to_string(retry_after) + " s");
  error.retry_after_seconds = retry_after;
  return error;
}

Status AuthService::MailOneTimeSecret(std::string_view to, std::string_view subject,
                                      std::string_view intro, std::string_view secret) {
  mail::Message message;
  message.to = std::string(to);
  message.subject = std::string(subject);
  // As for the other auth mail, nothing the requester typed goes into it.
  message.text = "Hello,\r\n\r\n" + std::string(intro) + "\r\n\r\n" + std::string(secret) +
                 "\r\n\r\nIf you did not ask for this, ignore this message.\r\n";
  if (Status sent = mailer_->Send(message); !sent.ok()) {
    return Error::Unavailable("The email could not be sent; try again later", sent.error().detail);
  }
  return {};
}

Result<AuthService::OtpCheck> AuthService::GuessEmailOtp(db::Connection& connection,
                                                         std::string_view purpose,
                                                         std::string_view email,
                                                         std::string_view otp, bool keep) {
  CAIRN_ASSIGN_OR_RETURN(auto code, CountEmailCodeGuess(connection, purpose, email));
  if (!code) return OtpCheck::kInvalid;
  if (code->expires_at <= time::NowMillis()) {
    CAIRN_TRY(DeleteEmailCode(connection, purpose, email));
    return OtpCheck::kExpired;
  }
  if (code->attempts > kEmailOtpMaxAttempts) {
    // Used up: gone, so only a new code helps.
    CAIRN_TRY(DeleteEmailCode(connection, purpose, email));
    return OtpCheck::kTooManyAttempts;
  }
  if (!crypto::ConstantTimeEquals(code->secret_hash, OneTimeSecretHash(purpose, email, otp))) {
    return OtpCheck::kInvalid;
  }
  if (keep) {
    CAIRN_TRY(UncountEmailCodeGuess(connection, purpose, email));
  } else {
    CAIRN_TRY(DeleteEmailCode(connection, purpose, email));
  }
  return OtpCheck::kOk;
}

Result<PasswordlessSignIn> AuthService::SignInByProvenEmail(
    db::Connection& connection, std::string_view email, std::string_view name,
    std::optional<std::string> image, const ClientInfo& client, std::string_view method) {
  const std::int64_t now = time::NowMillis();
  PasswordlessSignIn result;
  CAIRN_ASSIGN_OR_RETURN(auto found, FindUserByEmail(connection, email));
  boost::json::object metadata{{"method", method}};
  if (!found) {
    if (!options_.config.allow_sign_up) {
      return AuthError(ErrorCode::kForbidden, "NEW_USER_SIGNUP_DISABLED", "Sign up is not enabled");
    }
    result.user = NewUser(std::string(name), std::string(email), options_.config.default_role, now);
    result.user.email_verified = true;  // proven by the link or code
    result.user.image = std::move(image);
    CAIRN_ASSIGN_OR_RETURN(bool inserted,
                           InsertUserUnlessTaken(connection, result.user, std::nullopt));
    if (!inserted) return Error::Conflict("The account was created at the same time; try again");
    result.new_user = true;
  } else {
    result.user = std::move(*found);
    if (result.user.banned && (!result.user.ban_expires || *result.user.ban_expires > now)) {
      return Banned();
    }
    if (!result.user.email_verified) {
      // Whatever the account gained before its address was proven (a password set by whoever
      // signed up with someone else's address, their sessions) does not pass to the owner.
      CAIRN_TRY(DeleteAccountsOfUser(connection, result.user.id));
      CAIRN_TRY(DeleteSessionsOfUser(connection, result.user.id, std::nullopt));
      result.user.email_verified = true;
      result.user.updated_at = now;
      CAIRN_TRY(UpdateUser(connection, result.user));
      metadata["unprovenAccessRevoked"] = true;
    }
  }
  CAIRN_ASSIGN_OR_RETURN(result.session, CreateSession(connection, result.user, client, true));
  metadata["sessionId"] = result.session.session.id;
  CAIRN_TRY(RecordEvent(connection, result.new_user ? "sign_up" : "sign_in",
                        Actor{result.user.id, std::nullopt, client}, std::move(metadata)));
  return result;
}

// --- Magic links --------------------------------------------------------------------------------

Status AuthService::RequestMagicLink(const MagicLinkRequest& request) {
  const std::string email = NormalizeEmail(request.email);
  if (email.empty()) return FieldFailure("INVALID_EMAIL", "email", "Invalid email");
  if (request.name.size() > kMaxNameLength) {
    return FieldFailure("INVALID_NAME", "name", "Name is too long");
  }
  CAIRN_TRY(CheckCallbackUrl(request.callback_url, options_.base_url, "callbackURL"));
  CAIRN_TRY(
      CheckCallbackUrl(request.new_user_callback_url, options_.base_url, "newUserCallbackURL"));
  CAIRN_TRY(CheckCallbackUrl(request.error_callback_url, options_.base_url, "errorCallbackURL"));
  // Counted for every address, known or not, so the limit tells nothing about accounts.
  CAIRN_TRY(LimitPerEmail("mail", email, kOneTimeCodeMailsPerEmail));
  CAIRN_ASSIGN_OR_RETURN(auto user, FindByEmail(email));
  // An unknown address could not use the link: no mail, the same answer.
  if (!user && !options_.config.allow_sign_up) return {};
  background_.Post([this, email, request] {
    const std::string token = crypto::RandomAlphanumeric(kSessionTokenLength);
    const std::int64_t now = time::NowMillis();
    EmailCode code{std::string(kMagicLinkPurpose),
                   email,
                   OneTimeSecretHash(kMagicLinkPurpose, {}, token),
                   request.name,
                   0,
                   now + kMagicLinkLifetimeMillis};
    Status stored = WriteTransaction(
        [&](db::Connection& connection) { return ReplaceEmailCode(connection, code, now); });
    if (!stored.ok()) {
      log::Warn("magic link not stored: " + stored.error().detail);
      return;
    }
    std::string link = options_.base_url + "/api/auth/magic-link/verify?token=" + token;
    link += EncodedParam("callbackURL", request.callback_url.empty() ? "/" : request.callback_url);
    if (!request.new_user_callback_url.empty()) {
      link += EncodedParam("newUserCallbackURL", request.new_user_callback_url);
    }
    if (!request.error_callback_url.empty()) {
      link += EncodedParam("errorCallbackURL", request.error_callback_url);
    }
    if (Status sent = MailOneTimeSecret(email, "Your sign-in link",
                                        "Open this link within 5 minutes to sign in:", link);
        !sent.ok()) {
      log::Warn("magic link mail not sent: " + sent.error().detail);
    }
  });
  return {};
}

Result<PasswordlessSignIn> AuthService::VerifyMagicLink(std::string_view token,
                                                        const ClientInfo& client) {
  if (token.empty()) return InvalidToken();
  std::optional<PasswordlessSignIn> signed_in;
  std::optional<Error> refusal;
  CAIRN_TRY(WriteTransaction([&](db::Connection& connection) -> Status {
    signed_in.reset();
    refusal.reset();
    // Consumed at once: of concurrent uses, only one finds the row.
    CAIRN_ASSIGN_OR_RETURN(
        auto code, ConsumeEmailCodeBySecret(connection, kMagicLinkPurpose,
                                            OneTimeSecretHash(kMagicLinkPurpose, {}, token)));
    if (!code || code->expires_at <= time::NowMillis()) return {};
    auto result = SignInByProvenEmail(connection, code->email, code->value, std::nullopt, client,
                                      "magic-link");
    if (!result.ok()) return KeepRefusal(result.error(), refusal);
    signed_in = std::move(result).value();
    return {};
  }));
  if (refusal) return std::move(*refusal);
  if (!signed_in) return InvalidToken();
  PurgeExpiredHourly();
  return std::move(*signed_in);
}

// --- Email one-time codes -----------------------------------------------------------------------

Status AuthService::SendEmailOtp(std::string_view email_input, std::string_view type) {
  const std::string email = NormalizeEmail(email_input);
  if (email.empty()) return FieldFailure("INVALID_EMAIL", "email", "Invalid email");
  if (type == "forget-password" && !options_.config.HasStrategy(kPasswordStrategy)) {
    // Without the password strategy there is no password to reset.
    return FieldFailure("INVALID_OTP_TYPE", "type", "Invalid OTP type");
  }
  CAIRN_TRY(LimitPerEmail("mail", email, kOneTimeCodeMailsPerEmail));
  CAIRN_ASSIGN_OR_RETURN(auto user, FindByEmail(email));
  // Only where the code can be used: an account, or a sign-in that may sign up.
  const bool usable = user || (type == "sign-in" && options_.config.allow_sign_up);
  if (!usable) return {};
  background_.Post([this, email, purpose = std::string(type)] {
    const std::string otp = RandomDigits(kEmailOtpDigits);
    const std::int64_t now = time::NowMillis();
    EmailCode code{purpose, email, OneTimeSecretHash(purpose, email, otp),
                   {},      0,     now + kEmailOtpLifetimeMillis};
    Status stored = WriteTransaction(
        [&](db::Connection& connection) { return ReplaceEmailCode(connection, code, now); });
    if (!stored.ok()) {
      log::Warn("email code not stored: " + stored.error().detail);
      return;
    }
    const OtpMail text = OtpMailFor(purpose);
    if (Status sent = MailOneTimeSecret(email, text.subject, text.intro, otp); !sent.ok()) {
      log::Warn("email code mail not sent: " + sent.error().detail);
    }
  });
  return {};
}

Status AuthService::CheckEmailOtp(std::string_view email_input, std::string_view type,
                                  std::string_view otp) {
  const std::string email = NormalizeEmail(email_input);
  if (email.empty()) return FieldFailure("INVALID_EMAIL", "email", "Invalid email");
  CAIRN_TRY(LimitPerEmail("guess", email, kOneTimeCodeGuessesPerEmail));
  OtpCheck check = OtpCheck::kInvalid;
  CAIRN_TRY(WriteTransaction([&](db::Connection& connection) -> Status {
    CAIRN_ASSIGN_OR_RETURN(check, GuessEmailOtp(connection, type, email, otp, true));
    return {};
  }));
  if (check != OtpCheck::kOk) return OtpFailure(check);
  CAIRN_ASSIGN_OR_RETURN(auto user, FindByEmail(email));
  if (!user) return UserNotFoundForCode();
  return {};
}

Result<PasswordlessSignIn> AuthService::SignInWithEmailOtp(std::string_view email_input,
                                                           std::string_view otp,
                                                           std::optional<std::string> name,
                                                           std::optional<std::string> image,
                                                           const ClientInfo& client) {
  const std::string email = NormalizeEmail(email_input);
  if (email.empty()) return FieldFailure("INVALID_EMAIL", "email", "Invalid email");
  if (name && name->size() > kMaxNameLength) {
    return FieldFailure("INVALID_NAME", "name", "Name is too long");
  }
  if (image && image->size() > kMaxImageLength) {
    return FieldFailure("INVALID_IMAGE", "image", "Image URL is too long");
  }
  CAIRN_TRY(LimitPerEmail("guess", email, kOneTimeCodeGuessesPerEmail));
  OtpCheck check = OtpCheck::kInvalid;
  std::optional<PasswordlessSignIn> signed_in;
  std::optional<Error> refusal;
  CAIRN_TRY(WriteTransaction([&](db::Connection& connection) -> Status {
    signed_in.reset();
    refusal.reset();
    CAIRN_ASSIGN_OR_RETURN(check, GuessEmailOtp(connection, "sign-in", email, otp, false));
    // A wrong guess commits: its attempt must count.
    if (check != OtpCheck::kOk) return {};
    auto result =
        SignInByProvenEmail(connection, email, name.value_or(""), image, client, "email-otp");
    if (!result.ok()) return KeepRefusal(result.error(), refusal);
    signed_in = std::move(result).value();
    return {};
  }));
  if (refusal) {
    // Better Auth answers a code for an address that may not sign up as a wrong one.
    if (refusal->reason == kSignUpDisabled) return OtpFailure(OtpCheck::kInvalid);
    return std::move(*refusal);
  }
  if (check != OtpCheck::kOk || !signed_in) return OtpFailure(check);
  PurgeExpiredHourly();
  return std::move(*signed_in);
}

Result<User> AuthService::VerifyEmailWithOtp(std::string_view email_input, std::string_view otp) {
  const std::string email = NormalizeEmail(email_input);
  if (email.empty()) return FieldFailure("INVALID_EMAIL", "email", "Invalid email");
  CAIRN_TRY(LimitPerEmail("guess", email, kOneTimeCodeGuessesPerEmail));
  OtpCheck check = OtpCheck::kInvalid;
  std::optional<User> verified;
  CAIRN_TRY(WriteTransaction([&](db::Connection& connection) -> Status {
    verified.reset();
    CAIRN_ASSIGN_OR_RETURN(check,
                           GuessEmailOtp(connection, "email-verification", email, otp, false));
    if (check != OtpCheck::kOk) return {};
    CAIRN_ASSIGN_OR_RETURN(auto user, FindUserByEmail(connection, email));
    if (!user) return {};
    if (!user->email_verified) {
      user->email_verified = true;
      user->updated_at = time::NowMillis();
      CAIRN_TRY(UpdateUser(connection, *user));
    }
    verified = std::move(user);
    return {};
  }));
  if (check != OtpCheck::kOk) return OtpFailure(check);
  if (!verified) return UserNotFoundForCode();
  return std::move(*verified);
}

Status AuthService::ResetPasswordWithOtp(std::string_view email_input, std::string_view otp,
                                         std::string_view password, const ClientInfo& client) {
  const std::string email = NormalizeEmail(email_input);
  if (email.empty()) return FieldFailure("INVALID_EMAIL", "email", "Invalid email");
  CAIRN_TRY(CheckPassword(password, "password"));
  CAIRN_TRY(LimitPerEmail("guess", email, kOneTimeCodeGuessesPerEmail));
  // The code is checked (and a wrong guess counted) before the deliberately slow hash.
  OtpCheck check = OtpCheck::kInvalid;
  CAIRN_TRY(WriteTransaction([&](db::Connection& connection) -> Status {
    CAIRN_ASSIGN_OR_RETURN(check, GuessEmailOtp(connection, "forget-password", email, otp, true));
    return {};
  }));
  if (check != OtpCheck::kOk) return OtpFailure(check);
  CAIRN_ASSIGN_OR_RETURN(auto user, FindByEmail(email));
  if (!user) return UserNotFoundForCode();
  CAIRN_ASSIGN_OR_RETURN(std::string hash, HashPassword(password));
  CAIRN_TRY(WriteTransaction([&](db::Connection& connection) -> Status {
    // Consumed here, once: of concurrent resets with the code, only one gets through.
    CAIRN_ASSIGN_OR_RETURN(check, GuessEmailOtp(connection, "forget-password", email, otp, false));
    if (check != OtpCheck::kOk) return {};
    const std::int64_t now = time::NowMillis();
    CAIRN_TRY(SetPasswordHash(connection, user->id, hash, now));
    // As for the reset link: whoever held a session may be the reason for the reset.
    CAIRN_ASSIGN_OR_RETURN(std::int64_t removed,
                           DeleteSessionsOfUser(connection, user->id, std::nullopt));
    if (!user->email_verified) {
      user->email_verified = true;
      user->updated_at = now;
      CAIRN_TRY(UpdateUser(connection, *user));
    }
    return RecordEvent(connection, "password_reset", Actor{user->id, std::nullopt, client},
                       {{"method", "email-otp"}, {"sessionsRevoked", removed}});
  }));
  if (check != OtpCheck::kOk) return OtpFailure(check);
  return {};
}

}  // namespace cairn::auth
