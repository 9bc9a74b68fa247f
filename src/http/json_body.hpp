// The JSON body of a route that declares a body schema: Content-Type, parse (common/json_input:
// depth limit, NUL refused, number texts kept for exact decimals) and schema validation.
#pragma once

#include <optional>

#include "common/error.hpp"
#include "http/request.hpp"
#include "http/router.hpp"

namespace cairn::http {

// Sets request.json and request.json_numbers, or returns the 400 to answer.
std::optional<Error> ParseJsonBody(const BeastRequest& raw, const CompiledRoute& route,
                                   Request& request);

// The second half of ParseJsonBody for a body parsed elsewhere (an in-process call of the route,
// src/mcp): validates `document` against the route's schema, then sets request.json and
// request.json_numbers, or returns the 400 to answer.
std::optional<Error> AcceptJsonBody(const CompiledRoute& route, json::InputDocument document,
                                    Request& request);

}  // namespace cairn::http
