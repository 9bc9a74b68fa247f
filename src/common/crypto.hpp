// Thin wrappers over OpenSSL's audited primitives: random bytes, SHA-256, HMAC-SHA256,
// constant-time comparison, base64url. Nothing here is hand-rolled cryptography.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace cairn::crypto {

// `count` bytes from the operating system's CSPRNG (RAND_bytes). Throws on failure: without
// randomness no token may be issued.
std::string RandomBytes(std::size_t count);
// A random identifier of `length` characters from [A-Za-z0-9] (unbiased).
std::string RandomAlphanumeric(std::size_t length);

std::string Sha256(std::string_view data);  // 32 raw bytes
std::string Sha256Hex(std::string_view data);
std::string HmacSha256(std::string_view key, std::string_view data);  // 32 raw bytes

// Equal length and content, in time independent of the content.
bool ConstantTimeEquals(std::string_view a, std::string_view b);

// RFC 4648 base64 (with padding) and base64url (without padding).
std::string Base64(std::string_view bytes);
std::string Base64Url(std::string_view bytes);
// The bytes of unpadded base64url text; nullopt for any other text (padding, other alphabets,
// non-zero trailing bits).
std::optional<std::string> Base64UrlDecode(std::string_view text);

}  // namespace cairn::crypto
