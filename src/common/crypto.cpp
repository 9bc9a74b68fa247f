#include "common/crypto.hpp"

#include <cstring>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <openssl/sha.h>

#include <stdexcept>

namespace cairn::crypto {
namespace {

constexpr char kHexDigits[] = "0123456789abcdef";
constexpr char kAlphanumeric[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
constexpr char kBase64Alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
constexpr char kBase64UrlAlphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

std::string Encode64(std::string_view bytes, const char* alphabet, bool pad) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    const unsigned n = (static_cast<unsigned char>(bytes[i]) << 16) |
                       (static_cast<unsigned char>(bytes[i + 1]) << 8) |
                       static_cast<unsigned char>(bytes[i + 2]);
    out.push_back(alphabet[(n >> 18) & 63]);
    out.push_back(alphabet[(n >> 12) & 63]);
    out.push_back(alphabet[(n >> 6) & 63]);
    out.push_back(alphabet[n & 63]);
  }
  const std::size_t rest = bytes.size() - i;
  if (rest > 0) {
    unsigned n = static_cast<unsigned char>(bytes[i]) << 16;
    if (rest == 2) n |= static_cast<unsigned char>(bytes[i + 1]) << 8;
    out.push_back(alphabet[(n >> 18) & 63]);
    out.push_back(alphabet[(n >> 12) & 63]);
    if (rest == 2) out.push_back(alphabet[(n >> 6) & 63]);
    if (pad) out.append(rest == 1 ? "==" : "=");
  }
  return out;
}

}  // namespace

std::string RandomBytes(std::size_t count) {
  std::string bytes(count, '\0');
  if (count > 0 &&
      RAND_bytes(reinterpret_cast<unsigned char*>(bytes.data()), static_cast<int>(count)) != 1) {
    throw std::runtime_error("RAND_bytes failed");
  }
  return bytes;
}

std::string RandomAlphanumeric(std::size_t length) {
  std::string out;
  out.reserve(length);
  // Rejection sampling: 62 * 4 = 248, so bytes ≥ 248 are dropped to keep every character
  // equally likely.
  while (out.size() < length) {
    for (char c : RandomBytes(length - out.size() + 8)) {
      const auto byte = static_cast<unsigned char>(c);
      if (byte >= 248) continue;
      out.push_back(kAlphanumeric[byte % 62]);
      if (out.size() == length) break;
    }
  }
  return out;
}

std::string Sha256(std::string_view data) {
  std::string digest(SHA256_DIGEST_LENGTH, '\0');
  SHA256(reinterpret_cast<const unsigned char*>(data.data()), data.size(),
         reinterpret_cast<unsigned char*>(digest.data()));
  return digest;
}

std::string Sha256Hex(std::string_view data) {
  const std::string digest = Sha256(data);
  std::string hex;
  hex.reserve(digest.size() * 2);
  for (char c : digest) {
    const auto byte = static_cast<unsigned char>(c);
    hex.push_back(kHexDigits[byte >> 4]);
    hex.push_back(kHexDigits[byte & 15]);
  }
  return hex;
}

std::string HmacSha256(std::string_view key, std::string_view data) {
  std::string mac(EVP_MAX_MD_SIZE, '\0');
  unsigned int length = 0;
  if (HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
           reinterpret_cast<const unsigned char*>(data.data()), data.size(),
           reinterpret_cast<unsigned char*>(mac.data()), &length) == nullptr) {
    throw std::runtime_error("HMAC-SHA256 failed");
  }
  mac.resize(length);
  return mac;
}

bool ConstantTimeEquals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  return CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

std::string Base64(std::string_view bytes) {
  return Encode64(bytes, kBase64Alphabet, true);
}

std::string Base64Url(std::string_view bytes) {
  return Encode64(bytes, kBase64UrlAlphabet, false);
}

std::optional<std::string> Base64UrlDecode(std::string_view text) {
  if (text.size() % 4 == 1) return std::nullopt;
  std::string out;
  out.reserve(text.size() * 3 / 4);
  unsigned bits = 0;
  int count = 0;
  for (char c : text) {
    const char* at = std::strchr(kBase64UrlAlphabet, c);
    if (c == '\0' || at == nullptr) return std::nullopt;
    bits = (bits << 6) | static_cast<unsigned>(at - kBase64UrlAlphabet);
    count += 6;
    if (count >= 8) {
      count -= 8;
      out.push_back(static_cast<char>((bits >> count) & 0xff));
    }
  }
  // Leftover bits must be zero, so that each byte string has exactly one encoding.
  if ((bits & ((1U << count) - 1)) != 0) return std::nullopt;
  return out;
}

}  // namespace cairn::crypto
