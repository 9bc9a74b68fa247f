#include "auth/secret_box.hpp"

#include <gtest/gtest.h>

namespace cairn::auth {
namespace {

constexpr std::string_view kSecret = "0123456789abcdef0123456789abcdef-test-secret";

TEST(SecretBox, OpensWhatItSealedAndHidesThePlainText) {
  const SecretBox box(kSecret, "two-factor");
  const std::string plain = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP";
  const std::string sealed = box.Seal(plain);
  EXPECT_TRUE(sealed.starts_with("v1."));
  EXPECT_EQ(sealed.find(plain), std::string::npos);
  EXPECT_EQ(box.Open(sealed), plain);
  EXPECT_EQ(box.Open(box.Seal("")), "");
}

TEST(SecretBox, EverySealUsesAFreshNonce) {
  const SecretBox box(kSecret, "two-factor");
  EXPECT_NE(box.Seal("same"), box.Seal("same"));
}

TEST(SecretBox, RefusesOtherKeysAndAlteredValues) {
  const SecretBox box(kSecret, "two-factor");
  const std::string sealed = box.Seal("a secret");
  EXPECT_FALSE(SecretBox("another secret", "two-factor").Open(sealed).has_value());
  EXPECT_FALSE(SecretBox(kSecret, "another purpose").Open(sealed).has_value());
  std::string altered = sealed;
  altered[altered.size() / 2] = altered[altered.size() / 2] == 'A' ? 'B' : 'A';
  EXPECT_FALSE(box.Open(altered).has_value());
  EXPECT_FALSE(box.Open("a secret").has_value());
  EXPECT_FALSE(box.Open("v1.").has_value());
  EXPECT_FALSE(box.Open("v1.!!!").has_value());
}

}  // namespace
}  // namespace cairn::auth
