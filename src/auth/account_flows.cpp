// Profile, password, email and verification flows of AuthService.
#include <algorithm>

#include <boost/url/encode.hpp>
#include <boost/url/rfc/unreserved_chars.hpp>

#include <boost/json.hpp>

#include "auth/auth_errors.hpp"
#include "auth/auth_service.hpp"
#include "auth/limits.hpp"
#include "auth/password.hpp"
#include "auth/session_store.hpp"
#include "common/crypto.hpp"
#include "common/log.hpp"
#include "common/time.hpp"

namespace cairn::auth {
namespace {

struct MailText {
  std::string subject;
  std::string intro;
};

MailText TextFor(std::string_view purpose) {
  if (purpose == "reset-password") {
    return {"Reset your password",
            "Someone asked to reset the password of your account. If it was you, open this "
            "link within an hour to choose a new password:"};
  }
  if (purpose == "change-email") {
    return {"Confirm your new email address",
            "Open this link within an hour to make this your account's email address:"};
  }
  return {"Verify your email address",
          "Open this link within an hour to verify your email address:"};
}

}  // namespace

Status CheckCallbackUrl(std::string_view url, std::string_view base_url, std::string_view field) {
  if (url.empty()) return {};
  const bool relative = url.front() == '/' && !url.starts_with("//") && !url.starts_with("/\\");
  // An absolute URL must stay on this server's origin: no open redirects through our links.
  const bool same_origin =
      url.starts_with(base_url) && (url.size() == base_url.size() || url[base_url.size()] == '/' ||
                                    url[base_url.size()] == '?' || url[base_url.size()] == '#');
  bool clean = true;
  for (char c : url) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) clean = false;
  }
  if ((relative || same_origin) && clean && url.size() <= kMaxImageLength) return {};
  // Better Auth names the reason after the field.
  const bool redirect = field == "redirectTo";
  return FieldFailure(redirect ? "INVALID_REDIRECT_URL" : "INVALID_CALLBACK_URL", field,
                      std::string(redirect ? "Invalid redirectURL" : "Invalid callbackURL") +
                          ": use a path on this server or its own origin");
}

Status AuthService::SendTokenMail(const User& user, std::string_view purpose,
                                  std::string_view value, std::string_view to,
                                  std::string_view callback_url) {
  const std::string token = crypto::RandomAlphanumeric(kSessionTokenLength);
  const std::int64_t now = time::NowMillis();
  CAIRN_TRY(WriteTransaction([&](db::Connection& connection) -> Status {
    // One live link per purpose: asking again invalidates the previous one.
    CAIRN_TRY(DeleteVerificationsOfUser(connection, user.id, purpose));
    return InsertVerification(
        connection, SessionTokenCodec::Hash(token),
        {std::string(purpose), user.id, std::string(value), now + kEmailTokenLifetimeMillis}, now);
  }));
  std::string link = options_.base_url;
  if (purpose == "reset-password") {
    link.append("/api/auth/reset-password/").append(token);
    if (!callback_url.empty()) {
      link.append("?callbackURL=");
      link += boost::urls::encode(callback_url, boost::urls::unreserved_chars);
    }
  } else {
    link.append("/api/auth/verify-email?token=").append(token);
    link.append("&callbackURL=");
    link += boost::urls::encode(callback_url.empty() ? std::string_view("/") : callback_url,
                                boost::urls::unreserved_chars);
  }
  const MailText text = TextFor(purpose);
  mail::Message message;
  message.to = std::string(to);
  message.subject = text.subject;
  // No user-supplied text (such as the name) goes into the mail: whoever signs up with someone
  // else's address must not be able to put their words in front of that person.
  message.text = "Hello,\r\n\r\n" + text.intro + "\r\n\r\n" + link +
                 "\r\n\r\nIf you did not ask for this, ignore this message.\r\n";
  if (Status sent = mailer_->Send(message); !sent.ok()) {
    log::Error("cannot send the " + std::string(purpose) + " mail: " + sent.error().message + " " +
               sent.error().detail);
    return Error::Unavailable("The email could not be sent; try again later", sent.error().detail);
  }
  return {};
}

