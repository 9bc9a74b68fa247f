// ID token verification against a JWKS (D18): tokens signed here with freshly generated RSA and
// P-256 keys, then each check that must refuse one.
#include "auth/oauth/id_token.hpp"

#include <gtest/gtest.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/rsa.h>

#include <boost/json.hpp>
#include <memory>
#include <string>

#include "common/crypto.hpp"

namespace cairn::auth::oauth {
namespace {

namespace json = boost::json;

constexpr std::int64_t kNow = 1'800'000'000;
constexpr const char* kIssuer = "https://idp.example.com";
constexpr const char* kClient = "cairn-client";
constexpr const char* kNonce = "n-0S6_WzA2Mj";

struct PkeyDeleter {
  void operator()(EVP_PKEY* key) const { EVP_PKEY_free(key); }
};
using Pkey = std::unique_ptr<EVP_PKEY, PkeyDeleter>;

std::string BnBytes(const BIGNUM* bn, int width = 0) {
  std::string out(static_cast<std::size_t>(width > 0 ? width : BN_num_bytes(bn)), '\0');
  if (width > 0) {
    BN_bn2binpad(bn, reinterpret_cast<unsigned char*>(out.data()), width);
  } else {
    BN_bn2bin(bn, reinterpret_cast<unsigned char*>(out.data()));
  }
  return out;
}

std::string BnParam(EVP_PKEY* key, const char* name, int width = 0) {
  BIGNUM* bn = nullptr;
  EXPECT_EQ(EVP_PKEY_get_bn_param(key, name, &bn), 1);
  std::string out = BnBytes(bn, width);
  BN_free(bn);
  return crypto::Base64Url(out);
}

// A signing key and its public JWK.
struct TestKey {
  Pkey key;
  std::string alg;
  json::object jwk;
};

TestKey Rsa(std::string kid) {
  TestKey out{Pkey(EVP_RSA_gen(2048)), "RS256", {}};
  out.jwk = {{"kty", "RSA"},
             {"kid", kid},
             {"use", "sig"},
             {"n", BnParam(out.key.get(), OSSL_PKEY_PARAM_RSA_N)},
             {"e", BnParam(out.key.get(), OSSL_PKEY_PARAM_RSA_E)}};
  return out;
}

TestKey Ec(std::string kid) {
  TestKey out{Pkey(EVP_EC_gen("P-256")), "ES256", {}};
  out.jwk = {{"kty", "EC"},
             {"kid", kid},
             {"crv", "P-256"},
             {"x", BnParam(out.key.get(), OSSL_PKEY_PARAM_EC_PUB_X, 32)},
             {"y", BnParam(out.key.get(), OSSL_PKEY_PARAM_EC_PUB_Y, 32)}};
  return out;
}

std::string Sign(const TestKey& key, std::string_view data) {
  EVP_MD_CTX* context = EVP_MD_CTX_new();
  std::size_t length = 0;
  EVP_DigestSignInit(context, nullptr, EVP_sha256(), nullptr, key.key.get());
  EVP_DigestSign(context, nullptr, &length, reinterpret_cast<const unsigned char*>(data.data()),
                 data.size());
  std::string signature(length, '\0');
  EVP_DigestSign(context, reinterpret_cast<unsigned char*>(signature.data()), &length,
                 reinterpret_cast<const unsigned char*>(data.data()), data.size());
  EVP_MD_CTX_free(context);
  signature.resize(length);
  if (key.alg != "ES256") return signature;
  // DER → r || s, as JWS wants it.
  const unsigned char* der = reinterpret_cast<const unsigned char*>(signature.data());
  ECDSA_SIG* sig = d2i_ECDSA_SIG(nullptr, &der, static_cast<long>(signature.size()));
  std::string raw = BnBytes(ECDSA_SIG_get0_r(sig), 32) + BnBytes(ECDSA_SIG_get0_s(sig), 32);
  ECDSA_SIG_free(sig);
  return raw;
}

json::object GoodClaims() {
  return {{"iss", kIssuer}, {"aud", kClient},  {"sub", "user-1"},     {"exp", kNow + 300},
          {"iat", kNow},    {"nonce", kNonce}, {"email", "a@b.test"}, {"email_verified", true}};
}

std::string Token(const TestKey& key, const json::object& claims, json::object header = {}) {
  if (header.empty()) header = {{"alg", key.alg}, {"kid", key.jwk.at("kid")}, {"typ", "JWT"}};
  const std::string signed_part =
      crypto::Base64Url(json::serialize(header)) + "." + crypto::Base64Url(json::serialize(claims));
  return signed_part + "." + crypto::Base64Url(Sign(key, signed_part));
}

Jwks KeySet(std::initializer_list<const TestKey*> keys) {
  json::array list;
  for (const TestKey* key : keys) list.push_back(key->jwk);
  auto parsed = Jwks::Parse(json::serialize(json::object{{"keys", list}}));
  EXPECT_TRUE(parsed.ok());
  return std::move(*parsed);
}

IdTokenExpectations Expect() {
  IdTokenExpectations expect;
  expect.issuer = kIssuer;
  expect.audience = kClient;
  expect.nonce = kNonce;
  expect.now_seconds = kNow;
  return expect;
}

class IdTokenTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    rsa_ = new TestKey(Rsa("rsa-1"));
    ec_ = new TestKey(Ec("ec-1"));
  }
  static void TearDownTestSuite() {
    delete rsa_;
    delete ec_;
  }
  static TestKey* rsa_;
  static TestKey* ec_;
};
TestKey* IdTokenTest::rsa_ = nullptr;
TestKey* IdTokenTest::ec_ = nullptr;

