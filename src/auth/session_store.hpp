// SQL for sessions and one-time verification tokens. Tokens are stored only as SHA-256 hex, so
// a copy of the database does not let anyone act as a user.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "auth/model.hpp"
#include "common/result.hpp"
#include "db/database.hpp"

namespace cairn::auth {

Status InsertSession(db::Connection& connection, const Session& session,
                     std::string_view token_hash);
// The session with this token hash and its user, in one indexed lookup (the join is on the
// user's primary key). Expired sessions are returned too; the caller decides.
Result<std::optional<Caller>> FindSessionByTokenHash(db::Connection& connection,
                                                     std::string_view token_hash);
Status ExtendSession(db::Connection& connection, std::string_view session_id,
                     std::int64_t expires_at, std::int64_t now);
// The session's active organization (null: none).
Status SetActiveOrganization(db::Connection& connection, std::string_view session_id,
                             std::optional<std::string_view> organization_id);
// Sessions (of `user_id` when given) whose active organization is this one lose it: the member
// left or was removed, or the organization is gone.
Status ClearActiveOrganization(db::Connection& connection, std::string_view organization_id,
                               std::optional<std::string_view> user_id);
// Sessions of a user that have not expired, newest first, each with its token hash.
struct StoredSession {
  Session session;
  std::string token_hash;
};
Result<std::vector<StoredSession>> ListSessions(db::Connection& connection,
                                                std::string_view user_id, std::int64_t now);
// Returns the number of sessions removed.
Result<std::int64_t> DeleteSessionByTokenHash(db::Connection& connection,
                                              std::string_view token_hash,
                                              std::optional<std::string_view> user_id);
Result<std::int64_t> DeleteSessionsOfUser(db::Connection& connection, std::string_view user_id,
                                          std::optional<std::string_view> except_session_id);
Status DeleteExpiredSessions(db::Connection& connection, std::int64_t now);

// One-time tokens: purpose is `verify-email`, `reset-password` or `change-email`.
struct Verification {
  std::string purpose;
  std::string user_id;
  std::string value;  // purpose-specific (the new address for change-email)
  std::int64_t expires_at = 0;
};
Status InsertVerification(db::Connection& connection, std::string_view token_hash,
                          const Verification& verification, std::int64_t now);
// The token's row, left in place (a cheap check before slow work).
Result<std::optional<Verification>> FindVerification(db::Connection& connection,
                                                     std::string_view token_hash);
// Finds and deletes the token in one step so it can be used once only.
Result<std::optional<Verification>> ConsumeVerification(db::Connection& connection,
                                                        std::string_view token_hash);
Status DeleteVerificationsOfUser(db::Connection& connection, std::string_view user_id,
                                 std::string_view purpose);

}  // namespace cairn::auth
