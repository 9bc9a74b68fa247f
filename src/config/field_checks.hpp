// Checks of one field against itself: min <= max, the default against the field (bounds, decimal
// places, options, email/URL/date formats, the json field's schema), currency codes and time zones
// known to ICU. Cross-field and cross-table rules are in semantic_checks.cpp.
#pragma once

#include <string>
#include <vector>

#include <boost/json/object.hpp>

#include "common/json_schema.hpp"
#include "config/model.hpp"

namespace cairn::config {

void CheckFieldValues(FieldType type, const boost::json::object& field, const std::string& path,
                      std::vector<json::SchemaIssue>& issues);

}  // namespace cairn::config
