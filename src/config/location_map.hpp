// Where each key path of a config document was written (file and line).
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>

namespace cairn::config {

struct SourceLocation {
  std::string file;
  int line = 0;  // 1-based; 0 unknown
};

// Key path → where it was written.
class LocationMap {
 public:
  void Set(const std::string& path, SourceLocation location);
  // The location of `path`, or of its nearest ancestor that has one.
  SourceLocation Find(std::string_view path) const;

 private:
  std::unordered_map<std::string, SourceLocation> locations_;
};

// The key path without its last step: `a.b[2]` → `a.b`, `a["x y"]` → `a`, `a` → ``.
std::string_view ParentPath(std::string_view path);

}  // namespace cairn::config
