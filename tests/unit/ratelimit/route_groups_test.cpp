// Which paths fall in which D16 group, with which limit.
#include "ratelimit/route_groups.hpp"

#include <string>

#include <gtest/gtest.h>

#include "ratelimit/limits.hpp"

namespace cairn::ratelimit {
namespace {

std::string GroupOf(std::string_view path) {
  const auto route = ClassifyRoute(path, kDefaultWindowSeconds);
  return route ? std::string(route->group) : std::string("-");
}

TEST(RouteGroupsTest, Groups) {
  EXPECT_EQ(GroupOf("/api/auth/sign-in/email"), "sign-in");
  EXPECT_EQ(GroupOf("/api/auth/sign-in/social"), "sign-in");
  EXPECT_EQ(GroupOf("/api/auth/sign-in"), "sign-in");
  EXPECT_EQ(GroupOf("/api/auth/sign-up/email"), "sign-up");
  EXPECT_EQ(GroupOf("/api/auth/request-password-reset"), "password-reset");
  EXPECT_EQ(GroupOf("/api/auth/forget-password"), "password-reset");
  EXPECT_EQ(GroupOf("/api/auth/reset-password"), "password-reset");
  EXPECT_EQ(GroupOf("/api/auth/reset-password/abc123"), "password-reset");
  // Magic links and email codes: their own tight group, sign-in by code included.
  EXPECT_EQ(GroupOf("/api/auth/sign-in/magic-link"), "one-time-code");
  EXPECT_EQ(GroupOf("/api/auth/magic-link/verify"), "one-time-code");
  EXPECT_EQ(GroupOf("/api/auth/sign-in/email-otp"), "one-time-code");
  EXPECT_EQ(GroupOf("/api/auth/email-otp/send-verification-otp"), "one-time-code");
  EXPECT_EQ(GroupOf("/api/auth/email-otp/reset-password"), "one-time-code");
  EXPECT_EQ(GroupOf("/api/auth/forget-password/email-otp"), "one-time-code");
  EXPECT_EQ(GroupOf("/api/auth/sign-in/email-otpx"), "sign-in");
  EXPECT_EQ(GroupOf("/api/auth/admin/list-users"), "admin");
  EXPECT_EQ(GroupOf("/api/admin/tables"), "admin");
  EXPECT_EQ(GroupOf("/api/admin"), "admin");
  EXPECT_EQ(GroupOf("/api/activity"), "admin");
  EXPECT_EQ(GroupOf("/api/activity/12"), "admin");
  EXPECT_EQ(GroupOf("/api/activityx"), "-");
  EXPECT_EQ(GroupOf("/mcp"), "admin");
  EXPECT_EQ(GroupOf("/mcpx"), "-");
  EXPECT_EQ(GroupOf("/api/auth/get-session"), "auth");
  EXPECT_EQ(GroupOf("/api/auth/sign-out"), "auth");
  EXPECT_EQ(GroupOf("/api/auth"), "auth");
  // A longer segment is not the group's segment.
  EXPECT_EQ(GroupOf("/api/auth/sign-inx"), "auth");
  EXPECT_EQ(GroupOf("/api/auth/administrators"), "auth");
  EXPECT_EQ(GroupOf("/api/administrators"), "-");
  EXPECT_EQ(GroupOf("/api/authx/sign-in"), "-");
  EXPECT_EQ(GroupOf("/api/health"), "-");
  EXPECT_EQ(GroupOf("/api/tables/x/records"), "-");
  EXPECT_EQ(GroupOf("/"), "-");
  EXPECT_EQ(GroupOf("/api/analytics/collect"), "analytics-collect");
  EXPECT_EQ(GroupOf("/api/analytics/overview"), "-");  // admins only, behind the session
}

TEST(RouteGroupsTest, LimitsAndWindows) {
  const auto sign_in = ClassifyRoute("/api/auth/sign-in/email", 60);
  ASSERT_TRUE(sign_in);
  EXPECT_EQ(sign_in->limit.max_requests, 20);
  EXPECT_EQ(sign_in->limit.window_ms, 60'000);
  EXPECT_EQ(ClassifyRoute("/api/auth/sign-up/email", 60)->limit.max_requests, 20);
  EXPECT_EQ(ClassifyRoute("/api/auth/forget-password", 60)->limit.max_requests, 10);
  EXPECT_EQ(ClassifyRoute("/api/auth/get-session", 60)->limit.max_requests, 100);
  EXPECT_EQ(ClassifyRoute("/api/auth/sign-in/email-otp", 60)->limit.max_requests, 10);
  // RATE_LIMIT_WINDOW_SECONDS scales every window but admin's.
  EXPECT_EQ(ClassifyRoute("/api/auth/get-session", 5)->limit.window_ms, 5000);
  const auto admin = ClassifyRoute("/api/admin/tables", 5);
  ASSERT_TRUE(admin);
  EXPECT_EQ(admin->limit.max_requests, 10);
  EXPECT_EQ(admin->limit.window_ms, 1000);
}

}  // namespace
}  // namespace cairn::ratelimit
