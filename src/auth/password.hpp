// Password hashing with argon2id (libsodium's crypto_pwhash_str). Hashing is deliberately slow:
// call these only from worker threads (routes with Execution::kWorker).
#pragma once

#include <string>
#include <string_view>

#include "common/result.hpp"

namespace cairn::auth {

// The PHC string (`$argon2id$v=19$m=19456,t=2,p=1$…`), salt included.
Result<std::string> HashPassword(std::string_view password);
// Constant-time verification against a PHC string; false for malformed hashes.
bool VerifyPassword(std::string_view password, const std::string& hash);
// Spends the time of one verification without a hash to compare with, so an unknown email
// takes as long as a wrong password.
void BurnPasswordVerification(std::string_view password);

}  // namespace cairn::auth
