// Range and If-None-Match parsing of file downloads (D47, RFC 9110 §13–14).
#include <gtest/gtest.h>

#include "api/file_response.hpp"

namespace cairn::api {
namespace {

struct Expected {
  const char* header;
  std::uint64_t size;
  bool whole;  // nullopt: send the whole body
  bool unsatisfiable;
  std::uint64_t offset, length;
};

TEST(FileResponse, RangesFollowRfc9110) {
  const Expected cases[] = {
      {"bytes=0-9", 100, false, false, 0, 10},
      {"bytes=90-", 100, false, false, 90, 10},
      {"bytes=-10", 100, false, false, 90, 10},
      {"bytes=-500", 100, false, false, 0, 100},
      {"bytes=95-500", 100, false, false, 95, 5},
      {"bytes=99-99", 100, false, false, 99, 1},
      {" bytes = 1 - 2 ", 100, true, false, 0, 0},  // spaces around `=` are not the syntax
      {"bytes=100-", 100, false, true, 0, 0},
      {"bytes=-0", 100, false, true, 0, 0},
      {"bytes=0-", 0, false, true, 0, 0},
      {"bytes=5-1", 100, true, false, 0, 0},
      {"bytes=0-1,4-5", 100, true, false, 0, 0},
      {"items=0-1", 100, true, false, 0, 0},
      {"bytes=a-b", 100, true, false, 0, 0},
      {"bytes=-", 100, true, false, 0, 0},
      {"bytes=18446744073709551616-", 100, true, false, 0, 0},
  };
  for (const Expected& c : cases) {
    const auto got = ParseRange(c.header, c.size);
    if (c.whole) {
      EXPECT_FALSE(got.has_value()) << c.header;
      continue;
    }
    ASSERT_TRUE(got.has_value()) << c.header;
    EXPECT_EQ(got->unsatisfiable, c.unsatisfiable) << c.header;
    if (!c.unsatisfiable) {
      EXPECT_EQ(got->range.offset, c.offset) << c.header;
      EXPECT_EQ(got->range.length, c.length) << c.header;
    }
  }
}

TEST(FileResponse, IfNoneMatchComparesWeakly) {
  EXPECT_TRUE(IfNoneMatchHits("\"abc\"", "\"abc\""));
  EXPECT_TRUE(IfNoneMatchHits("W/\"abc\"", "\"abc\""));
  EXPECT_TRUE(IfNoneMatchHits("\"x\", \"abc\"", "\"abc\""));
  EXPECT_TRUE(IfNoneMatchHits(" * ", "\"abc\""));
  EXPECT_FALSE(IfNoneMatchHits("\"abcd\"", "\"abc\""));
  EXPECT_FALSE(IfNoneMatchHits("abc", "\"abc\""));
  EXPECT_FALSE(IfNoneMatchHits("", "\"abc\""));
}

}  // namespace
}  // namespace cairn::api
