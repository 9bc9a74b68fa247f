// A config document as YAML (GET /api/admin/schema/export), loadable again by `cairn validate`.
#pragma once

#include <string>

#include <boost/json/value.hpp>

namespace cairn::schema_edit {

std::string ToYaml(const boost::json::value& document);

}  // namespace cairn::schema_edit
