#include "auth/auth_service.hpp"

#include <algorithm>
#include <cctype>

#include <boost/json.hpp>

#include "activity/activity.hpp"
#include "auth/account_erasure.hpp"
#include "auth/auth_errors.hpp"
#include "auth/email_code_store.hpp"
#include "auth/limits.hpp"
#include "auth/password.hpp"
#include "auth/session_store.hpp"
#include "common/crypto.hpp"
#include "common/email.hpp"
#include "common/log.hpp"
#include "common/time.hpp"
#include "db/db_error.hpp"

namespace cairn::auth {
namespace {

constexpr std::array<std::string_view, 3> kBuiltInRoles{"admin", "member", "viewer"};

std::string Truncate(std::string_view text, std::size_t limit) {
  return std::string(text.substr(0, limit));
}

// A password's length as Better Auth counts it (a JavaScript string's length: UTF-16 code
// units), so that bounds mean characters, not bytes.
int PasswordLength(std::string_view password) {
  int units = 0;
  for (char c : password) {
    const auto byte = static_cast<unsigned char>(c);
    if ((byte & 0xC0) != 0x80) ++units;  // a code point starts here
    if (byte >= 0xF0) ++units;           // beyond the BMP: a surrogate pair
  }
  return units;
}

}  // namespace

bool UseSessionCache(const db::Database& database) {
  // One SQLite file has one node; PostgreSQL's nodes would not see each other's revocations.
  return !database.dialect().shared_server();
}

std::string NormalizeEmail(std::string_view email) {
  while (!email.empty() && std::isspace(static_cast<unsigned char>(email.front()))) {
    email.remove_prefix(1);
  }
  while (!email.empty() && std::isspace(static_cast<unsigned char>(email.back()))) {
    email.remove_suffix(1);
  }
  if (email.size() > kMaxEmailLength || !cairn::email::IsValidAddress(email)) return {};
  // Better Auth (zod) also wants a dot in the domain: `a@localhost` is no sign-up address.
  if (email.find('.', email.find('@')) == std::string_view::npos) return {};
  std::string normalized;
  normalized.reserve(email.size());
  for (char c : email)
    normalized.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  return normalized;
}

AuthService::AuthService(db::Database& database, AuthOptions options,
                         std::shared_ptr<mail::Mailer> mailer)
    : database_(database),
      options_(std::move(options)),
      session_cache_(options_.session_cache
                         ? options_.session_cache
                         : std::make_shared<SessionCache>(UseSessionCache(database))),
      mailer_(std::move(mailer)),
      codec_(options_.secret) {}

bool AuthService::IsKnownRole(std::string_view role) const {
  if (std::find(kBuiltInRoles.begin(), kBuiltInRoles.end(), role) != kBuiltInRoles.end())
    return true;
  return std::any_of(options_.config.roles.begin(), options_.config.roles.end(),
                     [&](const config::Role& custom) { return custom.name == role; });
}

Status AuthService::CheckPassword(std::string_view password, std::string_view field) const {
  const int length = PasswordLength(password);
  if (length < options_.config.min_password_length) {
    return FieldFailure("PASSWORD_TOO_SHORT", field,
                        "Password too short: at least " +
                            std::to_string(options_.config.min_password_length) + " characters");
  }
  if (length > options_.config.max_password_length) {
    return FieldFailure("PASSWORD_TOO_LONG", field,
                        "Password too long: at most " +
                            std::to_string(options_.config.max_password_length) + " characters");
  }
  return {};
}

Result<std::optional<User>> AuthService::FindByEmail(std::string_view email) {
  std::optional<User> user;
  CAIRN_TRY(database_.Transaction(db::Access::kRead, [&](db::Connection& connection) -> Status {
    CAIRN_ASSIGN_OR_RETURN(user, FindUserByEmail(connection, email));
    return {};
  }));
  return user;
}

Result<User> AuthService::LoadUser(db::Connection& connection, std::string_view user_id) {
  CAIRN_ASSIGN_OR_RETURN(auto user, FindUserById(connection, user_id));
  if (!user) return UserNotFound();
  return std::move(*user);
}

Status AuthService::EraseAccount(db::Connection& connection, const User& user,
                                 std::string_view requested_by) {
  CAIRN_TRY(activity::ForgetActor(connection, user.id));
  for (const AccountErasureHook& hook : options_.on_account_erased) {
    CAIRN_TRY(hook(connection, user.id));
  }
  CAIRN_TRY(DeleteUserData(connection, user.id, user.email));
  // The erasure itself is recorded with no actor and nothing about the person but the old id.
  return RecordEvent(connection, "account.deletion.purged", Actor{},
                     {{"userId", user.id}, {"requestedBy", requested_by}});
}

// --- Sessions -----------------------------------------------------------------------------------

Result<IssuedSession> AuthService::CreateSession(db::Connection& connection, const User& user,
                                                 const ClientInfo& client, bool remember,
                                                 std::optional<std::string> impersonated_by) {
  const std::int64_t now = time::NowMillis();
  IssuedSession issued;
  issued.token = SessionTokenCodec::NewToken();
  Session& session = issued.session;
  session.id = crypto::RandomAlphanumeric(kIdLength);
  session.user_id = user.id;
  session.remember = remember;
  session.expires_at = now + (impersonated_by ? kImpersonationLifetimeMillis
                              : remember      ? kSessionLifetimeMillis
                                              : kShortSessionLifetimeMillis);
  if (!client.ip_address.empty()) session.ip_address = client.ip_address;
  if (!client.user_agent.empty()) {
    session.user_agent = Truncate(client.user_agent, kMaxUserAgentLength);
  }
  session.impersonated_by = std::move(impersonated_by);
  session.created_at = now;
  session.updated_at = now;
  CAIRN_TRY(InsertSession(connection, session, SessionTokenCodec::Hash(issued.token)));
  // Checked after the insert: on PostgreSQL the insert waits for a deletion request that locked
  // the user row, so this read sees it (D19a: no session while the erasure is scheduled).
  CAIRN_ASSIGN_OR_RETURN(auto deletion, FindDeletionRequest(connection, user.id));
  if (deletion) return DeletionScheduled();
  return issued;
}

Result<std::optional<AuthService::Resolved>> AuthService::Resolve(std::string_view token) {
  const std::string hash = SessionTokenCodec::Hash(token);
  const std::int64_t now = time::NowMillis();
  std::optional<Caller> found = session_cache_->Get(hash, now);
  if (!found) {
    const std::uint64_t generation = session_cache_->Generation();
    CAIRN_TRY(database_.Transaction(db::Access::kRead, [&](db::Connection& connection) -> Status {
      CAIRN_ASSIGN_OR_RETURN(found, FindSessionByTokenHash(connection, hash));
      return {};
    }));
    if (found) session_cache_->Put(hash, *found, generation, now);
  }
  if (!found || found->session.expires_at <= now) return std::optional<Resolved>();
  if (found->user.banned && (!found->user.ban_expires || *found->user.ban_expires > now)) {
    return std::optional<Resolved>();
  }
  Resolved resolved{std::move(*found), false};
  resolved.caller.token = std::string(token);
  Session& session = resolved.caller.session;
  // Remembered sessions slide: a day after the last extension, use extends them to 7 days.
  if (session.remember && !session.impersonated_by &&
      now - session.updated_at >= kSessionRefreshAgeMillis) {
    session.expires_at = now + kSessionLifetimeMillis;
    session.updated_at = now;
    CAIRN_TRY(WriteTransaction([&](db::Connection& connection) {
      return ExtendSession(connection, session.id, session.expires_at, now);
    }));
    resolved.refreshed = true;
  }
  return std::optional<Resolved>(std::move(resolved));
}

Status AuthService::WriteTransaction(const std::function<Status(db::Connection&)>& work) {
  Status status = database_.Transaction(db::Access::kWrite, work);
  session_cache_->Clear();  // after the end: a lookup before it may have seen the old rows
  return status;
}

Status AuthService::RecordEvent(db::Connection& connection, std::string_view action,
                                const Actor& actor, boost::json::object metadata,
                                std::optional<std::string> changes_json) {
  activity::ActivityEntry entry;
  entry.action = std::string(action);
  entry.user_id = actor.user_id;  // empty (the system) is stored as null
  if (actor.impersonated_by) metadata["impersonatedBy"] = *actor.impersonated_by;
  if (!metadata.empty()) entry.metadata_json = boost::json::serialize(metadata);
  entry.changes_json = std::move(changes_json);
  entry.ip_address = actor.client.ip_address;
  entry.user_agent = actor.client.user_agent;
  return activity::RecordActivity(connection, entry);
}

Status AuthService::EndSession(const Actor& actor, std::string_view action,
                               std::optional<std::string_view> user_id, std::string_view token_hash,
                               boost::json::object metadata) {
  return WriteTransaction([&](db::Connection& connection) -> Status {
    CAIRN_ASSIGN_OR_RETURN(auto found, FindSessionByTokenHash(connection, token_hash));
    if (!found || (user_id && found->user.id != *user_id)) return {};
    CAIRN_ASSIGN_OR_RETURN(std::int64_t removed,
                           DeleteSessionByTokenHash(connection, token_hash, user_id));
    if (removed == 0) return {};
    boost::json::object event = metadata;  // a copy: the transaction may run again
    event["sessionId"] = found->session.id;
    if (found->user.id != actor.user_id) event["targetUserId"] = found->user.id;
    return RecordEvent(connection, action, actor, std::move(event));
  });
}

Status AuthService::SignOut(const Caller& caller, const ClientInfo& client) {
  return EndSession(ActorOf(caller, client), "sign_out", std::nullopt,
                    SessionTokenCodec::Hash(caller.token), {});
}

Result<std::vector<SessionView>> AuthService::ListSessions(std::string_view user_id) {
  std::vector<SessionView> views;
  CAIRN_TRY(database_.Transaction(db::Access::kRead, [&](db::Connection& connection) -> Status {
    CAIRN_ASSIGN_OR_RETURN(auto stored, auth::ListSessions(connection, user_id, time::NowMillis()));
    views.reserve(stored.size());
    for (auto& item : stored)
      views.push_back({std::move(item.session), std::move(item.token_hash)});
    return {};
  }));
  return views;
}

Status AuthService::RevokeSession(const Actor& actor, std::optional<std::string_view> user_id,
                                  std::string_view token) {
  // A 64-hex value is a token hash from list-sessions; anything else is a raw token.
  const bool is_hash = token.size() == 64 && std::all_of(token.begin(), token.end(), [](char c) {
                         return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
                       });
  const std::string hash = is_hash ? std::string(token) : SessionTokenCodec::Hash(token);
  return EndSession(actor, "session_revoked", user_id, hash, {{"scope", "one"}});
}

Status AuthService::RevokeSessions(const Actor& actor, std::string_view user_id,
                                   std::optional<std::string_view> except_id) {
  return WriteTransaction([&](db::Connection& connection) -> Status {
    CAIRN_ASSIGN_OR_RETURN(std::int64_t removed,
                           DeleteSessionsOfUser(connection, user_id, except_id));
    if (removed == 0) return {};
    boost::json::object metadata{{"scope", except_id ? "others" : "all"}, {"count", removed}};
    if (user_id != actor.user_id) metadata["targetUserId"] = user_id;
    return RecordEvent(connection, "session_revoked", actor, std::move(metadata));
  });
}

Status AuthService::PurgeExpired() {
  next_purge_ms_ = time::NowMillis() + kPurgeIntervalMillis;
  return WriteTransaction([&](db::Connection& connection) -> Status {
    CAIRN_TRY(DeleteExpiredSessions(connection, time::NowMillis()));
    return DeleteExpiredEmailCodes(connection, time::NowMillis());
  });
}

void AuthService::PurgeExpiredHourly() {
  std::int64_t due = next_purge_ms_.load();
  const std::int64_t now = time::NowMillis();
  // One caller wins the exchange; the others see the new deadline and skip.
  if (now < due || !next_purge_ms_.compare_exchange_strong(due, now + kPurgeIntervalMillis)) {
    return;
  }
  if (Status purged = PurgeExpired(); !purged.ok()) {
    log::Warn("cannot purge expired sessions: " + purged.error().detail);
  }
}

// --- Sign-up and sign-in ------------------------------------------------------------------------

Result<SignUpResult> AuthService::SignUp(const SignUpInput& input, const ClientInfo& client) {
  if (!options_.config.allow_sign_up) {
    return AuthError(ErrorCode::kForbidden, "EMAIL_PASSWORD_SIGN_UP_DISABLED",
                     "Email and password sign up is not enabled");
  }
  const std::string email = NormalizeEmail(input.email);
  if (email.empty()) return FieldFailure("INVALID_EMAIL", "email", "Invalid email");
  if (input.name.size() > kMaxNameLength) {
    return FieldFailure("INVALID_NAME", "name",
                        "Name is too long: at most " + std::to_string(kMaxNameLength) + " bytes");
  }
  if (input.image && input.image->size() > kMaxImageLength) {
    return FieldFailure("INVALID_IMAGE", "image", "Image URL is too long");
  }
  CAIRN_TRY(CheckPassword(input.password, "password"));
  CAIRN_TRY(CheckCallbackUrl(input.callback_url, options_.base_url, "callbackURL"));
  const bool verification_required = options_.config.require_email_verification;
  const bool sign_in = !verification_required && options_.config.auto_sign_in;

  // Hash first: it is the slow part and must not run inside a write transaction.
  CAIRN_ASSIGN_OR_RETURN(std::string hash, HashPassword(input.password));
  const std::int64_t now = time::NowMillis();
  SignUpResult result;
  User& user = result.user;
  user = NewUser(input.name, email, options_.config.default_role, now);
  user.image = input.image;
  bool duplicate = false;
  Status written = WriteTransaction([&](db::Connection& connection) -> Status {
    CAIRN_ASSIGN_OR_RETURN(bool inserted, InsertUserUnlessTaken(connection, user, hash));
    duplicate = !inserted;
    if (!inserted) return {};
    if (sign_in) {
      CAIRN_ASSIGN_OR_RETURN(auto issued, CreateSession(connection, user, client, input.remember));
      result.session = std::move(issued);
    }
    return RecordEvent(connection, "sign_up", Actor{user.id, std::nullopt, client});
  });
  if (!written.ok() && db::ErrorKindOf(written.error()) == db::DbErrorKind::kUnique) {
    duplicate = true;  // a concurrent sign-up with the same address won the race
  } else if (!written.ok()) {
    return written.error();
  }
  if (duplicate) {
    // When sign-up signs nobody in, a duplicate looks like a success so that sign-up cannot be
    // used to learn which addresses have accounts (as Better Auth does).
    if (!sign_in) {
      result.session.reset();
      return result;
    }
    Error duplicate_email = FieldFailure("USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL", "email",
                                         "User already exists. Use another email.");
    duplicate_email.http_status = 422;  // Better Auth's status; the code stays VALIDATION_ERROR
    return duplicate_email;
  }
  if (verification_required) {
    CAIRN_TRY(SendTokenMail(user, "verify-email", {}, user.email, input.callback_url));
  }
  return result;
}

Result<AuthService::SignInResult> AuthService::SignIn(std::string_view email_input,
                                                      std::string_view password, bool remember,
                                                      const ClientInfo& client,
                                                      std::string_view callback_url,
                                                      const SecondFactorGate& gate) {
  const std::string email = NormalizeEmail(email_input);
  if (email.empty()) return FieldFailure("INVALID_EMAIL", "email", "Invalid email");
  if (PasswordLength(password) > options_.config.max_password_length) {
    return InvalidCredentials();
  }
  std::optional<User> user;
  std::optional<std::string> hash;
  std::optional<std::int64_t> deletion;
  CAIRN_TRY(database_.Transaction(db::Access::kRead, [&](db::Connection& connection) -> Status {
    CAIRN_ASSIGN_OR_RETURN(user, FindUserByEmail(connection, email));
    if (user) {
      CAIRN_ASSIGN_OR_RETURN(hash, FindPasswordHash(connection, user->id));
      CAIRN_ASSIGN_OR_RETURN(deletion, FindDeletionRequest(connection, user->id));
    }
    return {};
  }));
  if (!user || !hash) {
    BurnPasswordVerification(password);
    return InvalidCredentials();
  }
  if (!VerifyPassword(password, *hash)) return InvalidCredentials();
  // Told only to whoever knows the password.
  if (deletion) return DeletionScheduled();
  const std::int64_t now = time::NowMillis();
  if (user->banned && (!user->ban_expires || *user->ban_expires > now)) return Banned();
  if (options_.config.require_email_verification && !user->email_verified) {
    CAIRN_TRY(SendTokenMail(*user, "verify-email", {}, user->email, callback_url));
    return AuthError(ErrorCode::kForbidden, "EMAIL_NOT_VERIFIED", "Email not verified");
  }
  if (gate) {
    CAIRN_ASSIGN_OR_RETURN(auto challenge, gate(*user, remember));
    if (challenge) return SignInResult{std::move(*user), {}, std::move(challenge)};
  }
  SignInResult result{std::move(*user), {}, std::nullopt};
  const bool lift_ban = result.user.banned;
  if (lift_ban) {
    // The ban has expired: lift it as Better Auth does on the next sign-in.
    result.user.banned = false;
    result.user.ban_reason.reset();
    result.user.ban_expires.reset();
    result.user.updated_at = now;
  }
  CAIRN_TRY(WriteTransaction([&](db::Connection& connection) -> Status {
    boost::json::object metadata;
    if (lift_ban) {
      CAIRN_TRY(UpdateUser(connection, result.user));
      metadata["banLifted"] = true;
    }
    CAIRN_ASSIGN_OR_RETURN(result.session,
                           CreateSession(connection, result.user, client, remember));
    metadata["sessionId"] = result.session.session.id;
    return RecordEvent(connection, "sign_in", Actor{result.user.id, std::nullopt, client},
                       std::move(metadata));
  }));
  PurgeExpiredHourly();
  return result;
}

}  // namespace cairn::auth
