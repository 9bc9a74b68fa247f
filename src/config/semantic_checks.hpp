// Rules that need more than one value at a time: uniqueness (tables, fields, views, buckets,
// roles), references (relationships, view and index fields, roles, buckets), defaults against
// their field, ICU lookups (currencies, time zones). Runs on any document, even one that failed
// the JSON Schema, so that every problem is reported at once; values of the wrong shape are
// skipped here because the schema already reported them.
#pragma once

#include <vector>

#include <boost/json/value.hpp>

#include "common/json_schema.hpp"

namespace cairn::config {

std::vector<json::SchemaIssue> CheckSemantics(const boost::json::value& document);

}  // namespace cairn::config