Result<User> AuthService::UpdateProfile(const User& current, std::optional<std::string> name,
                                        std::optional<std::optional<std::string>> image) {
  if (name && name->size() > kMaxNameLength) {
    return FieldFailure("INVALID_NAME", "name", "Name is too long");
  }
  if (image && *image && (*image)->size() > kMaxImageLength) {
    return FieldFailure("INVALID_IMAGE", "image", "Image URL is too long");
  }
  User user = current;
  if (name) user.name = std::move(*name);
  if (image) user.image = std::move(*image);
  user.updated_at = time::NowMillis();
  CAIRN_TRY(
      WriteTransaction([&](db::Connection& connection) { return UpdateUser(connection, user); }));
  return user;
}

Result<std::optional<IssuedSession>> AuthService::ChangePassword(const Caller& caller,
                                                                 std::string_view current,
                                                                 std::string_view next,
                                                                 bool revoke_other_sessions,
                                                                 const ClientInfo& client) {
  CAIRN_TRY(CheckPassword(next, "newPassword"));
  std::optional<std::string> hash;
  CAIRN_TRY(database_.Transaction(db::Access::kRead, [&](db::Connection& connection) -> Status {
    CAIRN_ASSIGN_OR_RETURN(hash, FindPasswordHash(connection, caller.user.id));
    return {};
  }));
  if (!hash) {
    return AuthError(ErrorCode::kValidation, "CREDENTIAL_ACCOUNT_NOT_FOUND",
                     "Credential account not found");
  }
  if (!VerifyPassword(current, *hash)) {
    return FieldFailure("INVALID_PASSWORD", "currentPassword", "Invalid password");
  }
  CAIRN_ASSIGN_OR_RETURN(std::string new_hash, HashPassword(next));
  std::optional<IssuedSession> replacement;
  CAIRN_TRY(WriteTransaction([&](db::Connection& connection) -> Status {
    const std::int64_t now = time::NowMillis();
    CAIRN_TRY(SetPasswordHash(connection, caller.user.id, new_hash, now));
    if (revoke_other_sessions) {
      // Every session ends, the caller's too; the caller gets a fresh one.
      CAIRN_ASSIGN_OR_RETURN(std::int64_t removed,
                             DeleteSessionsOfUser(connection, caller.user.id, std::nullopt));
      CAIRN_ASSIGN_OR_RETURN(
          auto issued, CreateSession(connection, caller.user, client, caller.session.remember));
      replacement = std::move(issued);
      CAIRN_TRY(
          RecordEvent(connection, "session_revoked", ActorOf(caller, client),
                      {{"scope", "all"}, {"count", removed}, {"reason", "password_changed"}}));
    }
    return {};
  }));
  return replacement;
}

Status AuthService::ChangeEmail(const User& user, std::string_view new_email_input,
                                std::string_view callback_url) {
  const std::string new_email = NormalizeEmail(new_email_input);
  if (new_email.empty()) return FieldFailure("INVALID_EMAIL", "newEmail", "Invalid email");
  CAIRN_TRY(CheckCallbackUrl(callback_url, options_.base_url, "callbackURL"));
  if (new_email == user.email) {
    return FieldFailure("EMAIL_IS_THE_SAME", "newEmail", "Email is the same");
  }
  CAIRN_ASSIGN_OR_RETURN(auto taken, FindByEmail(new_email));
  if (taken) {
    return FieldFailure("USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL", "newEmail",
                        "User already exists. Use another email.");
  }
  if (!user.email_verified) {
    // Nothing verified is lost: the address changes now and stays unverified.
    User updated = user;
    updated.email = new_email;
    updated.updated_at = time::NowMillis();
    Status written = WriteTransaction(
        [&](db::Connection& connection) { return UpdateUser(connection, updated); });
    if (!written.ok() && db::ErrorKindOf(written.error()) == db::DbErrorKind::kUnique) {
      return FieldFailure("USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL", "newEmail",
                          "User already exists. Use another email.");
    }
    CAIRN_TRY(written);
    if (options_.config.require_email_verification) {
      return SendTokenMail(updated, "verify-email", {}, new_email, callback_url);
    }
    return {};
  }
  // A verified address changes only when the new one proves it receives mail.
  return SendTokenMail(user, "change-email", new_email, new_email, callback_url);
}

Status AuthService::RequestPasswordReset(std::string_view email_input,
                                         std::string_view redirect_to) {
  CAIRN_TRY(CheckCallbackUrl(redirect_to, options_.base_url, "redirectTo"));
  const std::string email = NormalizeEmail(email_input);
  if (email.empty()) return FieldFailure("INVALID_EMAIL", "email", "Invalid email");
  CAIRN_ASSIGN_OR_RETURN(auto user, FindByEmail(email));
  if (!user) return {};  // the same answer as for a known address (D12)
  // After the answer: the token write and the mail take time an unknown address would not.
  background_.Post([this, user = std::move(*user), redirect = std::string(redirect_to)] {
    if (Status sent = SendTokenMail(user, "reset-password", {}, user.email, redirect); !sent.ok()) {
      log::Warn("password reset mail not sent: " + sent.error().detail);
    }
  });
  return {};
}

