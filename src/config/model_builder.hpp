// Builds the typed AppConfig from a document that passed validation: assigns missing table and
// field ids, derives slugs, SQL names and decimal scales, adds the `default` bucket.
#pragma once

#include <boost/json/value.hpp>

#include "config/model.hpp"

namespace cairn::config {

AppConfig BuildAppConfig(const boost::json::value& document);

}  // namespace cairn::config
