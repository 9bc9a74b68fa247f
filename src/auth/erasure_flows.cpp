// Account erasure (D19a): delete-user schedules it, the purge job (jobs/purge_job.cpp) or an
// admin's remove-user carries it out.
#include <boost/json.hpp>

#include "auth/account_erasure.hpp"
#include "auth/auth_errors.hpp"
#include "auth/auth_service.hpp"
#include "auth/limits.hpp"
#include "auth/password.hpp"
#include "auth/session_store.hpp"
#include "common/time.hpp"

namespace cairn::auth {
namespace {

// Locks the user's row for the rest of the transaction (PostgreSQL; SQLite's one writer already
// excludes the rest), so that a session being created for the user waits for this request.
Result<bool> LockUser(db::Connection& connection, std::string_view user_id) {
  CAIRN_ASSIGN_OR_RETURN(
      std::int64_t found,
      connection.Execute(R"(SELECT "id" FROM "_cairn_auth_users" WHERE "id" = ?)" +
                             std::string(connection.dialect().ForUpdate()),
                         {user_id}));
  return found > 0;
}

}  // namespace

Status AuthService::DeleteUser(const Caller& caller, std::optional<std::string_view> password,
                               const ClientInfo& client) {
  const std::int64_t now = time::NowMillis();
  if (password) {
    std::optional<std::string> hash;
    CAIRN_TRY(database_.Transaction(db::Access::kRead, [&](db::Connection& connection) -> Status {
      CAIRN_ASSIGN_OR_RETURN(hash, FindPasswordHash(connection, caller.user.id));
      return {};
    }));
    if (!hash) {
      return AuthError(ErrorCode::kValidation, "CREDENTIAL_ACCOUNT_NOT_FOUND",
                       "Credential account not found");
    }
    if (!VerifyPassword(*password, *hash)) {
      return FieldFailure("INVALID_PASSWORD", "password", "Invalid password");
    }
  } else if (now - caller.session.created_at >= kFreshSessionMillis) {
    // Better Auth's freshAge: without the password only a recent sign-in may delete.
    return AuthError(ErrorCode::kValidation, "SESSION_EXPIRED",
                     "Session expired. Re-authenticate to perform this action.");
  }
  const std::string& user_id = caller.user.id;
  return WriteTransaction([&](db::Connection& connection) -> Status {
    CAIRN_ASSIGN_OR_RETURN(bool exists, LockUser(connection, user_id));
    if (!exists) return UserNotFound();
    CAIRN_TRY(InsertDeletionRequest(connection, user_id, now));
    CAIRN_ASSIGN_OR_RETURN(std::int64_t revoked,
                           DeleteSessionsOfUser(connection, user_id, std::nullopt));
    CAIRN_TRY(RecordEvent(connection, "account.deletion.scheduled", ActorOf(caller, client),
                          {{"sessionsRevoked", revoked},
                           {"graceDays", options_.deletion_grace_millis / kMillisPerDay}}));
    if (options_.deletion_grace_millis > 0) return {};
    // No grace period: the purge happens now, in this transaction.
    CAIRN_TRY(PurgeIfDue(connection, user_id, now));
    return {};
  });
}

Result<std::vector<std::string>> AuthService::DueErasures(std::int64_t now, int limit) {
  std::vector<std::string> due;
  CAIRN_TRY(database_.Transaction(db::Access::kRead, [&](db::Connection& connection) -> Status {
    CAIRN_ASSIGN_OR_RETURN(
        due, DueDeletionRequests(connection, now - options_.deletion_grace_millis, limit));
    return {};
  }));
  return due;
}

Result<bool> AuthService::PurgeIfDue(db::Connection& connection, std::string_view user_id,
                                     std::int64_t now) {
  // Claims the request by deleting it: of two runs racing for one account, the second finds
  // no row (on PostgreSQL it waits for the first's row lock, then sees the row gone).
  CAIRN_ASSIGN_OR_RETURN(
      std::int64_t claimed,
      connection.Execute(
          R"(DELETE FROM "_cairn_auth_deletions" WHERE "user_id" = ? AND "requested_at" <= ?)",
          {user_id, now - options_.deletion_grace_millis}));
  if (claimed == 0) return false;
  CAIRN_ASSIGN_OR_RETURN(auto user, FindUserById(connection, user_id));
  if (!user) return false;
  CAIRN_TRY(EraseAccount(connection, *user, "user"));
  return true;
}

}  // namespace cairn::auth
