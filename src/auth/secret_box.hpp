// Encryption at rest for two-factor secrets and backup codes (D19): AES-256-GCM (OpenSSL) under
// a key derived from AUTH_SECRET with HKDF-SHA256, so a copy of the database alone does not
// reveal them. Each value gets a fresh random 96-bit nonce; the tag authenticates it.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace cairn::auth {

class SecretBox {
 public:
  // `secret` is AUTH_SECRET (or the generated one); `purpose` separates keys derived from it.
  SecretBox(std::string_view secret, std::string_view purpose);

  // "v1." + base64url(nonce ‖ ciphertext ‖ tag).
  std::string Seal(std::string_view plain) const;
  // The plain text, or nullopt when the value was not sealed with this key or was altered.
  std::optional<std::string> Open(std::string_view sealed) const;

 private:
  std::string key_;  // 32 bytes
};

}  // namespace cairn::auth
