// Loading a config file: read (YAML or JSON, `$ref` includes resolved), validate (JSON Schema for
// structure, then semantic checks across the document), and build the typed AppConfig.
// Every problem is reported, each with its key path and, where known, the file and line.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json/value.hpp>

#include "config/config_issue.hpp"
#include "config/location_map.hpp"
#include "config/model.hpp"

namespace cairn::config {

struct LoadOutcome {
  std::optional<AppConfig> config;  // set only when `issues` is empty
  std::vector<ConfigIssue> issues;
  // Where each key path was written, for notes about valid keys (app/not_served.hpp).
  LocationMap locations;

  bool ok() const { return config.has_value(); }
};

// Reads `file` (.yaml, .yml or .json). Includes resolve relative to the including file.
LoadOutcome LoadConfigFile(const std::filesystem::path& file);

// Parses `text` as YAML (`yaml` true) or JSON; includes resolve relative to `base_dir`.
// `display_name` is the file name shown in issues (empty: none).
LoadOutcome LoadConfigText(std::string_view text, bool yaml, const std::filesystem::path& base_dir,
                           std::string display_name = {});

// Validates an already parsed document (for example a schema draft sent over HTTP). `$ref`
// includes are not resolved here; issues carry key paths but no file or line.
LoadOutcome LoadConfigDocument(const boost::json::value& document);

// The JSON Schema (2020-12) of the config file, as printed by `cairn schema`.
const boost::json::value& ConfigJsonSchema();

}  // namespace cairn::config
