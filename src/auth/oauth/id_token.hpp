// OpenID Connect ID tokens (D18): a provider's JSON Web Key Set, and the verification of a
// compact JWS against it with OpenSSL. Only RS256 (RSA keys) and ES256 (P-256 keys) are
// accepted; the algorithm must match the key's type, so `none`, HS256 (a public key used as an
// HMAC secret) and other confusions are refused. The claims checked: `iss`, `aud` (and `azp`
// when there are several audiences), `exp`, `iat`/`nbf` not in the future, and `nonce`.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json/object.hpp>

#include "common/result.hpp"

namespace cairn::auth::oauth {

// Clocks differ: this much skew is tolerated on `exp`, `nbf` and `iat`.
inline constexpr std::int64_t kIdTokenClockSkewSeconds = 60;
// An ID token longer than this is refused before it is decoded.
inline constexpr std::size_t kMaxIdTokenBytes = 16 * 1024;

// Error reasons of VerifyIdToken. kUnknownKeyReason tells the caller to refetch the key set
// once (the provider may have rotated its keys).
inline constexpr std::string_view kUnknownKeyReason = "UNKNOWN_KEY";
inline constexpr std::string_view kInvalidIdTokenReason = "INVALID_ID_TOKEN";

class Jwks {
 public:
  struct Key;
  Jwks();
  ~Jwks();
  Jwks(Jwks&&) noexcept;
  Jwks& operator=(Jwks&&) noexcept;

  // The usable signing keys of a `{"keys":[…]}` document (RSA, and EC on P-256); keys of other
  // types or uses are skipped. An unparsable document is an error.
  static Result<Jwks> Parse(std::string_view json);
  std::size_t size() const { return keys_.size(); }

  // The key with this `kid` (or the only key when the token names none).
  const Key* Find(std::string_view kid) const;

 private:
  std::vector<std::unique_ptr<Key>> keys_;
};

struct IdTokenExpectations {
  // The issuer the token must name; `issuer_matches`, when set, decides instead (Microsoft's
  // multi-tenant endpoint names the user's tenant).
  std::string issuer;
  std::function<bool(std::string_view iss, const boost::json::object& claims)> issuer_matches;
  std::string audience;  // the client id
  std::string nonce;     // as sent in the authorization request
  std::int64_t now_seconds = 0;
};

// The verified claims; an error (reason kInvalidIdTokenReason or kUnknownKeyReason) otherwise,
// with what failed in `detail`.
Result<boost::json::object> VerifyIdToken(std::string_view token, const Jwks& keys,
                                          const IdTokenExpectations& expect);

}  // namespace cairn::auth::oauth
