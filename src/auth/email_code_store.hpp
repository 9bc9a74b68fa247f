// SQL for magic links and email one-time codes (D19). They are keyed by email address, not by
// user, because an address without an account may sign up with one. Only a keyed hash of each
// link token or code is stored (see PasswordlessSecretHash), never the secret itself.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "common/result.hpp"
#include "db/database.hpp"

namespace cairn::auth {

// purpose: `magic-link`, or an email OTP type: `sign-in`, `email-verification`,
// `forget-password`.
struct EmailCode {
  std::string purpose;
  std::string email;  // normalized
  std::string secret_hash;
  std::string value;  // magic link: the name a sign-up takes
  std::int64_t attempts = 0;
  std::int64_t expires_at = 0;
};

// One live code per purpose and address: a new one replaces the previous one.
Status ReplaceEmailCode(db::Connection& connection, const EmailCode& code, std::int64_t now);
// Deletes and returns the row with this secret hash, so a link works once only.
Result<std::optional<EmailCode>> ConsumeEmailCodeBySecret(db::Connection& connection,
                                                          std::string_view purpose,
                                                          std::string_view secret_hash);
// Counts one guess against the code of this purpose and address and returns the row as it is
// afterwards. The increment is one statement, so concurrent guesses each use up an attempt.
Result<std::optional<EmailCode>> CountEmailCodeGuess(db::Connection& connection,
                                                     std::string_view purpose,
                                                     std::string_view email);
// Gives back the guess a successful check counted (the code stays usable).
Status UncountEmailCodeGuess(db::Connection& connection, std::string_view purpose,
                             std::string_view email);
Status DeleteEmailCode(db::Connection& connection, std::string_view purpose,
                       std::string_view email);
Status DeleteExpiredEmailCodes(db::Connection& connection, std::int64_t now);
// Every code and link of an address (account erasure).
Status DeleteEmailCodesOf(db::Connection& connection, std::string_view email);

}  // namespace cairn::auth
