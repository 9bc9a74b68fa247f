// The config file's JSON Schema, as data (printed by `cairn schema`) and compiled once.
#pragma once

#include <boost/json/value.hpp>

#include "common/json_schema.hpp"

namespace cairn::config {

const boost::json::value& ConfigJsonSchema();
const json::JsonSchema& CompiledConfigSchema();

}  // namespace cairn::config
