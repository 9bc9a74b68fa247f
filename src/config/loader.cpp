#include "config/loader.hpp"

#include <algorithm>
#include <climits>
#include <set>

#include "config/config_schema.hpp"
#include "config/document_reader.hpp"
#include "config/model_builder.hpp"
#include "config/semantic_checks.hpp"

namespace cairn::config {
namespace {

// A YAML scalar like 1.0 or true is not a string; say how to make it one.
void AddYamlHint(ConfigIssue& issue) {
  static constexpr std::string_view kPrefix = "expected a string, got ";
  if (!issue.message.starts_with(kPrefix)) return;
  const std::string_view got = std::string_view(issue.message).substr(kPrefix.size());
  if (got == "a number" || got == "an integer" || got == "a boolean" || got == "null") {
    issue.message += " (quote the value in YAML to make it a string)";
  }
}

// Files in order of first appearance, then lines; issues without a line keep their place last.
void SortByPosition(std::vector<ConfigIssue>& issues) {
  std::vector<std::string> files;
  for (const ConfigIssue& issue : issues) {
    if (std::find(files.begin(), files.end(), issue.file) == files.end()) {
      files.push_back(issue.file);
    }
  }
  auto rank = [&](const ConfigIssue& issue) {
    const auto file = std::find(files.begin(), files.end(), issue.file) - files.begin();
    return std::pair<long, int>(file, issue.line > 0 ? issue.line : INT_MAX);
  };
  std::stable_sort(issues.begin(), issues.end(),
                   [&](const ConfigIssue& a, const ConfigIssue& b) { return rank(a) < rank(b); });
}

LoadOutcome Validate(ReadResult read) {
  LoadOutcome outcome;
  outcome.issues = std::move(read.issues);
  if (read.fatal) return outcome;

  std::vector<json::SchemaIssue> found;
  CompiledConfigSchema().Validate(read.document, found);
  // Semantic checks skip values of the wrong shape, but a value can have the right type and
  // still break a schema rule (a pattern, a length); such a value has been reported already.
  std::set<std::string, std::less<>> flagged;
  for (const auto& issue : found) flagged.insert(issue.path);
  auto already_flagged = [&](std::string_view path) {
    while (true) {
      if (flagged.contains(path)) return true;
      if (path.empty()) return false;
      path = ParentPath(path);
    }
  };
  for (auto& issue : CheckSemantics(read.document)) {
    if (!already_flagged(issue.path)) found.push_back(std::move(issue));
  }

  std::set<std::string, std::less<>> reported;
  for (const ConfigIssue& issue : outcome.issues) reported.insert(issue.path);
  for (auto& issue : found) {
    // One issue per value: an empty name is not also reported as not matching its pattern.
    if (!reported.insert(issue.path).second) continue;
    SourceLocation where = read.locations.Find(issue.path);
    ConfigIssue out{std::move(issue.path), std::move(issue.message), std::move(where.file),
                    where.line};
    if (read.yaml) AddYamlHint(out);
    outcome.issues.push_back(std::move(out));
  }
  SortByPosition(outcome.issues);
  if (outcome.issues.empty()) outcome.config = BuildAppConfig(read.document);
  outcome.locations = std::move(read.locations);
  return outcome;
}

}  // namespace

LoadOutcome LoadConfigFile(const std::filesystem::path& file) {
  return Validate(ReadConfigFile(file));
}

LoadOutcome LoadConfigText(std::string_view text, bool yaml, const std::filesystem::path& base_dir,
                           std::string display_name) {
  return Validate(ReadConfigText(text, yaml, base_dir, std::move(display_name)));
}

LoadOutcome LoadConfigDocument(const boost::json::value& document) {
  ReadResult read;
  read.document = document;
  return Validate(std::move(read));
}

std::string FormatIssue(const ConfigIssue& issue) {
  std::string out;
  if (!issue.file.empty()) {
    out += issue.file;
    if (issue.line > 0) out += ":" + std::to_string(issue.line);
    out += ": ";
  } else if (issue.line > 0) {
    out += "line " + std::to_string(issue.line) + ": ";
  }
  if (!issue.path.empty()) out += issue.path + ": ";
  out += issue.message;
  return out;
}

}  // namespace cairn::config
