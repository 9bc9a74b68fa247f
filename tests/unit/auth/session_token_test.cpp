#include "auth/session_token.hpp"

#include <gtest/gtest.h>

#include "common/crypto.hpp"

namespace cairn::auth {
namespace {

// Better Auth 1.7.25 produced these from this secret and token (its signed-cookie format).
constexpr const char* kSecret = "0123456789abcdef0123456789abcdef-test-secret";
constexpr const char* kToken = "Jg2dsjSqX3TgeAaTtEqCllqJ75uN0QDk";
constexpr const char* kSignedValue =
    "Jg2dsjSqX3TgeAaTtEqCllqJ75uN0QDk.JL+A1rXWQIBknMqpsoUbqnJYDsFo/EarNUSKwGm13Rs=";
constexpr const char* kCookieValue =
    "Jg2dsjSqX3TgeAaTtEqCllqJ75uN0QDk.JL%2BA1rXWQIBknMqpsoUbqnJYDsFo%2FEarNUSKwGm13Rs%3D";

TEST(SessionToken, SignsExactlyAsBetterAuth) {
  SessionTokenCodec codec(kSecret);
  EXPECT_EQ(codec.SignedValue(kToken), kSignedValue);
  EXPECT_EQ(codec.Sign(kToken), kCookieValue);
}

TEST(SessionToken, VerifiesItsOwnCookiesOnly) {
  SessionTokenCodec codec(kSecret);
  EXPECT_EQ(codec.VerifyCookie(kCookieValue), kToken);
  EXPECT_EQ(codec.VerifyCookie(kSignedValue), kToken);  // not URL-encoded: still valid
  std::string tampered = kCookieValue;
  tampered[3] = tampered[3] == 'a' ? 'b' : 'a';
  EXPECT_FALSE(codec.VerifyCookie(tampered));
  EXPECT_FALSE(SessionTokenCodec("another-secret-another-secret-xx").VerifyCookie(kCookieValue));
  EXPECT_FALSE(codec.VerifyCookie(kToken));  // unsigned
  EXPECT_FALSE(codec.VerifyCookie(""));
  EXPECT_FALSE(codec.VerifyCookie("%zz.abc"));
  EXPECT_FALSE(codec.VerifyCookie("bad token.JL%2BA1rXWQIBknMqpsoUbqnJYDsFo%2FEarNUSKwGm13Rs%3D"));
}

TEST(SessionToken, BearerTakesTheBareOrTheSignedToken) {
  SessionTokenCodec codec(kSecret);
  EXPECT_EQ(codec.FromBearer(kToken), kToken);
  EXPECT_EQ(codec.FromBearer(kSignedValue), kToken);
  EXPECT_EQ(codec.FromBearer(kCookieValue), kToken);
  EXPECT_FALSE(codec.FromBearer("Jg2dsjSqX3TgeAaTtEqCllqJ75uN0QDk.forged="));
  EXPECT_FALSE(codec.FromBearer("has space"));
  EXPECT_FALSE(codec.FromBearer(std::string(200, 'a')));
}

TEST(SessionToken, NewTokensAreDistinctAlphanumeric) {
  const std::string a = SessionTokenCodec::NewToken();
  const std::string b = SessionTokenCodec::NewToken();
  EXPECT_EQ(a.size(), 32u);
  EXPECT_NE(a, b);
  for (char c : a) EXPECT_TRUE(std::isalnum(static_cast<unsigned char>(c))) << a;
  EXPECT_EQ(SessionTokenCodec::Hash(a).size(), 64u);
  EXPECT_EQ(SessionTokenCodec::Hash(a), crypto::Sha256Hex(a));
}

TEST(Crypto, Base64MatchesRfc4648Vectors) {
  EXPECT_EQ(crypto::Base64(""), "");
  EXPECT_EQ(crypto::Base64("f"), "Zg==");
  EXPECT_EQ(crypto::Base64("fo"), "Zm8=");
  EXPECT_EQ(crypto::Base64("foo"), "Zm9v");
  EXPECT_EQ(crypto::Base64("foobar"), "Zm9vYmFy");
  EXPECT_EQ(crypto::Base64Url("\xfb\xff"), "-_8");
  EXPECT_EQ(crypto::Sha256Hex("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_TRUE(crypto::ConstantTimeEquals("same", "same"));
  EXPECT_FALSE(crypto::ConstantTimeEquals("same", "sane"));
  EXPECT_FALSE(crypto::ConstantTimeEquals("same", "samer"));
}

}  // namespace
}  // namespace cairn::auth
