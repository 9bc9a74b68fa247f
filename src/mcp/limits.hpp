// Limits of the MCP server (docs/mcp.md). Each answers with a clear error, never a 500.
#pragma once

#include <cstddef>

namespace cairn::mcp {

// The largest POST /mcp body (413 past it): the JSON body limit of every route (D61), since a
// tool call carries a route's body.
inline constexpr std::size_t kMaxMessageBytes = 10 * 1024 * 1024;
// Tools per tools/list page; the rest follow through `nextCursor`.
inline constexpr std::size_t kToolsPerPage = 100;
// The longest tool name: Claude and most clients take ^[a-zA-Z0-9_-]{1,64}$.
inline constexpr std::size_t kMaxToolNameLength = 64;
// The longest JSON-RPC string id echoed back (longer ones are an invalid request).
inline constexpr std::size_t kMaxRequestIdLength = 256;

}  // namespace cairn::mcp