std::string Reason(const Result<json::object>& result) {
  return result.ok() ? "ok" : result.error().reason;
}

TEST_F(IdTokenTest, Rs256AndEs256Verify) {
  const Jwks keys = KeySet({rsa_, ec_});
  EXPECT_EQ(keys.size(), 2u);
  for (const TestKey* key : {rsa_, ec_}) {
    auto claims = VerifyIdToken(Token(*key, GoodClaims()), keys, Expect());
    ASSERT_TRUE(claims.ok()) << key->alg << ": " << claims.error().detail;
    EXPECT_EQ(claims->at("sub").as_string(), "user-1");
  }
}

TEST_F(IdTokenTest, WrongSignatureIsRefused) {
  const Jwks keys = KeySet({rsa_, ec_});
  for (const TestKey* key : {rsa_, ec_}) {
    std::string token = Token(*key, GoodClaims());
    // Another payload under the same signature.
    json::object other = GoodClaims();
    other["sub"] = "admin";
    const std::size_t first = token.find('.');
    const std::size_t second = token.find('.', first + 1);
    const std::string forged = token.substr(0, first + 1) +
                               crypto::Base64Url(json::serialize(other)) + token.substr(second);
    EXPECT_EQ(Reason(VerifyIdToken(forged, keys, Expect())), kInvalidIdTokenReason) << key->alg;
    // A flipped signature bit.
    token[token.size() - 2] = token[token.size() - 2] == 'A' ? 'B' : 'A';
    EXPECT_EQ(Reason(VerifyIdToken(token, keys, Expect())), kInvalidIdTokenReason) << key->alg;
  }
  // Signed by a key that is not the provider's, under the provider key's kid.
  TestKey stranger = Rsa("rsa-1");
  EXPECT_EQ(Reason(VerifyIdToken(Token(stranger, GoodClaims()), keys, Expect())),
            kInvalidIdTokenReason);
}

TEST_F(IdTokenTest, WrongIssuerOrAudienceIsRefused) {
  const Jwks keys = KeySet({rsa_});
  json::object claims = GoodClaims();
  claims["iss"] = "https://evil.example.com";
  EXPECT_EQ(Reason(VerifyIdToken(Token(*rsa_, claims), keys, Expect())), kInvalidIdTokenReason);
  claims = GoodClaims();
  claims["aud"] = "another-client";
  EXPECT_EQ(Reason(VerifyIdToken(Token(*rsa_, claims), keys, Expect())), kInvalidIdTokenReason);
  // Several audiences: the authorized party must be this client.
  claims["aud"] = json::array{"another-client", kClient};
  EXPECT_EQ(Reason(VerifyIdToken(Token(*rsa_, claims), keys, Expect())), kInvalidIdTokenReason);
  claims["azp"] = kClient;
  EXPECT_EQ(Reason(VerifyIdToken(Token(*rsa_, claims), keys, Expect())), "ok");
  claims = GoodClaims();
  claims.erase("iss");
  EXPECT_EQ(Reason(VerifyIdToken(Token(*rsa_, claims), keys, Expect())), kInvalidIdTokenReason);
}

TEST_F(IdTokenTest, ExpiredOrFutureIsRefused) {
  const Jwks keys = KeySet({ec_});
  json::object claims = GoodClaims();
  claims["exp"] = kNow - kIdTokenClockSkewSeconds - 1;
  EXPECT_EQ(Reason(VerifyIdToken(Token(*ec_, claims), keys, Expect())), kInvalidIdTokenReason);
  claims["exp"] = kNow - 10;  // within the tolerated skew
  EXPECT_EQ(Reason(VerifyIdToken(Token(*ec_, claims), keys, Expect())), "ok");
  claims.erase("exp");
  EXPECT_EQ(Reason(VerifyIdToken(Token(*ec_, claims), keys, Expect())), kInvalidIdTokenReason);
  claims = GoodClaims();
  claims["nbf"] = kNow + 3600;
  EXPECT_EQ(Reason(VerifyIdToken(Token(*ec_, claims), keys, Expect())), kInvalidIdTokenReason);
}

