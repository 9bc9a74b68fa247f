#include "auth/session_token.hpp"

#include "auth/limits.hpp"
#include "common/crypto.hpp"

namespace cairn::auth {
namespace {

// The characters a token may hold; anything else is not ours and is not looked up.
bool IsTokenText(std::string_view token) {
  if (token.empty() || token.size() > 128) return false;
  for (char c : token) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '-' || c == '_';
    if (!ok) return false;
  }
  return true;
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::optional<std::string> PercentDecode(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      out.push_back(text[i]);
      continue;
    }
    if (i + 2 >= text.size()) return std::nullopt;
    const int high = HexValue(text[i + 1]);
    const int low = HexValue(text[i + 2]);
    if (high < 0 || low < 0) return std::nullopt;
    out.push_back(static_cast<char>(high * 16 + low));
    i += 2;
  }
  return out;
}

// encodeURIComponent for the base64 alphabet: `+`, `/` and `=` are escaped.
void AppendUriComponent(std::string& out, std::string_view text) {
  for (char c : text) {
    if (c == '+') {
      out += "%2B";
    } else if (c == '/') {
      out += "%2F";
    } else if (c == '=') {
      out += "%3D";
    } else {
      out.push_back(c);
    }
  }
}

}  // namespace

std::string SessionTokenCodec::NewToken() {
  return crypto::RandomAlphanumeric(kSessionTokenLength);
}

std::string SessionTokenCodec::Hash(std::string_view token) {
  return crypto::Sha256Hex(token);
}

std::string SessionTokenCodec::SignedValue(std::string_view token) const {
  std::string value(token);
  value += '.';
  value += crypto::Base64(crypto::HmacSha256(secret_, token));
  return value;
}

std::string SessionTokenCodec::Sign(std::string_view token) const {
  std::string value;
  AppendUriComponent(value, SignedValue(token));
  return value;
}

std::optional<std::string> SessionTokenCodec::VerifyCookie(std::string_view cookie_value) const {
  auto token = VerifySigned(cookie_value);
  if (!token || !IsTokenText(*token)) return std::nullopt;
  return token;
}

std::optional<std::string> SessionTokenCodec::VerifySigned(std::string_view cookie_value) const {
  auto decoded = PercentDecode(cookie_value);
  if (!decoded) return std::nullopt;
  const std::size_t dot = decoded->rfind('.');
  if (dot == std::string::npos) return std::nullopt;
  std::string value = decoded->substr(0, dot);
  const std::string expected = crypto::Base64(crypto::HmacSha256(secret_, value));
  if (!crypto::ConstantTimeEquals(std::string_view(*decoded).substr(dot + 1), expected)) {
    return std::nullopt;
  }
  return value;
}

std::optional<std::string> SessionTokenCodec::FromBearer(std::string_view credential) const {
  if (IsTokenText(credential)) return std::string(credential);
  return VerifyCookie(credential);
}

}  // namespace cairn::auth
