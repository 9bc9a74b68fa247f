// Runs a tool in-process: builds the request its route would get over HTTP (path, query, JSON
// body, the caller of the /mcp request), routes it through the same route table, and runs what
// the dispatcher runs after the middleware: the route's precheck, its body schema, its handler.
// So a tool can never see or write more than its caller could over REST.
#pragma once

#include <optional>
#include <variant>

#include <boost/json/object.hpp>

#include "common/json_input.hpp"
#include "http/request.hpp"
#include "http/response.hpp"
#include "mcp/json_rpc.hpp"
#include "mcp/tool_catalog.hpp"

namespace cairn::mcp {

// The route's answer, or the JSON-RPC error for arguments that name no call of the route
// (-32602: unknown or missing arguments, a path parameter that is not a non-empty string).
// `numbers` holds the written text of the numbers in `arguments` (exact decimals).
std::variant<http::Response, RpcError> RunTool(const http::Request& outer, const Tool& tool,
                                               boost::json::object arguments,
                                               json::NumberTexts numbers);

}  // namespace cairn::mcp