TEST_F(IdTokenTest, WrongOrMissingNonceIsRefused) {
  const Jwks keys = KeySet({rsa_});
  json::object claims = GoodClaims();
  claims["nonce"] = "another";
  EXPECT_EQ(Reason(VerifyIdToken(Token(*rsa_, claims), keys, Expect())), kInvalidIdTokenReason);
  claims.erase("nonce");
  EXPECT_EQ(Reason(VerifyIdToken(Token(*rsa_, claims), keys, Expect())), kInvalidIdTokenReason);
}

TEST_F(IdTokenTest, UnknownKidAsksForARefetch) {
  const Jwks keys = KeySet({rsa_});
  TestKey rotated = Rsa("rsa-2");
  EXPECT_EQ(Reason(VerifyIdToken(Token(rotated, GoodClaims()), keys, Expect())), kUnknownKeyReason);
  // Once the key set has the new key, the same token verifies.
  EXPECT_EQ(Reason(VerifyIdToken(Token(rotated, GoodClaims()), KeySet({rsa_, &rotated}), Expect())),
            "ok");
}

TEST_F(IdTokenTest, AlgorithmConfusionIsRefused) {
  const Jwks keys = KeySet({rsa_, ec_});
  const std::string payload = crypto::Base64Url(json::serialize(GoodClaims()));
  // alg none, with and without a signature.
  const std::string none = crypto::Base64Url(R"({"alg":"none","kid":"rsa-1"})") + "." + payload;
  EXPECT_EQ(Reason(VerifyIdToken(none + ".", keys, Expect())), kInvalidIdTokenReason);
  EXPECT_EQ(Reason(VerifyIdToken(none + ".c2ln", keys, Expect())), kInvalidIdTokenReason);
  // HS256 keyed with the RSA key's public modulus (the classic confusion).
  const std::string hs_part = crypto::Base64Url(R"({"alg":"HS256","kid":"rsa-1"})") + "." + payload;
  const std::string mac = crypto::HmacSha256(json::serialize(rsa_->jwk), hs_part);
  EXPECT_EQ(Reason(VerifyIdToken(hs_part + "." + crypto::Base64Url(mac), keys, Expect())),
            kInvalidIdTokenReason);
  // ES256 named over an RSA key, and RS256 over an EC key.
  EXPECT_EQ(Reason(VerifyIdToken(Token(*ec_, GoodClaims(), {{"alg", "ES256"}, {"kid", "rsa-1"}}),
                                 keys, Expect())),
            kInvalidIdTokenReason);
  EXPECT_EQ(Reason(VerifyIdToken(Token(*rsa_, GoodClaims(), {{"alg", "RS256"}, {"kid", "ec-1"}}),
                                 keys, Expect())),
            kInvalidIdTokenReason);
  // A crit header it does not understand.
  EXPECT_EQ(Reason(VerifyIdToken(
                Token(*rsa_, GoodClaims(), {{"alg", "RS256"}, {"kid", "rsa-1"}, {"crit", {"b64"}}}),
                keys, Expect())),
            kInvalidIdTokenReason);
}

TEST_F(IdTokenTest, MalformedTokensAndKeySetsAreRefused) {
  const Jwks keys = KeySet({rsa_});
  for (const char* bad : {"", "a", "a.b", "a.b.c.d", "!!.!!.!!", "e30.e30.e30"}) {
    EXPECT_EQ(Reason(VerifyIdToken(bad, keys, Expect())), kInvalidIdTokenReason) << bad;
  }
  EXPECT_EQ(Reason(VerifyIdToken(std::string(kMaxIdTokenBytes + 1, 'a'), keys, Expect())),
            kInvalidIdTokenReason);
  EXPECT_FALSE(Jwks::Parse("not json").ok());
  EXPECT_FALSE(Jwks::Parse(R"({"keys":{}})").ok());
  // Unusable keys are skipped: an oct (HMAC) key, a short RSA key, another curve, an encryption
  // key.
  json::object enc = rsa_->jwk;
  enc["use"] = "enc";
  auto skipped = Jwks::Parse(json::serialize(json::object{
      {"keys",
       json::array{
           json::object{{"kty", "oct"}, {"kid", "h"}, {"k", "c2VjcmV0"}},
           json::object{{"kty", "RSA"}, {"kid", "s"}, {"n", "AQAB"}, {"e", "AQAB"}},
           json::object{{"kty", "EC"}, {"kid", "p384"}, {"crv", "P-384"}, {"x", "AA"}, {"y", "AA"}},
           enc}}}));
  ASSERT_TRUE(skipped.ok());
  EXPECT_EQ(skipped->size(), 0u);
}

}  // namespace
}  // namespace cairn::auth::oauth
