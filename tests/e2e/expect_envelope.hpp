// The error envelope (D60) as the e2e suites check it.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "support/http_client.hpp"

namespace cairn::test {

inline void ExpectEnvelope(const HttpResult& result, int status, const std::string& code) {
  EXPECT_EQ(result.status, status) << result.body;
  auto body = result.Json();
  ASSERT_TRUE(body.is_object()) << result.body;
  EXPECT_EQ(body.at("success"), false);
  EXPECT_EQ(body.at("code"), boost::json::value(code));
  EXPECT_TRUE(body.at("message").is_string());
  EXPECT_FALSE(result.Header("X-Request-Id").empty());
}

}  // namespace cairn::test
