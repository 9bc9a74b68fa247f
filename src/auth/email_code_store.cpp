#include "auth/email_code_store.hpp"

#include "auth/limits.hpp"
#include "common/crypto.hpp"

namespace cairn::auth {
namespace {

// Columns: purpose, email, secret_hash, value, attempts, expires_at.
constexpr const char* kReturning =
    R"( RETURNING "purpose", "email", "secret_hash", "value", "attempts", "expires_at")";

EmailCode ReadEmailCode(const db::Row& row) {
  return EmailCode{std::string(row.GetText(0)),
                   std::string(row.GetText(1)),
                   std::string(row.GetText(2)),
                   row.IsNull(3) ? std::string() : std::string(row.GetText(3)),
                   row.GetInt64(4),
                   row.GetInt64(5)};
}

}  // namespace

Status ReplaceEmailCode(db::Connection& connection, const EmailCode& code, std::int64_t now) {
  CAIRN_TRY(DeleteEmailCode(connection, code.purpose, code.email));
  const std::string id = crypto::RandomAlphanumeric(kIdLength);
  CAIRN_TRY(connection.Execute(
      R"(INSERT INTO "_cairn_auth_email_codes" ("id", "purpose", "email", "secret_hash", )"
      R"("value", "attempts", "expires_at", "created_at") VALUES (?, ?, ?, ?, ?, 0, ?, ?))",
      {std::string_view(id), std::string_view(code.purpose), std::string_view(code.email),
       std::string_view(code.secret_hash), std::string_view(code.value), code.expires_at, now}));
  return {};
}

Result<std::optional<EmailCode>> ConsumeEmailCodeBySecret(db::Connection& connection,
                                                          std::string_view purpose,
                                                          std::string_view secret_hash) {
  static const std::string sql = std::string(R"(DELETE FROM "_cairn_auth_email_codes" )"
                                             R"(WHERE "purpose" = ? AND "secret_hash" = ?)") +
                                 kReturning;
  std::optional<EmailCode> found;
  CAIRN_TRY(connection.Execute(sql, {purpose, secret_hash},
                               [&](const db::Row& row) { found = ReadEmailCode(row); }));
  return found;
}

Result<std::optional<EmailCode>> CountEmailCodeGuess(db::Connection& connection,
                                                     std::string_view purpose,
                                                     std::string_view email) {
  static const std::string sql =
      std::string(R"(UPDATE "_cairn_auth_email_codes" SET "attempts" = "attempts" + 1 )"
                  R"(WHERE "purpose" = ? AND "email" = ?)") +
      kReturning;
  std::optional<EmailCode> found;
  CAIRN_TRY(connection.Execute(sql, {purpose, email},
                               [&](const db::Row& row) { found = ReadEmailCode(row); }));
  return found;
}

Status UncountEmailCodeGuess(db::Connection& connection, std::string_view purpose,
                             std::string_view email) {
  CAIRN_TRY(
      connection.Execute(R"(UPDATE "_cairn_auth_email_codes" SET "attempts" = "attempts" - 1 )"
                         R"(WHERE "purpose" = ? AND "email" = ? AND "attempts" > 0)",
                         {purpose, email}));
  return {};
}

Status DeleteEmailCode(db::Connection& connection, std::string_view purpose,
                       std::string_view email) {
  CAIRN_TRY(connection.Execute(
      R"(DELETE FROM "_cairn_auth_email_codes" WHERE "purpose" = ? AND "email" = ?)",
      {purpose, email}));
  return {};
}

Status DeleteExpiredEmailCodes(db::Connection& connection, std::int64_t now) {
  CAIRN_TRY(connection.Execute(R"(DELETE FROM "_cairn_auth_email_codes" WHERE "expires_at" <= ?)",
                               {now}));
  return {};
}

Status DeleteEmailCodesOf(db::Connection& connection, std::string_view email) {
  CAIRN_TRY(
      connection.Execute(R"(DELETE FROM "_cairn_auth_email_codes" WHERE "email" = ?)", {email}));
  return {};
}

}  // namespace cairn::auth
