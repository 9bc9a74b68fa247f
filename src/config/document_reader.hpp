// Reads config text (YAML or JSON) into one JSON document, resolving `$ref` includes (D4), and
// remembers where every key path was written so that issues can name a file and line.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json/value.hpp>

#include "config/config_issue.hpp"
#include "config/location_map.hpp"

namespace cairn::config {

struct ReadResult {
  boost::json::value document;
  LocationMap locations;
  std::vector<ConfigIssue> issues;
  bool fatal = false;  // syntax errors or broken includes: the document is not worth validating
  bool yaml = false;   // the main file is YAML
};

ReadResult ReadConfigFile(const std::filesystem::path& file);
ReadResult ReadConfigText(std::string_view text, bool yaml, const std::filesystem::path& base_dir,
                          std::string display_name);

}  // namespace cairn::config
