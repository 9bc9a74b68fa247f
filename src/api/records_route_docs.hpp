// What the OpenAPI documents say about each records route: operation id, query parameters with
// their limits, the body and response shapes (the per-table record components), examples.
// Kept apart from records_api.cpp so the handlers stay short.
#pragma once

#include <string_view>

#include "http/route.hpp"

namespace cairn::api {

// `suffix` is the pattern after /api/tables/{tableId}.
void DescribeRecordRoute(http::RouteSpec& spec, std::string_view suffix);

}  // namespace cairn::api
