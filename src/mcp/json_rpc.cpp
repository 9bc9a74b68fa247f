#include "mcp/json_rpc.hpp"

#include "common/json.hpp"
#include "mcp/limits.hpp"

namespace cairn::mcp {
namespace {

bool IsUsableId(const boost::json::value& id) {
  if (id.is_int64() || id.is_uint64()) return true;
  return id.is_string() && id.get_string().size() <= kMaxRequestIdLength;
}

Classified Invalid(std::string message, boost::json::value id = nullptr) {
  Classified out;
  out.error = RpcError{kInvalidRequest, std::move(message)};
  out.id = std::move(id);
  return out;
}

}  // namespace

Classified Classify(boost::json::value& document) {
  if (document.is_array()) {
    return Invalid("Batches are not supported (MCP 2025-06-18 sends one message per request)");
  }
  if (!document.is_object()) return Invalid("A JSON-RPC message must be an object");
  boost::json::object& object = document.get_object();
  boost::json::value id = nullptr;
  if (const auto* found = object.if_contains("id")) {
    if (!IsUsableId(*found)) {
      return Invalid("id must be a string (at most 256 characters) or an integer");
    }
    id = *found;
  }
  const auto* version = object.if_contains("jsonrpc");
  if (version == nullptr || !version->is_string() || version->get_string() != "2.0") {
    return Invalid("jsonrpc must be \"2.0\"", id);
  }
  const auto* method = object.if_contains("method");
  if (method == nullptr) {
    const bool is_response = object.contains("result") || object.contains("error");
    if (!is_response || id.is_null()) return Invalid("A request needs a method", id);
    Classified out;
    out.message = Message{MessageKind::kResponse, std::move(id), {}, {}};
    return out;
  }
  if (!method->is_string()) return Invalid("method must be a string", id);
  Message message;
  message.kind = id.is_null() ? MessageKind::kNotification : MessageKind::kRequest;
  message.method = std::string(method->get_string());
  if (auto* params = object.if_contains("params")) {
    if (!params->is_object()) return Invalid("params must be an object", id);
    message.params = std::move(params->get_object());
  }
  message.id = std::move(id);
  Classified out;
  out.message = std::move(message);
  return out;
}

std::string ResultMessage(const boost::json::value& id, boost::json::value result) {
  boost::json::object message{{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}};
  return json::Serialize(message);
}

std::string ErrorMessage(const boost::json::value& id, const RpcError& error) {
  boost::json::object message{
      {"jsonrpc", "2.0"},
      {"id", id},
      {"error", boost::json::object{{"code", error.code}, {"message", error.message}}}};
  return json::Serialize(message);
}

}  // namespace cairn::mcp
