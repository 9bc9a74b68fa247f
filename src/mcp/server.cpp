#include "mcp/server.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>

#include <boost/json/parse.hpp>

#include "common/json.hpp"
#include "common/json_input.hpp"
#include "http/limits.hpp"
#include "http/router.hpp"
#include "mcp/json_rpc.hpp"
#include "mcp/limits.hpp"
#include "mcp/tool_runner.hpp"

namespace cairn::mcp {
namespace {

std::string Lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

// The media type of a Content-Type or Accept item, lowercase, without parameters or spaces.
std::string MediaType(std::string_view item) {
  item = item.substr(0, item.find(';'));
  while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
  while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
  return Lower(item);
}

// Whether Accept admits application/json (the client must list it with text/event-stream; this
// server always answers JSON).
bool AcceptsJson(std::string_view accept) {
  while (!accept.empty()) {
    const std::size_t comma = accept.find(',');
    const std::string type = MediaType(accept.substr(0, comma));
    if (type == "application/json" || type == "application/*" || type == "*/*") return true;
    accept = comma == std::string_view::npos ? std::string_view{} : accept.substr(comma + 1);
  }
  return false;
}

// An HTTP-level refusal with a JSON-RPC error body (no id: the message was not read).
http::Response Refuse(int status, int code, std::string message) {
  http::Response response;
  response.status = status;
  response.body = ErrorMessage(nullptr, {code, std::move(message)});
  return response;
}

http::Response Rpc(std::string body) {
  http::Response response;
  response.body = std::move(body);
  return response;
}

boost::json::object ToolJson(const Tool& tool) {
  const bool reads = tool.method == "GET";
  return {{"name", tool.name},
          {"description", tool.description},
          {"inputSchema", tool.input_schema},
          {"annotations",
           {{"readOnlyHint", reads},
            {"destructiveHint", tool.method == "DELETE"},
            {"idempotentHint", reads || tool.method == "PUT" || tool.method == "DELETE"},
            {"openWorldHint", false}}}};
}

// The CallToolResult of a route's answer: its body as text (the same JSON the REST route
// answers), the parsed object as structuredContent, isError for a 4xx or 5xx.
boost::json::object ToolResult(const http::Response& response) {
  std::string text = response.body;
  if (response.stream || response.upgrade) {
    text = "This route streams its answer; call it over HTTP instead";
  } else if (text.empty()) {
    text = "(no content: HTTP " + std::to_string(response.status) + ")";
  }
  boost::json::object result;
  const bool streamed = response.stream || response.upgrade;
  if (!streamed && MediaType(response.content_type) == "application/json") {
    boost::system::error_code ec;
    boost::json::value parsed = boost::json::parse(response.body, ec);
    if (!ec && parsed.is_object()) result["structuredContent"] = std::move(parsed);
  }
  result["content"] = boost::json::array{{{"type", "text"}, {"text", text}}};
  result["isError"] = streamed || response.status >= 400;
  return result;
}

std::optional<std::size_t> ParseCursor(const boost::json::value& cursor) {
  if (!cursor.is_string()) return std::nullopt;
  const std::string_view text = cursor.get_string();
  std::size_t offset = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), offset);
  if (ec != std::errc{} || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return offset;
}

}  // namespace

std::shared_ptr<const ToolCatalog> Server::Catalog(const http::Router& router) {
  std::lock_guard lock(catalog_mutex_);
  if (!catalog_ || catalog_->generation() != router.generation()) {
    catalog_ = std::make_shared<const ToolCatalog>(router, options_.name, options_.tables);
  }
  return catalog_;
}

