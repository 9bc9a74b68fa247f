#include "auth/password.hpp"

#include <sodium.h>

#include <mutex>
#include <stdexcept>

#include "auth/limits.hpp"

namespace cairn::auth {
namespace {

void InitSodium() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (sodium_init() < 0) throw std::runtime_error("libsodium failed to initialize");
  });
}

// A real hash of a random password, made once, for BurnPasswordVerification.
const std::string& DummyHash() {
  static const std::string hash = [] {
    auto made = HashPassword("cairn-dummy-password-for-timing");
    if (!made.ok()) throw std::runtime_error("cannot hash the timing dummy password");
    return std::move(made).value();
  }();
  return hash;
}

}  // namespace

Result<std::string> HashPassword(std::string_view password) {
  InitSodium();
  char out[crypto_pwhash_STRBYTES];
  if (crypto_pwhash_str_alg(out, password.data(), password.size(), kPasswordHashOps,
                            kPasswordHashMemoryBytes, crypto_pwhash_ALG_ARGON2ID13) != 0) {
    return Error::Unavailable("Password hashing is out of memory", "crypto_pwhash_str_alg failed");
  }
  return std::string(out);
}

bool VerifyPassword(std::string_view password, const std::string& hash) {
  InitSodium();
  return crypto_pwhash_str_verify(hash.c_str(), password.data(), password.size()) == 0;
}

void BurnPasswordVerification(std::string_view password) {
  (void)VerifyPassword(password, DummyHash());
}

}  // namespace cairn::auth