Status AuthService::ResetPassword(std::string_view token, std::string_view new_password,
                                  const ClientInfo& client) {
  CAIRN_TRY(CheckPassword(new_password, "newPassword"));
  const std::string token_hash = SessionTokenCodec::Hash(token);
  auto usable = [](const std::optional<Verification>& found, std::int64_t now) {
    return found && found->purpose == "reset-password" && found->expires_at > now;
  };
  // The token is checked before the (deliberately slow) hash, so bogus tokens cost little.
  std::optional<Verification> peeked;
  CAIRN_TRY(database_.Transaction(db::Access::kRead, [&](db::Connection& connection) -> Status {
    CAIRN_ASSIGN_OR_RETURN(peeked, FindVerification(connection, token_hash));
    return {};
  }));
  if (!usable(peeked, time::NowMillis())) return InvalidToken();
  CAIRN_ASSIGN_OR_RETURN(std::string hash, HashPassword(new_password));
  bool valid = false;
  CAIRN_TRY(WriteTransaction([&](db::Connection& connection) -> Status {
    const std::int64_t now = time::NowMillis();
    // Consumed here, once: of concurrent uses, only one finds the row.
    CAIRN_ASSIGN_OR_RETURN(auto found, ConsumeVerification(connection, token_hash));
    if (!usable(found, now)) return {};
    valid = true;
    CAIRN_TRY(SetPasswordHash(connection, found->user_id, hash, now));
    // Whoever held a session may be the reason for the reset: every session ends.
    CAIRN_ASSIGN_OR_RETURN(std::int64_t removed,
                           DeleteSessionsOfUser(connection, found->user_id, std::nullopt));
    // The holder of the reset link acts as the account's owner.
    return RecordEvent(connection, "password_reset", Actor{found->user_id, std::nullopt, client},
                       {{"sessionsRevoked", removed}});
  }));
  if (!valid) return InvalidToken();
  return {};
}

Status AuthService::SendVerificationEmail(std::string_view email_input,
                                          std::string_view callback_url) {
  CAIRN_TRY(CheckCallbackUrl(callback_url, options_.base_url, "callbackURL"));
  const std::string email = NormalizeEmail(email_input);
  if (email.empty()) return FieldFailure("INVALID_EMAIL", "email", "Invalid email");
  CAIRN_ASSIGN_OR_RETURN(auto user, FindByEmail(email));
  // Unknown and already verified addresses get the same answer and no mail; the mail goes out
  // after the answer so that its time tells nothing either.
  if (!user || user->email_verified) return {};
  background_.Post([this, user = std::move(*user), callback = std::string(callback_url)] {
    if (Status sent = SendTokenMail(user, "verify-email", {}, user.email, callback); !sent.ok()) {
      log::Warn("verification mail not sent: " + sent.error().detail);
    }
  });
  return {};
}

Result<User> AuthService::VerifyEmail(std::string_view token) {
  std::optional<User> verified;
  Status written = WriteTransaction([&](db::Connection& connection) -> Status {
    const std::int64_t now = time::NowMillis();
    CAIRN_ASSIGN_OR_RETURN(auto found,
                           ConsumeVerification(connection, SessionTokenCodec::Hash(token)));
    if (!found || found->expires_at <= now ||
        (found->purpose != "verify-email" && found->purpose != "change-email")) {
      return {};
    }
    CAIRN_ASSIGN_OR_RETURN(User user, LoadUser(connection, found->user_id));
    if (found->purpose == "change-email") user.email = found->value;
    user.email_verified = true;
    user.updated_at = now;
    CAIRN_TRY(UpdateUser(connection, user));
    verified = std::move(user);
    return {};
  });
  if (!written.ok() && db::ErrorKindOf(written.error()) == db::DbErrorKind::kUnique) {
    return FieldFailure("USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL", "newEmail",
                        "User already exists. Use another email.");
  }
  CAIRN_TRY(written);
  if (!verified) return InvalidToken();
  return std::move(*verified);
}

}  // namespace cairn::auth
