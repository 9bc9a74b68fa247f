#include "auth/totp.hpp"

#include <array>

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "common/crypto.hpp"

namespace cairn::auth::totp {
namespace {

constexpr char kBase32Alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
constexpr char kHex[] = "0123456789ABCDEF";

bool IsAlphanumeric(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

void AppendEscaped(std::string& out, char c) {
  const auto byte = static_cast<unsigned char>(c);
  out.push_back('%');
  out.push_back(kHex[byte >> 4]);
  out.push_back(kHex[byte & 0xF]);
}

// JavaScript's encodeURIComponent (for UTF-8 input).
std::string EncodeUriComponent(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (IsAlphanumeric(c) || std::string_view("-_.!~*'()").find(c) != std::string_view::npos) {
      out.push_back(c);
    } else {
      AppendEscaped(out, c);
    }
  }
  return out;
}

// application/x-www-form-urlencoded, as URLSearchParams writes it.
std::string EncodeForm(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (IsAlphanumeric(c) || std::string_view("*-._").find(c) != std::string_view::npos) {
      out.push_back(c);
    } else if (c == ' ') {
      out.push_back('+');
    } else {
      AppendEscaped(out, c);
    }
  }
  return out;
}

}  // namespace

std::string Hotp(std::string_view key, std::uint64_t counter, int digits) {
  std::array<unsigned char, 8> message{};
  for (int i = 7; i >= 0; --i) {
    message[static_cast<std::size_t>(i)] = static_cast<unsigned char>(counter & 0xFF);
    counter >>= 8;
  }
  std::array<unsigned char, EVP_MAX_MD_SIZE> mac{};
  unsigned int mac_length = 0;
  HMAC(EVP_sha1(), key.data(), static_cast<int>(key.size()), message.data(), message.size(),
       mac.data(), &mac_length);
  // RFC 4226 §5.3: dynamic truncation.
  const unsigned offset = mac[mac_length - 1] & 0x0F;
  const std::uint32_t binary = ((mac[offset] & 0x7Fu) << 24) | (mac[offset + 1] << 16) |
                               (mac[offset + 2] << 8) | mac[offset + 3];
  std::uint32_t modulus = 1;
  for (int i = 0; i < digits; ++i) modulus *= 10;
  std::string code = std::to_string(binary % modulus);
  code.insert(0, static_cast<std::size_t>(digits) - code.size(), '0');
  return code;
}

std::int64_t StepAt(std::int64_t unix_seconds) {
  return unix_seconds / kPeriodSeconds;
}

std::optional<std::int64_t> MatchingStep(std::string_view key, std::string_view code,
                                         std::int64_t unix_seconds) {
  const std::int64_t now = StepAt(unix_seconds);
  std::optional<std::int64_t> matched;
  for (std::int64_t step = now - kWindowSteps; step <= now + kWindowSteps; ++step) {
    if (crypto::ConstantTimeEquals(Hotp(key, static_cast<std::uint64_t>(step)), code)) {
      matched = step;
    }
  }
  return matched;
}

std::string Base32(std::string_view bytes) {
  std::string out;
  std::uint32_t buffer = 0;
  int bits = 0;
  for (char c : bytes) {
    buffer = (buffer << 8) | static_cast<unsigned char>(c);
    bits += 8;
    while (bits >= 5) {
      out.push_back(kBase32Alphabet[(buffer >> (bits - 5)) & 0x1F]);
      bits -= 5;
    }
  }
  if (bits > 0) out.push_back(kBase32Alphabet[(buffer << (5 - bits)) & 0x1F]);
  return out;
}

std::string KeyUri(std::string_view issuer, std::string_view account, std::string_view key) {
  std::string uri = "otpauth://totp/" + EncodeUriComponent(issuer) + ":" +
                    EncodeUriComponent(account) + "?secret=" + Base32(key) +
                    "&issuer=" + EncodeForm(issuer);
  uri.append("&digits=").append(std::to_string(kDigits));
  uri.append("&period=").append(std::to_string(kPeriodSeconds));
  return uri;
}

}  // namespace cairn::auth::totp
