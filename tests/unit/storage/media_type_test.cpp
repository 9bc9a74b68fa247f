// Media types from the bytes (libmagic) and the rules built on them (D47).
#include <gtest/gtest.h>

#include <vector>

#include "storage/media_type.hpp"

namespace cairn::storage {
namespace {

TEST(MediaType, DetectedFromTheBytes) {
  const std::string png(
      "\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\1\0\0\0\1\x08\x06\0\0\0\x1f\x15\xc4\x89", 33);
  EXPECT_EQ(DetectMediaType(png), "image/png");
  EXPECT_EQ(DetectMediaType("%PDF-1.4\n%%EOF\n"), "application/pdf");
  EXPECT_EQ(DetectMediaType("plain words\n"), "text/plain");
  EXPECT_EQ(DetectMediaType("<!DOCTYPE html><html><body>x</body></html>"), "text/html");
  EXPECT_EQ(DetectMediaType(""), "application/octet-stream");
  EXPECT_EQ(DetectMediaType(std::string("\x01\x02\x03\xfe\xff\x00\x10", 7)),
            "application/octet-stream");
}

TEST(MediaType, DeclaredTypesFitWhatTheBytesCannotTellApart) {
  EXPECT_TRUE(DeclaredTypeFits("image/png", "image/png"));
  EXPECT_TRUE(DeclaredTypeFits("IMAGE/PNG; x=y", "image/png"));
  EXPECT_TRUE(DeclaredTypeFits("text/markdown", "text/plain"));
  EXPECT_TRUE(DeclaredTypeFits("application/json", "text/plain"));
  EXPECT_TRUE(DeclaredTypeFits("application/x-custom", "application/octet-stream"));
  EXPECT_FALSE(DeclaredTypeFits("image/png", "text/plain"));
  EXPECT_FALSE(DeclaredTypeFits("image/png", "application/octet-stream"));
  EXPECT_FALSE(DeclaredTypeFits("application/pdf", "image/png"));
  EXPECT_FALSE(DeclaredTypeFits("text/plain", "application/octet-stream"));
}

TEST(MediaType, PatternsAndActiveContent) {
  const std::vector<std::string> images = {"image/*"};
  const std::vector<std::string> exact = {"application/pdf", "text/plain"};
  EXPECT_TRUE(MatchesAnyPattern("image/png", images));
  EXPECT_FALSE(MatchesAnyPattern("application/pdf", images));
  EXPECT_TRUE(MatchesAnyPattern("text/plain", exact));
  EXPECT_FALSE(MatchesAnyPattern("text/html", exact));
  EXPECT_TRUE(MatchesAnyPattern("anything/else", {}));
  EXPECT_TRUE(MatchesAnyPattern("anything/else", std::vector<std::string>{"*/*"}));
  for (const char* type : {"text/html", "image/svg+xml", "application/xml", "text/xml",
                           "application/javascript", "text/javascript", "application/xhtml+xml"}) {
    EXPECT_TRUE(IsActiveContent(type)) << type;
  }
  for (const char* type : {"image/png", "application/pdf", "text/plain", "application/json"}) {
    EXPECT_FALSE(IsActiveContent(type)) << type;
  }
}

}  // namespace
}  // namespace cairn::storage
