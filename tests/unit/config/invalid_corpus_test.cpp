// Every file in tests/fixtures/configs/invalid/ has exactly one defect, described in its header:
//   # expect: <key path>          (or `(root)` for the whole document)
//   # line: <N>                   optional: the line the issue must carry
//   # message: <text>             optional: a fragment the message must contain
//   # file: <path>                optional: the issue is in this (included) file
//   # issues: <N>                 optional: the number of issues (default 1)
// JSON files cannot carry comments; their header lives in `<file>.expect` without the `# `.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <optional>
#include <string>

#include "config/loader.hpp"
#include "test_util.hpp"

namespace cairn::config {
namespace {

using testing::DescribeIssues;
using testing::FixturePath;

struct Expectation {
  std::string path;
  std::optional<int> line;
  std::string message;
  std::string file;
  std::size_t issues = 1;
};

Expectation ReadExpectation(const std::filesystem::path& config) {
  const bool json = config.extension() == ".json";
  std::ifstream in(json ? std::filesystem::path(config.string() + ".expect") : config);
  Expectation expectation;
  bool found = false;
  std::string line;
  while (std::getline(in, line)) {
    if (!json) {
      if (!line.starts_with("# ")) break;
      line = line.substr(2);
    }
    const auto colon = line.find(": ");
    if (colon == std::string::npos) continue;
    const std::string key = line.substr(0, colon);
    const std::string text = line.substr(colon + 2);
    if (key == "expect") {
      expectation.path = text == "(root)" ? "" : text;
      found = true;
    } else if (key == "line") {
      expectation.line = std::stoi(text);
    } else if (key == "message") {
      expectation.message = text;
    } else if (key == "file") {
      expectation.file = text;
    } else if (key == "issues") {
      expectation.issues = static_cast<std::size_t>(std::stoul(text));
    }
  }
  EXPECT_TRUE(found) << config << " has no `expect:` header";
  return expectation;
}

std::vector<std::filesystem::path> InvalidConfigs() {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(FixturePath("invalid"))) {
    const std::string ext = entry.path().extension().string();
    if (entry.is_regular_file() && (ext == ".yaml" || ext == ".yml" || ext == ".json")) {
      files.push_back(entry.path());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

class InvalidConfigTest : public ::testing::TestWithParam<std::filesystem::path> {};

TEST_P(InvalidConfigTest, ReportsTheExpectedIssue) {
  const std::filesystem::path& file = GetParam();
  const Expectation expected = ReadExpectation(file);
  const LoadOutcome outcome = LoadConfigFile(file);
  ASSERT_FALSE(outcome.ok()) << file << " loaded although it is invalid";
  EXPECT_EQ(outcome.issues.size(), expected.issues) << DescribeIssues(outcome);
  const auto match =
      std::find_if(outcome.issues.begin(), outcome.issues.end(),
                   [&](const ConfigIssue& issue) { return issue.path == expected.path; });
  ASSERT_NE(match, outcome.issues.end()) << "no issue at `" << expected.path << "`; got:\n"
                                         << DescribeIssues(outcome);
  if (expected.line) {
    EXPECT_EQ(match->line, *expected.line) << FormatIssue(*match);
  }
  if (!expected.message.empty()) {
    EXPECT_THAT(match->message, ::testing::HasSubstr(expected.message)) << FormatIssue(*match);
  }
  if (expected.file.empty()) {
    EXPECT_EQ(match->file, file.string());
  } else {
    EXPECT_TRUE(match->file.ends_with(expected.file)) << FormatIssue(*match);
  }
}

std::string TestName(const ::testing::TestParamInfo<std::filesystem::path>& info) {
  std::string name = info.param.filename().string();
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(Corpus, InvalidConfigTest, ::testing::ValuesIn(InvalidConfigs()),
                         TestName);

TEST(InvalidCorpusTest, HasAtLeastSeventyConfigs) {
  const auto files = InvalidConfigs();
  EXPECT_GE(files.size(), 70u);
  const auto json_files = std::count_if(files.begin(), files.end(),
                                        [](const auto& f) { return f.extension() == ".json"; });
  EXPECT_GE(json_files, 3);
}

}  // namespace
}  // namespace cairn::config
