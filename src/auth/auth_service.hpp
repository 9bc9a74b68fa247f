// The auth domain: accounts, sessions, verification and the admin operations, with no HTTP
// types. api/auth_api.cpp maps Better Auth's wire format onto it. Password hashing makes most
// operations slow on purpose: they run on worker threads.
//
// Auth events and admin actions go to the activity log (D50) in the write transaction of the
// change itself: sign_up, sign_in, sign_out, password_reset, session_revoked, user.create,
// user.set_role, user.ban, user.unban, user.remove, account.deletion.scheduled and
// account.deletion.purged (D19a). Their metadata names the users and roles
// concerned, never a password or a token.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <boost/json/object.hpp>

#include "auth/background_tasks.hpp"
#include "auth/limits.hpp"
#include "auth/model.hpp"
#include "auth/session_cache.hpp"
#include "auth/session_token.hpp"
#include "auth/user_store.hpp"
#include "common/result.hpp"
#include "config/model.hpp"
#include "db/database.hpp"
#include "mail/mailer.hpp"

namespace cairn::auth {

// Runs inside the transaction that erases an account, before its user row goes: another module
// unties its rows from the person (a comment's author, say). Auth cannot know those modules.
using AccountErasureHook = std::function<Status(db::Connection&, std::string_view user_id)>;

// Counts one hit on `key` against `max` hits per `window_ms` and answers 0 when it is allowed,
// else the seconds until the next one would be (the rate limiter of D16, shared by every node).
using RateCheck = std::function<Result<int>(std::string_view key, int max, std::int64_t window_ms)>;

struct AuthOptions {
  config::AuthConfig config;
  std::string secret;    // signs cookies
  std::string base_url;  // links in mail
  std::vector<AccountErasureHook> on_account_erased;
  // The per-email limits of magic links and email codes; empty when rate limits are off.
  RateCheck rate_check;
  // D19a (ACCOUNT_DELETION_GRACE_DAYS): from delete-user to the purge; 0 purges at once.
  std::int64_t deletion_grace_millis = kDefaultDeletionGraceDays * kMillisPerDay;
  // The resolved-session cache, shared by the services of every schema version so that a write
  // through one clears what the others cached; null: a cache of the service's own.
  std::shared_ptr<SessionCache> session_cache;
};

// A new session and the token that only its holder knows.
struct IssuedSession {
  Session session;
  std::string token;
};

// A sign-in by magic link or email code: the user (new when it signed up just now) and its
// session.
struct PasswordlessSignIn {
  User user;
  IssuedSession session;
  bool new_user = false;
};

struct SignUpInput {
  std::string name, email, password;
  std::optional<std::string> image;
  std::string callback_url;
  bool remember = true;
};
struct SignUpResult {
  User user;
  std::optional<IssuedSession> session;  // absent when email verification is required
};

// Asked by SignIn once the password is right: the identifier of a second-factor challenge when
// one was opened (no session is created then), nullopt to sign in now (two_factor_service.hpp).
using SecondFactorGate =
    std::function<Result<std::optional<std::string>>(const User& user, bool remember)>;

struct SessionView {
  Session session;
  std::string token_hash;
};

struct CreateUserInput {
  std::string name, email, password, role;
  bool email_verified = false;
};

class AuthService {
 public:
  AuthService(db::Database& database, AuthOptions options, std::shared_ptr<mail::Mailer> mailer);

  const SessionTokenCodec& codec() const { return codec_; }
  const AuthOptions& options() const { return options_; }
  bool IsKnownRole(std::string_view role) const;

  // --- Sessions ---------------------------------------------------------------------------------
  // The live session for a raw token: one indexed lookup, reused for kSessionCacheTtlMillis on
  // SQLite; extended (a write) once a day of use. Expired sessions and banned users resolve to
  // nothing.
  struct Resolved {
    Caller caller;
    bool refreshed = false;
  };
  Result<std::optional<Resolved>> Resolve(std::string_view token);
  Result<IssuedSession> CreateSession(db::Connection& connection, const User& user,
                                      const ClientInfo& client, bool remember,
                                      std::optional<std::string> impersonated_by = {});
  // Ends the caller's session (sign_out).
  Status SignOut(const Caller& caller, const ClientInfo& client);
  Result<std::vector<SessionView>> ListSessions(std::string_view user_id);
  // `token` is a raw session token or a token hash from ListSessions; with `user_id`, only a
  // session of that user is ended. Revocations that end something are session_revoked events.
  Status RevokeSession(const Actor& actor, std::optional<std::string_view> user_id,
                       std::string_view token);
  Status RevokeSessions(const Actor& actor, std::string_view user_id,
                        std::optional<std::string_view> except_id);

