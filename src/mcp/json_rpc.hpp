// JSON-RPC 2.0 as MCP uses it (revision 2025-06-18): one message per HTTP body (batches were
// removed in this revision), ids are strings or integers, params are an object.
#pragma once

#include <optional>
#include <string>

#include <boost/json/value.hpp>

namespace cairn::mcp {

inline constexpr int kParseError = -32700;
inline constexpr int kInvalidRequest = -32600;
inline constexpr int kMethodNotFound = -32601;
inline constexpr int kInvalidParams = -32602;
inline constexpr int kInternalError = -32603;

struct RpcError {
  int code = kInternalError;
  std::string message;
};

enum class MessageKind {
  kRequest,       // method and id: answered with a result or an error
  kNotification,  // method, no id: 202, no body
  kResponse,      // result or error from the client: 202 (this server sends no requests)
};

struct Message {
  MessageKind kind = MessageKind::kRequest;
  boost::json::value id;  // string or integer; null for notifications and responses
  std::string method;
  boost::json::object params;  // {} when absent
};

struct Classified {
  std::optional<Message> message;  // set when `error` is not
  std::optional<RpcError> error;
  boost::json::value id;  // the id of an invalid request when it had a usable one, else null
};

// What `document` (one parsed JSON value) is, or why it is not a valid MCP message.
Classified Classify(boost::json::value& document);

std::string ResultMessage(const boost::json::value& id, boost::json::value result);
std::string ErrorMessage(const boost::json::value& id, const RpcError& error);

}  // namespace cairn::mcp
