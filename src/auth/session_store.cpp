#include "auth/session_store.hpp"

#include "auth/limits.hpp"
#include "auth/user_store.hpp"
#include "common/crypto.hpp"

namespace cairn::auth {
namespace {

constexpr const char* kSessionColumns =
    R"(s."id", s."user_id", s."expires_at", s."remember", s."ip_address", s."user_agent", )"
    R"(s."impersonated_by", s."created_at", s."updated_at", s."token_hash", )"
    R"(s."active_organization_id")";
constexpr int kSessionColumnCount = 11;

Session ReadSession(const db::Row& row) {
  Session session;
  session.id = std::string(row.GetText(0));
  session.user_id = std::string(row.GetText(1));
  session.expires_at = row.GetInt64(2);
  session.remember = row.GetInt64(3) != 0;
  if (!row.IsNull(4)) session.ip_address = std::string(row.GetText(4));
  if (!row.IsNull(5)) session.user_agent = std::string(row.GetText(5));
  if (!row.IsNull(6)) session.impersonated_by = std::string(row.GetText(6));
  session.created_at = row.GetInt64(7);
  session.updated_at = row.GetInt64(8);
  if (!row.IsNull(10)) session.active_organization_id = std::string(row.GetText(10));
  return session;
}

db::Value Optional(const std::optional<std::string>& text) {
  if (!text) return db::Null{};
  return std::string_view(*text);
}

// Columns: purpose, user_id, value, expires_at.
Verification ReadVerification(const db::Row& row) {
  return Verification{std::string(row.GetText(0)), std::string(row.GetText(1)),
                      row.IsNull(2) ? std::string() : std::string(row.GetText(2)), row.GetInt64(3)};
}

}  // namespace

Status InsertSession(db::Connection& connection, const Session& session,
                     std::string_view token_hash) {
  CAIRN_TRY(connection.Execute(
      R"(INSERT INTO "_cairn_auth_sessions" ("id", "token_hash", "user_id", "expires_at", )"
      R"("remember", "ip_address", "user_agent", "impersonated_by", "created_at", "updated_at"))"
      R"( VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?))",
      {std::string_view(session.id), token_hash, std::string_view(session.user_id),
       session.expires_at, static_cast<std::int64_t>(session.remember),
       Optional(session.ip_address), Optional(session.user_agent),
       Optional(session.impersonated_by), session.created_at, session.updated_at}));
  return {};
}

Result<std::optional<Caller>> FindSessionByTokenHash(db::Connection& connection,
                                                     std::string_view token_hash) {
  static const std::string sql = std::string("SELECT ") + kSessionColumns + ", " +
                                 UserColumns("u") +
                                 R"( FROM "_cairn_auth_sessions" s )"
                                 R"(JOIN "_cairn_auth_users" u ON u."id" = s."user_id" )"
                                 R"(WHERE s."token_hash" = ?)";
  std::optional<Caller> caller;
  CAIRN_TRY(connection.Execute(sql, {token_hash}, [&](const db::Row& row) {
    caller.emplace();
    caller->session = ReadSession(row);
    caller->user = ReadUser(row, kSessionColumnCount);
  }));
  return caller;
}

Status ExtendSession(db::Connection& connection, std::string_view session_id,
                     std::int64_t expires_at, std::int64_t now) {
  CAIRN_TRY(connection.Execute(
      R"(UPDATE "_cairn_auth_sessions" SET "expires_at" = ?, "updated_at" = ? WHERE "id" = ?)",
      {expires_at, now, session_id}));
  return {};
}

Status SetActiveOrganization(db::Connection& connection, std::string_view session_id,
                             std::optional<std::string_view> organization_id) {
  CAIRN_TRY(connection.Execute(
      R"(UPDATE "_cairn_auth_sessions" SET "active_organization_id" = ? WHERE "id" = ?)",
      {organization_id ? db::Value(*organization_id) : db::Value(db::Null{}), session_id}));
  return {};
}

Status ClearActiveOrganization(db::Connection& connection, std::string_view organization_id,
                               std::optional<std::string_view> user_id) {
  if (user_id) {
    CAIRN_TRY(
        connection.Execute(R"(UPDATE "_cairn_auth_sessions" SET "active_organization_id" = NULL )"
                           R"(WHERE "user_id" = ? AND "active_organization_id" = ?)",
                           {*user_id, organization_id}));
    return {};
  }
  CAIRN_TRY(
      connection.Execute(R"(UPDATE "_cairn_auth_sessions" SET "active_organization_id" = NULL )"
                         R"(WHERE "active_organization_id" = ?)",
                         {organization_id}));
  return {};
}

Result<std::vector<StoredSession>> ListSessions(db::Connection& connection,
                                                std::string_view user_id, std::int64_t now) {
  static const std::string sql = std::string("SELECT ") + kSessionColumns +
                                 R"( FROM "_cairn_auth_sessions" s WHERE s."user_id" = ? )"
                                 R"(AND s."expires_at" > ? ORDER BY s."created_at" DESC, s."id")";
  std::vector<StoredSession> sessions;
  CAIRN_TRY(connection.Execute(sql, {user_id, now}, [&](const db::Row& row) {
    sessions.push_back({ReadSession(row), std::string(row.GetText(9))});
  }));
  return sessions;
}

Result<std::int64_t> DeleteSessionByTokenHash(db::Connection& connection,
                                              std::string_view token_hash,
                                              std::optional<std::string_view> user_id) {
  if (user_id) {
    return connection.Execute(
        R"(DELETE FROM "_cairn_auth_sessions" WHERE "token_hash" = ? AND "user_id" = ?)",
        {token_hash, *user_id});
  }
  return connection.Execute(R"(DELETE FROM "_cairn_auth_sessions" WHERE "token_hash" = ?)",
                            {token_hash});
}

Result<std::int64_t> DeleteSessionsOfUser(db::Connection& connection, std::string_view user_id,
                                          std::optional<std::string_view> except_session_id) {
  if (except_session_id) {
    return connection.Execute(
        R"(DELETE FROM "_cairn_auth_sessions" WHERE "user_id" = ? AND "id" <> ?)",
        {user_id, *except_session_id});
  }
  return connection.Execute(R"(DELETE FROM "_cairn_auth_sessions" WHERE "user_id" = ?)", {user_id});
}

Status DeleteExpiredSessions(db::Connection& connection, std::int64_t now) {
  CAIRN_TRY(
      connection.Execute(R"(DELETE FROM "_cairn_auth_sessions" WHERE "expires_at" <= ?)", {now}));
  CAIRN_TRY(connection.Execute(R"(DELETE FROM "_cairn_auth_verifications" WHERE "expires_at" <= ?)",
                               {now}));
  return {};
}

Status InsertVerification(db::Connection& connection, std::string_view token_hash,
                          const Verification& verification, std::int64_t now) {
  const std::string id = crypto::RandomAlphanumeric(kIdLength);
  CAIRN_TRY(connection.Execute(
      R"(INSERT INTO "_cairn_auth_verifications" ("id", "token_hash", "purpose", "user_id", )"
      R"("value", "expires_at", "created_at") VALUES (?, ?, ?, ?, ?, ?, ?))",
      {std::string_view(id), token_hash, std::string_view(verification.purpose),
       std::string_view(verification.user_id), std::string_view(verification.value),
       verification.expires_at, now}));
  return {};
}

Result<std::optional<Verification>> FindVerification(db::Connection& connection,
                                                     std::string_view token_hash) {
  std::optional<Verification> found;
  CAIRN_TRY(connection.Execute(
      R"(SELECT "purpose", "user_id", "value", "expires_at" FROM "_cairn_auth_verifications" )"
      R"(WHERE "token_hash" = ?)",
      {token_hash}, [&](const db::Row& row) { found = ReadVerification(row); }));
  return found;
}

Result<std::optional<Verification>> ConsumeVerification(db::Connection& connection,
                                                        std::string_view token_hash) {
  std::optional<Verification> found;
  CAIRN_TRY(connection.Execute(R"(DELETE FROM "_cairn_auth_verifications" WHERE "token_hash" = ? )"
                               R"(RETURNING "purpose", "user_id", "value", "expires_at")",
                               {token_hash}, [&](const db::Row& row) {
                                 found = Verification{
                                     std::string(row.GetText(0)), std::string(row.GetText(1)),
                                     row.IsNull(2) ? std::string() : std::string(row.GetText(2)),
                                     row.GetInt64(3)};
                               }));
  return found;
}

Status DeleteVerificationsOfUser(db::Connection& connection, std::string_view user_id,
                                 std::string_view purpose) {
  CAIRN_TRY(connection.Execute(
      R"(DELETE FROM "_cairn_auth_verifications" WHERE "user_id" = ? AND "purpose" = ?)",
      {user_id, purpose}));
  return {};
}

}  // namespace cairn::auth
