#include "auth/two_factor_store.hpp"

namespace cairn::auth {

Status SetTwoFactorEnabled(db::Connection& connection, std::string_view user_id, bool enabled,
                           std::int64_t now) {
  CAIRN_TRY(connection.Execute(
      R"(UPDATE "_cairn_auth_users" SET "two_factor_enabled" = ?, "updated_at" = ? WHERE "id" = ?)",
      {static_cast<std::int64_t>(enabled), now, user_id}));
  return {};
}

Result<std::optional<TwoFactorRow>> FindTwoFactor(db::Connection& connection,
                                                  std::string_view user_id) {
  std::optional<TwoFactorRow> found;
  CAIRN_TRY(connection.Execute(
      R"(SELECT "secret", "backup_codes", "verified" FROM "_cairn_auth_two_factor" )"
      R"(WHERE "user_id" = ?)",
      {user_id}, [&](const db::Row& row) {
        found = TwoFactorRow{std::string(row.GetText(0)), std::string(row.GetText(1)),
                             row.GetInt64(2) != 0};
      }));
  return found;
}

Status PutTwoFactor(db::Connection& connection, std::string_view user_id, const TwoFactorRow& row,
                    std::int64_t now) {
  CAIRN_TRY(connection.Execute(
      R"(INSERT INTO "_cairn_auth_two_factor" ("user_id", "secret", "backup_codes", "verified", )"
      R"("last_totp_step", "created_at", "updated_at") VALUES (?, ?, ?, ?, NULL, ?, ?) )"
      R"(ON CONFLICT ("user_id") DO UPDATE SET "secret" = excluded."secret", )"
      R"("backup_codes" = excluded."backup_codes", "verified" = excluded."verified", )"
      R"("last_totp_step" = NULL, "updated_at" = excluded."updated_at")",
      {user_id, std::string_view(row.secret), std::string_view(row.backup_codes),
       static_cast<std::int64_t>(row.verified), now, now}));
  return {};
}

Status MarkTwoFactorVerified(db::Connection& connection, std::string_view user_id,
                             std::int64_t now) {
  CAIRN_TRY(connection.Execute(
      R"(UPDATE "_cairn_auth_two_factor" SET "verified" = 1, "updated_at" = ? WHERE "user_id" = ?)",
      {now, user_id}));
  return {};
}

Status DeleteTwoFactor(db::Connection& connection, std::string_view user_id) {
  CAIRN_TRY(
      connection.Execute(R"(DELETE FROM "_cairn_auth_two_factor" WHERE "user_id" = ?)", {user_id}));
  return {};
}

Result<bool> ClaimTotpStep(db::Connection& connection, std::string_view user_id, std::int64_t step,
                           std::int64_t now) {
  bool claimed = false;
  CAIRN_TRY(connection.Execute(
      R"(UPDATE "_cairn_auth_two_factor" SET "last_totp_step" = ?, "updated_at" = ? )"
      R"(WHERE "user_id" = ? AND ("last_totp_step" IS NULL OR "last_totp_step" < ?) )"
      R"(RETURNING "user_id")",
      {step, now, user_id, step}, [&](const db::Row&) { claimed = true; }));
  return claimed;
}

Result<bool> ReplaceBackupCodes(db::Connection& connection, std::string_view user_id,
                                std::string_view expected, std::string_view codes,
                                std::int64_t now) {
  bool replaced = false;
  CAIRN_TRY(connection.Execute(
      R"(UPDATE "_cairn_auth_two_factor" SET "backup_codes" = ?, "updated_at" = ? )"
      R"(WHERE "user_id" = ? AND "backup_codes" = ? RETURNING "user_id")",
      {codes, now, user_id, expected}, [&](const db::Row&) { replaced = true; }));
  return replaced;
}

Status UpdateVerificationValue(db::Connection& connection, std::string_view token_hash,
                               std::string_view value) {
  CAIRN_TRY(connection.Execute(
      R"(UPDATE "_cairn_auth_verifications" SET "value" = ? WHERE "token_hash" = ?)",
      {value, token_hash}));
  return {};
}

}  // namespace cairn::auth
