// One problem found in a config file: where it is (key path, file, line) and what is wrong.
#pragma once

#include <string>

namespace cairn::config {

struct ConfigIssue {
  std::string path;     // key path, `tables[1].fields[3].options`; empty for the whole document
  std::string message;  // human-readable, names the rule that was broken
  std::string file;     // the file the offending value was written in (may be an included file)
  int line = 0;         // 1-based; 0 when unknown
};

// `app.yaml:14: tables[1].fields[3].options: must have at least 1 item`. Parts that are unknown
// (file, line, path) are left out.
std::string FormatIssue(const ConfigIssue& issue);

}  // namespace cairn::config
