// SQL for two-factor: the `_cairn_auth_two_factor` row of a user (sealed TOTP secret and backup
// codes) and the per-challenge counters kept in `_cairn_auth_verifications`.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/result.hpp"
#include "db/database.hpp"

namespace cairn::auth {

struct TwoFactorRow {
  std::string secret;        // sealed
  std::string backup_codes;  // sealed JSON array
  bool verified = false;     // a TOTP code has confirmed the secret
};

// The user's `two_factor_enabled` flag (what get-session shows and sign-in asks).
Status SetTwoFactorEnabled(db::Connection& connection, std::string_view user_id, bool enabled,
                           std::int64_t now);

Result<std::optional<TwoFactorRow>> FindTwoFactor(db::Connection& connection,
                                                  std::string_view user_id);
// A new, unverified secret and backup codes (replacing an unverified one).
Status PutTwoFactor(db::Connection& connection, std::string_view user_id, const TwoFactorRow& row,
                    std::int64_t now);
Status MarkTwoFactorVerified(db::Connection& connection, std::string_view user_id,
                             std::int64_t now);
Status DeleteTwoFactor(db::Connection& connection, std::string_view user_id);
// Claims a TOTP step for the user: true when no code of this or a later step was accepted yet.
// One conditional UPDATE, so of two nodes that accept the same code only one succeeds.
Result<bool> ClaimTotpStep(db::Connection& connection, std::string_view user_id, std::int64_t step,
                           std::int64_t now);
// Replaces the sealed backup codes when they are still `expected` (compare and set): true when
// replaced, so a backup code is used once even by concurrent requests.
Result<bool> ReplaceBackupCodes(db::Connection& connection, std::string_view user_id,
                                std::string_view expected, std::string_view codes,
                                std::int64_t now);

// Rewrites a verification row's value (a challenge's attempt count).
Status UpdateVerificationValue(db::Connection& connection, std::string_view token_hash,
                               std::string_view value);

}  // namespace cairn::auth
