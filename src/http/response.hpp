// A response to write. Bodies are serialized once, straight into `body`.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <boost/json/value.hpp>

#include "common/error.hpp"

namespace cairn::http {

class BodySource;      // http/body_stream.hpp
class UpgradeHandler;  // http/upgrade.hpp (the server layer: it takes over the socket)

struct Response {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
  // A streamed body instead of `body`, read in chunks on the worker pool; sent with
  // Content-Length when `stream_length` is known, chunked otherwise.
  std::shared_ptr<BodySource> stream;
  std::optional<std::uint64_t> stream_length;
  // Set by a route that switches protocols (WebSocket): instead of writing this response, the
  // server hands the connection to the handler.
  std::shared_ptr<UpgradeHandler> upgrade;

  static Response Json(int status, const boost::json::value& value);
  // A body already serialized as JSON.
  static Response RawJson(int status, std::string body);
  static Response NoContent();
  // The error envelope (D60): {success:false, message, code, error?, errors?}.
  static Response FromError(const Error& error);

  // Replaces a header of that name.
  void SetHeader(std::string name, std::string value);
  // Adds one more header of that name (Set-Cookie).
  void AddHeader(std::string name, std::string value);
};

}  // namespace cairn::http
