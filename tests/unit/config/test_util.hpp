// Shared helpers for the config tests.
#pragma once

#include <filesystem>
#include <string>

#include "config/loader.hpp"

namespace cairn::config::testing {

inline std::filesystem::path FixturePath(const std::string& relative) {
  return std::filesystem::path(CAIRN_SOURCE_DIR) / "tests/fixtures/configs" / relative;
}

inline std::string DescribeIssues(const LoadOutcome& outcome) {
  std::string text;
  for (const ConfigIssue& issue : outcome.issues) text += "  " + FormatIssue(issue) + "\n";
  return text.empty() ? "  (no issues)\n" : text;
}

inline LoadOutcome LoadYaml(const std::string& text) {
  return LoadConfigText(text, /*yaml=*/true, std::filesystem::temp_directory_path(), "test.yaml");
}

}  // namespace cairn::config::testing
