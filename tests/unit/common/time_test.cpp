#include "common/time.hpp"

#include <gtest/gtest.h>

namespace cairn::time {
namespace {

TEST(TimeTest, FormatsIsoWithMilliseconds) {
  EXPECT_EQ(FormatIso(0), "1970-01-01T00:00:00.000Z");
  EXPECT_EQ(FormatIso(1'700'000'000'123), "2023-11-14T22:13:20.123Z");
  EXPECT_EQ(FormatIso(-1), "1969-12-31T23:59:59.999Z");
  EXPECT_EQ(FormatIso(951'782'400'007), "2000-02-29T00:00:00.007Z");
  EXPECT_EQ(FormatIso(253'402'300'799'999), "9999-12-31T23:59:59.999Z");
  EXPECT_EQ(FormatIso(253'402'300'800'000), "10000-01-01T00:00:00.000Z");  // past the fast path
}

TEST(TimeTest, ParsesOffsetsAndPostgresText) {
  EXPECT_EQ(ParseIso("2023-11-14T22:13:20.123Z"), 1'700'000'000'123);
  EXPECT_EQ(ParseIso("2023-11-14T23:13:20.123+01:00"), 1'700'000'000'123);
  EXPECT_EQ(ParseIso("2023-11-14 22:13:20.123456+00"), 1'700'000'000'123);
  EXPECT_EQ(ParseIso("2023-11-14T22:13Z"), 1'700'000'000'123 - 20'123);
}

TEST(TimeTest, RejectsMalformed) {
  for (const char* bad :
       {"", "2023-11-14", "2023-13-01T00:00:00Z", "2023-02-30T00:00:00Z", "2023-11-14T25:00:00Z",
        "2023-11-14T22:13:20", "2023-11-14T22:13:20Zjunk", "2023-11-14T22:13:20.Z"}) {
    EXPECT_FALSE(ParseIso(bad).has_value()) << bad;
  }
}

}  // namespace
}  // namespace cairn::time