  // --- Accounts ---------------------------------------------------------------------------------
  Result<SignUpResult> SignUp(const SignUpInput& input, const ClientInfo& client);
  struct SignInResult {
    User user;
    IssuedSession session;                            // empty when a challenge was opened
    std::optional<std::string> two_factor_challenge;  // set by the gate
  };
  Result<SignInResult> SignIn(std::string_view email, std::string_view password, bool remember,
                              const ClientInfo& client, std::string_view callback_url,
                              const SecondFactorGate& gate = {});
  Result<User> UpdateProfile(const User& user, std::optional<std::string> name,
                             std::optional<std::optional<std::string>> image);
  // Returns a new session when other sessions are revoked (the current one goes too).
  Result<std::optional<IssuedSession>> ChangePassword(const Caller& caller,
                                                      std::string_view current,
                                                      std::string_view next,
                                                      bool revoke_other_sessions,
                                                      const ClientInfo& client);
  Status ChangeEmail(const User& user, std::string_view new_email, std::string_view callback_url);
  // delete-user (D19a): with the password, or from a session younger than kFreshSessionMillis,
  // schedules the erasure: every session ends, sign-in is refused, and the purge job erases the
  // account once the grace period is over (at once when it is 0).
  Status DeleteUser(const Caller& caller, std::optional<std::string_view> password,
                    const ClientInfo& client);
  // Always succeeds for the caller (D12); mail goes out only for a known address.
  Status RequestPasswordReset(std::string_view email, std::string_view redirect_to);
  Status ResetPassword(std::string_view token, std::string_view new_password,
                       const ClientInfo& client);
  Status SendVerificationEmail(std::string_view email, std::string_view callback_url);
  Result<User> VerifyEmail(std::string_view token);

  // --- Magic links and email one-time codes (D19, passwordless_flows.cpp) ----------------------
  // Each answers alike for known and unknown addresses; mail goes out after the answer, and
  // only where it can be used (an account, or a sign-in where sign-up is allowed).
  struct MagicLinkRequest {
    std::string email, name, callback_url, new_user_callback_url, error_callback_url;
  };
  Status RequestMagicLink(const MagicLinkRequest& request);
  // Consumes the link: a session for its address, signing it up when sign-up is allowed.
  Result<PasswordlessSignIn> VerifyMagicLink(std::string_view token, const ClientInfo& client);
  // `type`: sign-in, email-verification or forget-password.
  Status SendEmailOtp(std::string_view email, std::string_view type);
  // Checks a code and leaves it usable (a correct guess costs no attempt).
  Status CheckEmailOtp(std::string_view email, std::string_view type, std::string_view otp);
  Result<PasswordlessSignIn> SignInWithEmailOtp(std::string_view email, std::string_view otp,
                                                std::optional<std::string> name,
                                                std::optional<std::string> image,
                                                const ClientInfo& client);
  Result<User> VerifyEmailWithOtp(std::string_view email, std::string_view otp);
  Status ResetPasswordWithOtp(std::string_view email, std::string_view otp,
                              std::string_view password, const ClientInfo& client);

  // --- Admin ------------------------------------------------------------------------------------
  // `actor` is the admin, or the system (an empty user id) for the first admin (D14).
  Result<User> CreateUser(const Actor& actor, const CreateUserInput& input);
  // D14: creates a verified admin when the email is not taken; true when created.
  Result<bool> EnsureAdmin(std::string_view email, std::string_view password,
                           std::string_view name);
  Result<UserPage> ListUsers(const UserQuery& query);
  Result<User> GetUser(std::string_view user_id);
  Result<User> SetRole(const Actor& admin, std::string_view user_id, std::string_view role);
  Result<User> Ban(const Actor& admin, std::string_view user_id, std::optional<std::string> reason,
                   std::optional<std::int64_t> expires_in_s);
  Result<User> Unban(const Actor& admin, std::string_view user_id);
  // Erases the account at once (the same purge as the job's), recorded as user.remove by the
  // admin and account.deletion.purged.
  Status RemoveUser(const Actor& admin, std::string_view user_id);
  // A password_reset event by the admin.
  Status SetUserPassword(const Actor& admin, std::string_view user_id, std::string_view password);
  // A role change here is a user.set_role event too.
  Result<User> AdminUpdateUser(const Actor& admin, std::string_view user_id,
                               const boost::json::object& data);
  Result<IssuedSession> Impersonate(const Caller& admin, std::string_view user_id,
                                    const ClientInfo& client);
  // The impersonation session ends; the admin's own session (from its signed cookie) is
  // returned when it is still live.
  Result<std::optional<Resolved>> StopImpersonating(const Caller& caller,
                                                    std::string_view admin_token,
                                                    const ClientInfo& client);

  // --- Erasure (D19a), for the purge job ---------------------------------------------------------
  // Users whose deletion request is older than the grace period at `now`, oldest first.
  Result<std::vector<std::string>> DueErasures(std::int64_t now, int limit);
  // Inside the caller's write transaction: erases the user when its deletion is (still) due at
  // `now`, with its account.deletion.purged entry; false when there was nothing to do (another
  // run got there first).
  Result<bool> PurgeIfDue(db::Connection& connection, std::string_view user_id, std::int64_t now);

