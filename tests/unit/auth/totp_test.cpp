// TOTP against the RFCs' own test vectors: RFC 4226 Appendix D (HOTP) and RFC 6238 Appendix B
// (TOTP, SHA-1). The RFC 6238 table gives 8 digits; cairn uses 6, which are the last 6 of the 8
// (both are the same truncated value modulo 10^8 and 10^6).
#include "auth/totp.hpp"

#include <gtest/gtest.h>

namespace cairn::auth::totp {
namespace {

// The SHA-1 seed of both RFCs: the ASCII digits "1234567890" twice (20 bytes).
constexpr std::string_view kRfcSeed = "12345678901234567890";

TEST(Hotp, MatchesRfc4226AppendixD) {
  const char* expected[] = {"755224", "287082", "359152", "969429", "338314",
                            "254676", "287922", "162583", "399871", "520489"};
  for (std::uint64_t counter = 0; counter < 10; ++counter) {
    EXPECT_EQ(Hotp(kRfcSeed, counter), expected[counter]) << "counter " << counter;
  }
}

struct Vector {
  std::int64_t time;
  const char* eight_digits;
};

// RFC 6238 Appendix B, the SHA1 rows.
constexpr Vector kRfc6238Sha1[] = {{59, "94287082"},         {1111111109, "07081804"},
                                   {1111111111, "14050471"}, {1234567890, "89005924"},
                                   {2000000000, "69279037"}, {20000000000, "65353130"}};

TEST(Totp, MatchesRfc6238AppendixBWithEightDigits) {
  for (const Vector& vector : kRfc6238Sha1) {
    EXPECT_EQ(Hotp(kRfcSeed, static_cast<std::uint64_t>(StepAt(vector.time)), 8),
              vector.eight_digits)
        << "T = " << vector.time;
  }
}

TEST(Totp, SixDigitCodesAreTheRfcCodesLastSixAndVerify) {
  for (const Vector& vector : kRfc6238Sha1) {
    const std::string six = std::string(vector.eight_digits).substr(2);
    EXPECT_EQ(Hotp(kRfcSeed, static_cast<std::uint64_t>(StepAt(vector.time))), six);
    const auto step = MatchingStep(kRfcSeed, six, vector.time);
    ASSERT_TRUE(step.has_value()) << "T = " << vector.time;
    EXPECT_EQ(*step, vector.time / 30);
  }
}

TEST(Totp, AcceptsOneStepOfDriftAndNoMore) {
  const std::int64_t time = 1234567890;  // step 41152263
  const std::string code = "005924";
  EXPECT_EQ(MatchingStep(kRfcSeed, code, time + 30), StepAt(time));  // the server is ahead
  EXPECT_EQ(MatchingStep(kRfcSeed, code, time - 30), StepAt(time));  // the server is behind
  EXPECT_FALSE(MatchingStep(kRfcSeed, code, time + 60).has_value());
  EXPECT_FALSE(MatchingStep(kRfcSeed, code, time - 60).has_value());
}

TEST(Totp, RefusesWrongShortAndLongCodes) {
  EXPECT_FALSE(MatchingStep(kRfcSeed, "005925", 1234567890).has_value());
  EXPECT_FALSE(MatchingStep(kRfcSeed, "05924", 1234567890).has_value());
  EXPECT_FALSE(MatchingStep(kRfcSeed, "0005924", 1234567890).has_value());
  EXPECT_FALSE(MatchingStep(kRfcSeed, "", 1234567890).has_value());
  EXPECT_FALSE(MatchingStep("another key", "005924", 1234567890).has_value());
}

TEST(Base32, MatchesRfc4648Vectors) {
  EXPECT_EQ(Base32(""), "");
  EXPECT_EQ(Base32("f"), "MY");
  EXPECT_EQ(Base32("fo"), "MZXQ");
  EXPECT_EQ(Base32("foo"), "MZXW6");
  EXPECT_EQ(Base32("foob"), "MZXW6YQ");
  EXPECT_EQ(Base32("fooba"), "MZXW6YTB");
  EXPECT_EQ(Base32("foobar"), "MZXW6YTBOI");
}

TEST(KeyUri, EncodesAsBetterAuthDoes) {
  // Label: encodeURIComponent; query: URLSearchParams (space → '+').
  EXPECT_EQ(KeyUri("My App", "ann@example.com", "12345678901234567890"),
            "otpauth://totp/My%20App:ann%40example.com?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"
            "&issuer=My+App&digits=6&period=30");
}

}  // namespace
}  // namespace cairn::auth::totp
