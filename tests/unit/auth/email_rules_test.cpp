#include <gtest/gtest.h>

#include "auth/auth_service.hpp"

namespace cairn::auth {
namespace {

TEST(NormalizeEmail, LowercasesAndTrims) {
  EXPECT_EQ(NormalizeEmail("  Ann@Example.COM "), "ann@example.com");
  EXPECT_EQ(NormalizeEmail("a.b+tag@sub.example.org"), "a.b+tag@sub.example.org");
}

TEST(NormalizeEmail, RefusesWhatIsNotOneAddress) {
  for (const char* bad :
       {"", "plain", "@example.com", "a@", "a@b", "a@@b.com", "a@b.com.", "a b@c.com",
        "a@b.com,c@d.com", "Ann <a@b.com>", "a@.com", "a\r\nBcc: x@y.com@b.com"}) {
    EXPECT_EQ(NormalizeEmail(bad), "") << bad;
  }
  EXPECT_EQ(NormalizeEmail(std::string(250, 'a') + "@b.com"), "");
}

TEST(CallbackUrl, AllowsPathsAndTheServersOwnOrigin) {
  const std::string base = "https://app.example.com";
  EXPECT_TRUE(CheckCallbackUrl("", base, "callbackURL").ok());
  EXPECT_TRUE(CheckCallbackUrl("/reset", base, "callbackURL").ok());
  EXPECT_TRUE(CheckCallbackUrl("/a?b=c#d", base, "callbackURL").ok());
  EXPECT_TRUE(CheckCallbackUrl("https://app.example.com", base, "callbackURL").ok());
  EXPECT_TRUE(CheckCallbackUrl("https://app.example.com/x", base, "callbackURL").ok());
}

TEST(CallbackUrl, RefusesOpenRedirects) {
  const std::string base = "https://app.example.com";
  for (const char* bad :
       {"//evil.com", "/\\evil.com", "https://evil.com", "https://app.example.com.evil.com/",
        "https://app.example.com@evil.com", "javascript:alert(1)", "/a\nb", "evil.com/x"}) {
    auto status = CheckCallbackUrl(bad, base, "callbackURL");
    ASSERT_FALSE(status.ok()) << bad;
    EXPECT_EQ(status.error().reason, "INVALID_CALLBACK_URL");
    ASSERT_EQ(status.error().errors.size(), 1u);
    EXPECT_EQ(status.error().errors[0].field, "callbackURL");
  }
}

}  // namespace
}  // namespace cairn::auth