  // --- For sign-in modules beside this service (OAuth, organizations)
  // --------------------------------------- A write transaction that drops cached sessions when it
  // ends, as every auth write does.
  Status Write(const std::function<Status(db::Connection&)>& work) {
    return WriteTransaction(work);
  }
  // One auth event in the activity log, inside the caller's transaction.
  static Status Record(db::Connection& connection, std::string_view action, const Actor& actor,
                       boost::json::object metadata = {}) {
    return RecordEvent(connection, action, actor, std::move(metadata));
  }
  db::Database& database() { return database_; }

  // Purges expired sessions and tokens (at startup, then at most hourly from sign-ins).
  Status PurgeExpired();
  // Returns when the mail posted to the background has gone out (tests and shutdown).
  void WaitForBackgroundWork() { background_.WaitIdle(); }

 private:
  friend class TwoFactorService;  // its flows write like this file's (events, cache)

  // Every auth write goes through here: once it has ended, cached sessions are dropped, so a
  // sign-out, revocation, ban or role change applies to the very next request.
  Status WriteTransaction(const std::function<Status(db::Connection&)>& work);
  Status CheckPassword(std::string_view password, std::string_view field) const;
  Result<User> LoadUser(db::Connection& connection, std::string_view user_id);
  // Erases the account inside the caller's transaction: its activity entries lose their actor
  // and stay (D50 rules 2 and 3), every erasure hook runs, then the user row and all it owns go
  // (account_erasure.hpp); account.deletion.purged records it, with the old id only.
  Status EraseAccount(db::Connection& connection, const User& user, std::string_view requested_by);
  // The user with this (normalized) email, in its own read transaction.
  Result<std::optional<User>> FindByEmail(std::string_view email);
  Status SendTokenMail(const User& user, std::string_view purpose, std::string_view value,
                       std::string_view to, std::string_view callback_url);
  // Deletes the session with this token hash (of `user_id` when given) and records
  // `action`; nothing is recorded when no session matched.
  Status EndSession(const Actor& actor, std::string_view action,
                    std::optional<std::string_view> user_id, std::string_view token_hash,
                    boost::json::object metadata);
  // Writes one auth event to the activity log inside the caller's transaction; the actor's
  // impersonator, when there is one, is added to the metadata.
  static Status RecordEvent(db::Connection& connection, std::string_view action, const Actor& actor,
                            boost::json::object metadata = {},
                            std::optional<std::string> changes_json = {});

  void PurgeExpiredHourly();

  // Passwordless helpers (passwordless_flows.cpp).
  enum class OtpCheck { kOk, kInvalid, kExpired, kTooManyAttempts };
  // Better Auth's emailOTP error for a failed check.
  static Error OtpFailure(OtpCheck check);
  // A keyed hash (under the auth secret) of a link token or code: a copy of the table gives no
  // way to test the million possible codes offline.
  std::string OneTimeSecretHash(std::string_view purpose, std::string_view email,
                                std::string_view secret) const;
  Status LimitPerEmail(std::string_view kind, std::string_view email, int max);
  // Counts a guess at the code and compares it in constant time; a correct code is consumed,
  // or left in place with its attempt given back when `keep`. Runs in the caller's write
  // transaction, which must commit for a wrong guess to count.
  Result<OtpCheck> GuessEmailOtp(db::Connection& connection, std::string_view purpose,
                                 std::string_view email, std::string_view otp, bool keep);
  // The session of the account with this (proven) address: signs it up when sign-up is
  // allowed; an unverified account first loses the sessions and credentials it had before
  // the proof.
  Result<PasswordlessSignIn> SignInByProvenEmail(db::Connection& connection, std::string_view email,
                                                 std::string_view name,
                                                 std::optional<std::string> image,
                                                 const ClientInfo& client, std::string_view method);
  Status MailOneTimeSecret(std::string_view to, std::string_view subject, std::string_view intro,
                           std::string_view secret);

  db::Database& database_;
  AuthOptions options_;
  std::atomic<std::int64_t> next_purge_ms_{0};
  std::shared_ptr<SessionCache> session_cache_;
  BackgroundTasks background_;  // last: its thread stops first, before what it uses
  std::shared_ptr<mail::Mailer> mailer_;
  SessionTokenCodec codec_;
};

// Whether resolved sessions may be cached on `database` (one node: SQLite).
bool UseSessionCache(const db::Database& database);
// Lowercases and trims an address; empty when it is not a plausible single address.
std::string NormalizeEmail(std::string_view email);
// Links in mail and redirects go only to a path on this server or to its own origin (no open
// redirects); a 400 naming `field` otherwise.
Status CheckCallbackUrl(std::string_view url, std::string_view base_url, std::string_view field);

}  // namespace cairn::auth
