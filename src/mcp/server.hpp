// The Model Context Protocol server (D55; revision 2025-06-18, streamable HTTP transport): one
// JSON-RPC message per POST, answered with application/json (this server opens no SSE streams
// and keeps no MCP sessions: every request carries the caller's own credentials, and the tools
// are derived from the route table that request was routed by, so any node of a cluster can
// answer and a schema publish shows in the next tools/list). Who may call is decided by the
// caller of HandlePost (api/mcp_api.cpp: admins, from trusted origins).
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "common/json_input.hpp"
#include "http/request.hpp"
#include "http/response.hpp"
#include "mcp/json_rpc.hpp"
#include "mcp/tool_catalog.hpp"

namespace cairn::mcp {

// The protocol revision this server speaks.
inline constexpr std::string_view kProtocolVersion = "2025-06-18";

struct ServerOptions {
  std::string name;     // serverInfo.name and the tool-name prefix: the app's name
  std::string version;  // serverInfo.version
  // The tables of the configuration the route table was built from.
  std::vector<RecordTable> tables;
};

class Server {
 public:
  explicit Server(ServerOptions options) : options_(std::move(options)) {}

  // POST /mcp for an authorized caller: transport checks (Accept, Content-Type,
  // MCP-Protocol-Version), then the message: 202 for notifications and responses, else 200
  // with the JSON-RPC response; 400 for a body that is not one valid message.
  http::Response HandlePost(const http::Request& request);

 private:
  // The JSON-RPC response to a request; `numbers` holds the written text of its numbers.
  std::string Answer(Message& message, const http::Request& request, json::NumberTexts numbers);
  std::string ListTools(const Message& message, const http::Router& router);
  std::string CallTool(Message& message, const http::Request& request, json::NumberTexts numbers);
  std::shared_ptr<const ToolCatalog> Catalog(const http::Router& router);

  ServerOptions options_;
  std::mutex catalog_mutex_;
  std::shared_ptr<const ToolCatalog> catalog_;  // of the last route table asked about
};

}  // namespace cairn::mcp
