#include "config/location_map.hpp"

#include <algorithm>

namespace cairn::config {

void LocationMap::Set(const std::string& path, SourceLocation location) {
  locations_[path] = std::move(location);
}

SourceLocation LocationMap::Find(std::string_view path) const {
  while (true) {
    if (auto it = locations_.find(std::string(path)); it != locations_.end()) return it->second;
    if (path.empty()) return {};
    path = ParentPath(path);
  }
}

std::string_view ParentPath(std::string_view path) {
  std::size_t last = 0;
  std::size_t i = 0;
  while (i < path.size()) {
    const char c = path[i];
    if (c == '[') {
      last = i;
      ++i;
      if (i < path.size() && path[i] == '"') {
        ++i;
        while (i < path.size() && path[i] != '"') i += (path[i] == '\\') ? 2 : 1;
        ++i;
      }
      while (i < path.size() && path[i] != ']') ++i;
      ++i;
    } else if (c == '.') {
      last = i;
      ++i;
    } else {
      ++i;
    }
  }
  return path.substr(0, std::min(last, path.size()));
}

}  // namespace cairn::config
