// Line numbers for JSON text. Boost.JSON parses the text (and reports syntax errors); this walks
// the same, already valid, text once more only to note the line each key or array item starts on.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "config/config_issue.hpp"
#include "config/location_map.hpp"

namespace cairn::config {

// Records the line of every key path below `root_path`; duplicate keys become issues.
void MapJsonLines(std::string_view text, const std::string& root_path, const std::string& file,
                  LocationMap& locations, std::vector<ConfigIssue>& issues);

// 1-based line and column of a byte offset.
std::pair<int, int> LineColumn(std::string_view text, std::size_t offset);

}  // namespace cairn::config
