#include "auth/oauth/id_token.hpp"

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>

#include <boost/json/parse.hpp>
#include <optional>

#include "common/crypto.hpp"

namespace cairn::auth::oauth {

enum class KeyType { kRsa, kEcP256 };

struct Jwks::Key {
  std::string kid;
  KeyType type = KeyType::kRsa;
  EVP_PKEY* pkey = nullptr;
  Key() = default;
  Key(const Key&) = delete;
  Key& operator=(const Key&) = delete;
  ~Key() { EVP_PKEY_free(pkey); }
};

namespace {

namespace json = boost::json;

// RSA keys below this size are refused (NIST: 2048 bits at least).
constexpr int kMinRsaBits = 2048;
// The size of an ES256 signature: r and s, 32 bytes each.
constexpr std::size_t kEs256SignatureBytes = 64;
constexpr std::size_t kP256CoordinateBytes = 32;

Error Invalid(std::string detail) {
  Error error = Error::Unauthorized("Invalid ID token");
  error.reason = std::string(kInvalidIdTokenReason);
  error.detail = std::move(detail);
  return error;
}

std::optional<std::string> StringMember(const json::object& object, std::string_view key) {
  const json::value* value = object.if_contains(key);
  if (value == nullptr || !value->is_string()) return std::nullopt;
  return std::string(value->get_string());
}

std::optional<std::string> DecodedMember(const json::object& object, std::string_view key) {
  auto text = StringMember(object, key);
  if (!text) return std::nullopt;
  return crypto::Base64UrlDecode(*text);
}

struct BnDeleter {
  void operator()(BIGNUM* bn) const { BN_free(bn); }
};
using Bn = std::unique_ptr<BIGNUM, BnDeleter>;

Bn ToBn(std::string_view bytes) {
  return Bn(BN_bin2bn(reinterpret_cast<const unsigned char*>(bytes.data()),
                      static_cast<int>(bytes.size()), nullptr));
}

// Builds a public key from OSSL parameters ("RSA" or "EC").
EVP_PKEY* FromParams(const char* type, OSSL_PARAM_BLD* builder) {
  OSSL_PARAM* params = OSSL_PARAM_BLD_to_param(builder);
  EVP_PKEY_CTX* context = EVP_PKEY_CTX_new_from_name(nullptr, type, nullptr);
  EVP_PKEY* pkey = nullptr;
  if (params != nullptr && context != nullptr && EVP_PKEY_fromdata_init(context) == 1) {
    if (EVP_PKEY_fromdata(context, &pkey, EVP_PKEY_PUBLIC_KEY, params) != 1) pkey = nullptr;
  }
  EVP_PKEY_CTX_free(context);
  OSSL_PARAM_free(params);
  return pkey;
}

EVP_PKEY* RsaKey(const json::object& jwk) {
  const auto n = DecodedMember(jwk, "n");
  const auto e = DecodedMember(jwk, "e");
  if (!n || !e || n->empty() || e->empty()) return nullptr;
  Bn modulus = ToBn(*n);
  Bn exponent = ToBn(*e);
  OSSL_PARAM_BLD* builder = OSSL_PARAM_BLD_new();
  EVP_PKEY* pkey = nullptr;
  if (builder != nullptr && modulus && exponent &&
      OSSL_PARAM_BLD_push_BN(builder, OSSL_PKEY_PARAM_RSA_N, modulus.get()) == 1 &&
      OSSL_PARAM_BLD_push_BN(builder, OSSL_PKEY_PARAM_RSA_E, exponent.get()) == 1) {
    pkey = FromParams("RSA", builder);
  }
  OSSL_PARAM_BLD_free(builder);
  if (pkey != nullptr && EVP_PKEY_get_bits(pkey) < kMinRsaBits) {
    EVP_PKEY_free(pkey);
    return nullptr;
  }
  return pkey;
}

EVP_PKEY* EcKey(const json::object& jwk) {
  if (StringMember(jwk, "crv") != "P-256") return nullptr;
  const auto x = DecodedMember(jwk, "x");
  const auto y = DecodedMember(jwk, "y");
  if (!x || !y || x->size() != kP256CoordinateBytes || y->size() != kP256CoordinateBytes) {
    return nullptr;
  }
  // An uncompressed point: 0x04 || x || y.
  std::string point = "\x04" + *x + *y;
  OSSL_PARAM_BLD* builder = OSSL_PARAM_BLD_new();
  EVP_PKEY* pkey = nullptr;
  if (builder != nullptr &&
      OSSL_PARAM_BLD_push_utf8_string(builder, OSSL_PKEY_PARAM_GROUP_NAME, "prime256v1", 0) == 1 &&
      OSSL_PARAM_BLD_push_octet_string(builder, OSSL_PKEY_PARAM_PUB_KEY, point.data(),
                                       point.size()) == 1) {
    pkey = FromParams("EC", builder);
  }
  OSSL_PARAM_BLD_free(builder);
  return pkey;
}

// ES256 signatures are r || s; OpenSSL verifies DER.
std::optional<std::string> EcdsaRawToDer(std::string_view raw) {
  if (raw.size() != kEs256SignatureBytes) return std::nullopt;
  ECDSA_SIG* sig = ECDSA_SIG_new();
  if (sig == nullptr) return std::nullopt;
  BIGNUM* r = ToBn(raw.substr(0, kP256CoordinateBytes)).release();
  BIGNUM* s = ToBn(raw.substr(kP256CoordinateBytes)).release();
  if (r == nullptr || s == nullptr || ECDSA_SIG_set0(sig, r, s) != 1) {
    BN_free(r);
    BN_free(s);
    ECDSA_SIG_free(sig);
    return std::nullopt;
  }
  unsigned char* der = nullptr;
  const int length = i2d_ECDSA_SIG(sig, &der);
  ECDSA_SIG_free(sig);
  if (length <= 0) return std::nullopt;
  std::string out(reinterpret_cast<const char*>(der), static_cast<std::size_t>(length));
  OPENSSL_free(der);
  return out;
}

bool VerifySha256(EVP_PKEY* pkey, std::string_view signed_part, std::string_view signature) {
  EVP_MD_CTX* context = EVP_MD_CTX_new();
  if (context == nullptr) return false;
  bool ok =
      EVP_DigestVerifyInit(context, nullptr, EVP_sha256(), nullptr, pkey) == 1 &&
      EVP_DigestVerify(context, reinterpret_cast<const unsigned char*>(signature.data()),
                       signature.size(), reinterpret_cast<const unsigned char*>(signed_part.data()),
                       signed_part.size()) == 1;
  EVP_MD_CTX_free(context);
  return ok;
}

std::optional<json::object> DecodeJsonPart(std::string_view part) {
  const auto bytes = crypto::Base64UrlDecode(part);
  if (!bytes) return std::nullopt;
  boost::system::error_code ec;
  json::value value = json::parse(*bytes, ec);
  if (ec || !value.is_object()) return std::nullopt;
  return std::move(value.get_object());
}

std::optional<std::int64_t> IntClaim(const json::object& claims, std::string_view key) {
  const json::value* value = claims.if_contains(key);
  if (value == nullptr) return std::nullopt;
  if (value->is_int64()) return value->get_int64();
  if (value->is_uint64()) return static_cast<std::int64_t>(value->get_uint64());
  if (value->is_double()) return static_cast<std::int64_t>(value->get_double());
  return std::nullopt;
}

Status CheckClaims(const json::object& claims, const IdTokenExpectations& expect) {
  const auto iss = StringMember(claims, "iss");
  if (!iss) return Invalid("no iss");
  const bool issuer_ok =
      expect.issuer_matches ? expect.issuer_matches(*iss, claims) : *iss == expect.issuer;
  if (!issuer_ok) return Invalid("iss " + *iss + " is not the provider's");

  const json::value* aud = claims.if_contains("aud");
  bool audience_ok = false;
  bool several = false;
  if (aud != nullptr && aud->is_string()) {
    audience_ok = aud->get_string() == expect.audience;
  } else if (aud != nullptr && aud->is_array()) {
    several = aud->get_array().size() > 1;
    for (const json::value& item : aud->get_array()) {
      if (item.is_string() && item.get_string() == expect.audience) audience_ok = true;
    }
  }
  if (!audience_ok) return Invalid("aud does not name this client");
  // OIDC Core 3.1.3.7: with several audiences, the authorized party must be this client.
  if (several && StringMember(claims, "azp") != expect.audience) return Invalid("azp mismatch");

  const auto exp = IntClaim(claims, "exp");
  if (!exp) return Invalid("no exp");
  if (*exp + kIdTokenClockSkewSeconds <= expect.now_seconds) return Invalid("expired");
  if (const auto nbf = IntClaim(claims, "nbf");
      nbf && *nbf > expect.now_seconds + kIdTokenClockSkewSeconds) {
    return Invalid("not valid yet");
  }
  if (const auto iat = IntClaim(claims, "iat");
      iat && *iat > expect.now_seconds + kIdTokenClockSkewSeconds) {
    return Invalid("issued in the future");
  }
  const auto nonce = StringMember(claims, "nonce");
  if (!nonce || !crypto::ConstantTimeEquals(*nonce, expect.nonce)) return Invalid("nonce mismatch");
  return {};
}

}  // namespace

Jwks::Jwks() = default;
Jwks::~Jwks() = default;
Jwks::Jwks(Jwks&&) noexcept = default;
Jwks& Jwks::operator=(Jwks&&) noexcept = default;

Result<Jwks> Jwks::Parse(std::string_view text) {
  boost::system::error_code ec;
  json::value document = json::parse(text, ec);
  const json::value* keys =
      !ec && document.is_object() ? document.get_object().if_contains("keys") : nullptr;
  if (keys == nullptr || !keys->is_array()) {
    return Invalid("the provider's JWKS is not a {\"keys\":[…]} document");
  }
  Jwks out;
  for (const json::value& item : keys->get_array()) {
    if (!item.is_object()) continue;
    const json::object& jwk = item.get_object();
    if (const auto use = StringMember(jwk, "use"); use && *use != "sig") continue;
    const auto kty = StringMember(jwk, "kty");
    auto key = std::make_unique<Key>();
    key->kid = StringMember(jwk, "kid").value_or("");
    const auto alg = StringMember(jwk, "alg");
    if (kty == "RSA" && (!alg || *alg == "RS256")) {
      key->type = KeyType::kRsa;
      key->pkey = RsaKey(jwk);
    } else if (kty == "EC" && (!alg || *alg == "ES256")) {
      key->type = KeyType::kEcP256;
      key->pkey = EcKey(jwk);
    }
    if (key->pkey != nullptr) out.keys_.push_back(std::move(key));
  }
  return out;
}

const Jwks::Key* Jwks::Find(std::string_view kid) const {
  if (kid.empty()) return keys_.size() == 1 ? keys_.front().get() : nullptr;
  for (const auto& key : keys_) {
    if (key->kid == kid) return key.get();
  }
  return nullptr;
}

Result<json::object> VerifyIdToken(std::string_view token, const Jwks& keys,
                                   const IdTokenExpectations& expect) {
  if (token.size() > kMaxIdTokenBytes) return Invalid("too long");
  const std::size_t first = token.find('.');
  const std::size_t second = first == std::string_view::npos ? first : token.find('.', first + 1);
  if (second == std::string_view::npos || token.find('.', second + 1) != std::string_view::npos) {
    return Invalid("not a compact JWS");
  }
  const auto header = DecodeJsonPart(token.substr(0, first));
  if (!header) return Invalid("bad header");
  const auto alg = StringMember(*header, "alg");
  KeyType wanted = KeyType::kRsa;
  if (alg == "RS256") {
    wanted = KeyType::kRsa;
  } else if (alg == "ES256") {
    wanted = KeyType::kEcP256;
  } else {
    return Invalid("alg " + alg.value_or("(none)") + " is not accepted");
  }
  if (header->contains("crit")) return Invalid("unsupported crit header");

  const Jwks::Key* key = keys.Find(StringMember(*header, "kid").value_or(""));
  if (key == nullptr) {
    Error error = Invalid("no key for the token's kid");
    error.reason = std::string(kUnknownKeyReason);
    return error;
  }
  if (key->type != wanted) return Invalid("alg does not match the key's type");

  auto signature = crypto::Base64UrlDecode(token.substr(second + 1));
  if (!signature) return Invalid("bad signature encoding");
  if (wanted == KeyType::kEcP256) {
    signature = EcdsaRawToDer(*signature);
    if (!signature) return Invalid("bad ES256 signature");
  }
  if (!VerifySha256(key->pkey, token.substr(0, second), *signature)) {
    return Invalid("signature does not verify");
  }
  auto claims = DecodeJsonPart(token.substr(first + 1, second - first - 1));
  if (!claims) return Invalid("bad payload");
  CAIRN_TRY(CheckClaims(*claims, expect));
  return std::move(*claims);
}

}  // namespace cairn::auth::oauth
