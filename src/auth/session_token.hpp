// Session tokens on the wire (D11). The cookie carries `<token>.<signature>` URL-encoded, where
// the signature is base64(HMAC-SHA256(secret, token)) — Better Auth's signed-cookie format. A
// Bearer header may carry the bare token or the signed form.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace cairn::auth {

class SessionTokenCodec {
 public:
  explicit SessionTokenCodec(std::string secret) : secret_(std::move(secret)) {}

  // A fresh random session token.
  static std::string NewToken();
  // The SHA-256 hex the database stores instead of the token.
  static std::string Hash(std::string_view token);

  // `<token>.<base64 signature>`, as the `set-auth-token` header carries it.
  std::string SignedValue(std::string_view token) const;
  // The cookie value for `token`: SignedValue URL-encoded.
  std::string Sign(std::string_view token) const;
  // The token inside a cookie value, when its signature is valid (constant-time compare).
  std::optional<std::string> VerifyCookie(std::string_view cookie_value) const;
  // The value inside any signed cookie (Better Auth's setSignedCookie format), when its
  // signature is valid (constant-time compare); the value may hold any characters.
  std::optional<std::string> VerifySigned(std::string_view cookie_value) const;
  // The token of an `Authorization: Bearer` credential: signed or bare.
  std::optional<std::string> FromBearer(std::string_view credential) const;

 private:
  std::string secret_;
};

}  // namespace cairn::auth
