#include "auth/account_erasure.hpp"

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace cairn::auth {
namespace {

// Every auth table that names a user has its line here (account_erasure_tests reads every
// `_cairn_auth_*` table after an erasure and fails on any that still names the user).
constexpr std::array kUserDataColumns{
    // Sessions an admin opened as someone else name the admin: they end with the admin.
    UserDataColumn{"_cairn_auth_sessions", "impersonated_by"},
    UserDataColumn{"_cairn_auth_sessions", "user_id"},
    UserDataColumn{"_cairn_auth_accounts", "user_id"},
    UserDataColumn{"_cairn_auth_verifications", "user_id"},
    UserDataColumn{"_cairn_auth_two_factor", "user_id"},
    // Magic links and email codes are keyed by address (the address may have no account).
    UserDataColumn{"_cairn_auth_email_codes", "email", ErasedBy::kEmail},
    // Organizations (D19): the person's memberships, the invitations to the address, and the
    // inviter of invitations the person sent (they stay with the organization).
    UserDataColumn{"_cairn_auth_members", "user_id"},
    UserDataColumn{"_cairn_auth_invitations", "email", ErasedBy::kEmail},
    UserDataColumn{"_cairn_auth_invitations", "inviter_id", ErasedBy::kUserId,
                   ErasureAction::kNullColumn},
    UserDataColumn{"_cairn_auth_deletions", "user_id"},
    // Mail still queued for the address (mail/mail_queue.hpp): it holds the address and links.
    UserDataColumn{"_cairn_mail_queue", "recipient", ErasedBy::kEmail},
    UserDataColumn{"_cairn_auth_users", "id"},
};

std::string Quoted(std::string_view name) {
  return db::Identifier(name).quoted();
}

}  // namespace

std::span<const UserDataColumn> UserDataColumns() {
  return kUserDataColumns;
}

Status DeleteUserData(db::Connection& connection, std::string_view user_id,
                      std::string_view email) {
  for (const UserDataColumn& column : kUserDataColumns) {
    const std::string table = Quoted(column.table);
    const std::string name = Quoted(column.column);
    const std::string sql =
        column.action == ErasureAction::kDeleteRows
            ? "DELETE FROM " + table + " WHERE " + name + " = ?"
            : "UPDATE " + table + " SET " + name + " = NULL WHERE " + name + " = ?";
    const std::string_view key = column.by == ErasedBy::kUserId ? user_id : email;
    CAIRN_TRY(connection.Execute(sql, {key}));
  }
  return {};
}

Status InsertDeletionRequest(db::Connection& connection, std::string_view user_id,
                             std::int64_t requested_at) {
  // A second request keeps the first date: the grace period does not restart.
  CAIRN_TRY(connection.Execute(
      R"(INSERT INTO "_cairn_auth_deletions" ("user_id", "requested_at") VALUES (?, ?) )"
      R"(ON CONFLICT ("user_id") DO NOTHING)",
      {user_id, requested_at}));
  return {};
}

Result<std::optional<std::int64_t>> FindDeletionRequest(db::Connection& connection,
                                                        std::string_view user_id) {
  std::optional<std::int64_t> requested_at;
  CAIRN_TRY(connection.Execute(
      R"(SELECT "requested_at" FROM "_cairn_auth_deletions" WHERE "user_id" = ?)", {user_id},
      [&](const db::Row& row) { requested_at = row.GetInt64(0); }));
  return requested_at;
}

Result<std::vector<std::string>> DueDeletionRequests(db::Connection& connection,
                                                     std::int64_t requested_before, int limit) {
  std::vector<std::string> ids;
  CAIRN_TRY(connection.Execute(
      R"(SELECT "user_id" FROM "_cairn_auth_deletions" WHERE "requested_at" <= ? )"
      R"(ORDER BY "requested_at", "user_id" LIMIT ?)",
      {requested_before, static_cast<std::int64_t>(limit)},
      [&](const db::Row& row) { ids.emplace_back(row.GetText(0)); }));
  return ids;
}

}  // namespace cairn::auth