http::Response Server::HandlePost(const http::Request& request) {
  if (!AcceptsJson(request.Header("Accept"))) {
    return Refuse(406, kInvalidRequest,
                  "Accept must list application/json (and text/event-stream)");
  }
  if (MediaType(request.Header("Content-Type")) != "application/json") {
    return Refuse(415, kInvalidRequest, "Content-Type must be application/json");
  }
  const std::string_view version = request.Header("MCP-Protocol-Version");
  if (!version.empty() && version != kProtocolVersion) {
    return Refuse(
        400, kInvalidRequest,
        "Unsupported MCP-Protocol-Version; this server speaks " + std::string(kProtocolVersion));
  }
  auto parsed = json::ParseInput(request.raw->body(), http::kMaxJsonDepth, "JSON-RPC message");
  if (!parsed.ok()) return Refuse(400, kParseError, "Parse error: " + parsed.error().message);
  json::InputDocument document = std::move(parsed).value();
  Classified classified = Classify(document.value);
  if (classified.error) {
    http::Response response = Refuse(400, classified.error->code, classified.error->message);
    response.body = ErrorMessage(classified.id, *classified.error);
    return response;
  }
  Message& message = *classified.message;
  if (message.kind != MessageKind::kRequest) {
    http::Response accepted;
    accepted.status = 202;
    accepted.content_type.clear();
    return accepted;
  }
  return Rpc(Answer(message, request, std::move(document.numbers)));
}

std::string Server::Answer(Message& message, const http::Request& request,
                           json::NumberTexts numbers) {
  const auto fail = [&](int code, std::string text) {
    return ErrorMessage(message.id, {code, std::move(text)});
  };
  if (message.method == "initialize") {
    const auto* requested = message.params.if_contains("protocolVersion");
    if (requested == nullptr || !requested->is_string()) {
      return fail(kInvalidParams, "initialize needs params.protocolVersion");
    }
    // Any other revision is answered with ours; the client decides whether it can speak it.
    boost::json::object result{
        {"protocolVersion", kProtocolVersion},
        {"capabilities", {{"tools", {{"listChanged", false}}}}},
        {"serverInfo", {{"name", options_.name}, {"version", options_.version}}},
        {"instructions",
         "Tools mirror this cairn app's REST routes and run with your session's permissions. "
         "Each answers with the route's JSON."}};
    return ResultMessage(message.id, std::move(result));
  }
  if (message.method == "ping") return ResultMessage(message.id, boost::json::object{});
  if (message.method == "tools/list") return ListTools(message, *request.router);
  if (message.method == "tools/call") return CallTool(message, request, std::move(numbers));
  return fail(kMethodNotFound, "Method not found: " + message.method);
}

std::string Server::ListTools(const Message& message, const http::Router& router) {
  const auto catalog = Catalog(router);
  const std::vector<Tool>& all = catalog->tools();
  std::size_t offset = 0;
  if (const auto* cursor = message.params.if_contains("cursor")) {
    auto parsed = ParseCursor(*cursor);
    if (!parsed || *parsed > all.size()) {
      return ErrorMessage(message.id, {kInvalidParams, "Invalid cursor"});
    }
    offset = *parsed;
  }
  const std::size_t end = std::min(all.size(), offset + kToolsPerPage);
  boost::json::array tools;
  for (std::size_t i = offset; i < end; ++i) tools.push_back(ToolJson(all[i]));
  boost::json::object result{{"tools", std::move(tools)}};
  if (end < all.size()) result["nextCursor"] = std::to_string(end);
  return ResultMessage(message.id, std::move(result));
}

std::string Server::CallTool(Message& message, const http::Request& request,
                             json::NumberTexts numbers) {
  const auto fail = [&](std::string text) {
    return ErrorMessage(message.id, {kInvalidParams, std::move(text)});
  };
  const auto* name = message.params.if_contains("name");
  if (name == nullptr || !name->is_string()) return fail("tools/call needs params.name");
  const auto catalog = Catalog(*request.router);
  const Tool* tool = catalog->Find(name->get_string());
  if (tool == nullptr) {
    const std::string_view given = name->get_string();
    return fail(given.size() <= kMaxToolNameLength ? "Unknown tool: " + std::string(given)
                                                   : std::string("Unknown tool"));
  }
  boost::json::object arguments;
  if (auto* given = message.params.if_contains("arguments")) {
    if (!given->is_object() && !given->is_null()) return fail("params.arguments must be an object");
    if (given->is_object()) arguments = std::move(given->get_object());
  }
  auto outcome = RunTool(request, *tool, std::move(arguments), std::move(numbers));
  if (auto* error = std::get_if<RpcError>(&outcome)) {
    return ErrorMessage(message.id, *error);
  }
  return ResultMessage(message.id, ToolResult(std::get<http::Response>(outcome)));
}

}  // namespace cairn::mcp
