// File paths inside a bucket (D44): what may name a file, and every way to try to escape.
#include <gtest/gtest.h>

#include "storage/file_path.hpp"
#include "storage/limits.hpp"

namespace cairn::storage {
namespace {

TEST(FilePath, AcceptsRelativePathsOfValidSegments) {
  for (const char* path : {"a.txt", "invoices/2024/a.pdf", "ünïcödé/名前.png", "...", ".hidden",
                           "a..b", "a%20b", "a%2", "%2e%2e%2e", "100%"}) {
    EXPECT_FALSE(PathProblem(path).has_value()) << path << ": " << *PathProblem(path);
  }
  EXPECT_FALSE(PathProblem(std::string(kMaxPathBytes, 'a')).has_value());
}

TEST(FilePath, RefusesEveryEscape) {
  const std::string cases[] = {"",
                               "..",
                               ".",
                               "../a",
                               "a/..",
                               "a/../../b",
                               "a/./b",
                               "%2e%2e/a",
                               "%2E%2E/a",
                               ".%2e/a",
                               "a/%2e",
                               "/etc/passwd",
                               "a//b",
                               "a/",
                               "a\\b",
                               "..\\a",
                               "a%2fb",
                               "a%2F..%2Fb",
                               "a%5cb",
                               std::string("a\0b", 3),
                               "a\x01"
                               "b",
                               "a\x7f",
                               "a\r\nb",
                               "\xc0\xae\xc0\xae/a",
                               "\xe0\x80\xae",
                               "\xff",
                               "\xed\xa0\x80",
                               std::string(kMaxPathBytes + 1, 'a')};
  for (const std::string& path : cases) {
    EXPECT_TRUE(PathProblem(path).has_value()) << "accepted: " << path;
    const Status checked = CheckPath(path, "files[2].path");
    ASSERT_FALSE(checked.ok());
    EXPECT_EQ(checked.error().code, ErrorCode::kValidation);
    EXPECT_EQ(checked.error().errors.at(0).field, "files[2].path");
  }
}

TEST(FilePath, PrefixesMayBeEmptyOrEndWithASlash) {
  EXPECT_TRUE(CheckPrefix("").ok());
  EXPECT_TRUE(CheckPrefix("docs/").ok());
  EXPECT_TRUE(CheckPrefix("docs/2024").ok());
  EXPECT_FALSE(CheckPrefix("../").ok());
  EXPECT_FALSE(CheckPrefix("/docs").ok());
  EXPECT_FALSE(CheckPrefix("a//").ok());
  EXPECT_FALSE(CheckPrefix(std::string("a\0", 2)).ok());
}

}  // namespace
}  // namespace cairn::storage
