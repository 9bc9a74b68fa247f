#include "common/gzip.hpp"

#include <string>

#include <gtest/gtest.h>

#include "support/gunzip.hpp"

namespace cairn::gzip {
namespace {

TEST(Gzip, CompressesToAGzipMemberThatInflatesBack) {
  std::string text;
  for (int i = 0; i < 2000; ++i)
    text += R"({"type":"object","properties":{"n":)" + std::to_string(i) + "}}";
  const std::string compressed = Compress(text);
  ASSERT_GE(compressed.size(), 2u);
  EXPECT_EQ(static_cast<unsigned char>(compressed[0]), 0x1f);  // the gzip magic
  EXPECT_EQ(static_cast<unsigned char>(compressed[1]), 0x8b);
  EXPECT_LT(compressed.size(), text.size() / 5);
  EXPECT_EQ(test::Gunzip(compressed), text);
  EXPECT_EQ(test::Gunzip(Compress("")), "");
}

TEST(Gzip, AcceptEncodingWithGzipUnlessItsQualityIsZero) {
  EXPECT_TRUE(Accepted("gzip"));
  EXPECT_TRUE(Accepted("gzip, deflate, br"));
  EXPECT_TRUE(Accepted("br;q=1.0, GZIP;q=0.5"));
  EXPECT_TRUE(Accepted("x-gzip"));
  EXPECT_TRUE(Accepted("deflate , gzip ; q=0.001"));
  EXPECT_FALSE(Accepted(""));
  EXPECT_FALSE(Accepted("identity"));
  EXPECT_FALSE(Accepted("deflate, br"));
  EXPECT_FALSE(Accepted("gzip;q=0"));
  EXPECT_FALSE(Accepted("gzip; q=0.000"));
  EXPECT_FALSE(Accepted("gzipped"));
  EXPECT_FALSE(Accepted("*"));  // a wildcard is allowed to mean identity; keep it identity
}

}  // namespace
}  // namespace cairn::gzip
