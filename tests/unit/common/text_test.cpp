#include "common/text.hpp"

#include <string>

#include <gtest/gtest.h>

namespace cairn::text {
namespace {

TEST(Text, CountsCodePointsNotBytes) {
  EXPECT_EQ(CodePoints(""), 0u);
  EXPECT_EQ(CodePoints("abc"), 3u);
  EXPECT_EQ(CodePoints("é"), 1u);
  EXPECT_EQ(CodePoints("東京🚀"), 3u);
  std::string accents;
  for (int i = 0; i < 200; ++i) accents += "é";
  EXPECT_EQ(accents.size(), 400u);
  EXPECT_EQ(CodePoints(accents), 200u);
}

TEST(Text, ValidUtf8) {
  for (const std::string valid : {"", "plain", "Zoë 東京 🚀", "\x7F", "\xF4\x8F\xBF\xBF"}) {
    EXPECT_TRUE(IsValidUtf8(valid)) << valid;
  }
  for (const std::string invalid : {
           "\x80",              // lone continuation byte
           "abc\xC3",           // truncated
           "\xC0\xAF",          // overlong '/'
           "\xE0\x80\xAF",      // overlong
           "\xED\xA0\x80",      // surrogate
           "\xF4\x90\x80\x80",  // above U+10FFFF
           "\xFF",
       }) {
    EXPECT_FALSE(IsValidUtf8(invalid));
  }
}

TEST(Text, FindsNul) {
  EXPECT_FALSE(ContainsNul("abc"));
  EXPECT_TRUE(ContainsNul(std::string_view("a\0b", 3)));
  EXPECT_TRUE(ContainsNul(std::string_view("\0", 1)));
}

}  // namespace
}  // namespace cairn::text
