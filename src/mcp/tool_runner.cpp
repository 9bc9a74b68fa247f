#include "mcp/tool_runner.hpp"

#include <algorithm>
#include <exception>

#include <boost/beast/http/verb.hpp>

#include "common/json.hpp"
#include "common/log.hpp"
#include "common/text.hpp"
#include "http/json_body.hpp"
#include "http/router.hpp"

namespace cairn::mcp {
namespace {

RpcError InvalidArgument(std::string message) {
  return {kInvalidParams, std::move(message)};
}

bool Contains(const std::vector<std::string>& names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// A query argument as the text a query string carries: strings as they are, JSON values
// (a filter object) as their JSON.
std::optional<std::string> QueryText(const boost::json::value& value) {
  if (value.is_null()) return std::nullopt;
  if (value.is_string()) return std::string(value.get_string());
  return json::Serialize(value);
}

// The value of path parameter `name`: fixed by the tool (a record tool's table), or its argument.
std::variant<std::string, RpcError> PathValue(const Tool& tool,
                                              const boost::json::object& arguments,
                                              const std::string& name) {
  for (const auto& [fixed, value] : tool.fixed_path) {
    if (fixed == name) return value;
  }
  const auto* given = arguments.if_contains(name);
  std::string value;
  if (given != nullptr && given->is_int64()) {
    value = std::to_string(given->get_int64());
  } else if (given != nullptr && given->is_string() && !given->get_string().empty()) {
    value = std::string(given->get_string());
  } else {
    return InvalidArgument("Argument `" + name + "` must be a non-empty string");
  }
  if (text::ContainsNul(value)) {
    return InvalidArgument("Argument `" + name + "` must not contain NUL characters");
  }
  return value;
}

// The request the route would get over HTTP: the /mcp request's headers (the same credentials,
// origin and client) with the tool's method, target and body.
struct InnerCall {
  http::BeastRequest raw;
  std::vector<std::string> segments;  // decoded, for the router
  std::string path;
  http::Params query;
};

std::variant<InnerCall, RpcError> BuildCall(const http::Request& outer, const Tool& tool,
                                            const boost::json::object& arguments) {
  for (const auto& [key, value] : arguments) {
    const bool known = Contains(tool.path_arguments, key) || Contains(tool.query_arguments, key) ||
                       (tool.has_body && key == "body");
    if (!known) return InvalidArgument("Unknown argument `" + std::string(key) + "`");
  }
  InnerCall call;
  std::string target;
  std::string_view pattern = tool.pattern;
  while (!pattern.empty()) {
    pattern.remove_prefix(1);  // '/'
    const std::size_t end = pattern.find('/');
    const std::string_view segment = pattern.substr(0, end);
    pattern = end == std::string_view::npos ? std::string_view{} : pattern.substr(end);
    std::string value(segment);
    if (segment.size() >= 2 && segment.front() == '{') {
      std::string name(segment.substr(1, segment.size() - 2));
      const bool rest = name.ends_with("...");
      if (rest) name.resize(name.size() - 3);
      auto found = PathValue(tool, arguments, name);
      if (auto* error = std::get_if<RpcError>(&found)) return std::move(*error);
      value = std::move(std::get<std::string>(found));
      if (rest) {
        target.push_back('/');
        text::AppendPercentEncoded(value, target, true);
        call.path.append("/").append(value);
        std::string_view remaining = value;
        while (!remaining.empty()) {
          const std::size_t slash = remaining.find('/');
          call.segments.emplace_back(remaining.substr(0, slash));
          remaining =
              slash == std::string_view::npos ? std::string_view{} : remaining.substr(slash + 1);
        }
        continue;
      }
    }
    target.push_back('/');
    text::AppendPercentEncoded(value, target, false);
    call.path.append("/").append(value);
    call.segments.push_back(std::move(value));
  }
  for (const std::string& name : tool.query_arguments) {
    const auto* given = arguments.if_contains(name);
    if (given == nullptr) continue;
    auto text = QueryText(*given);
    if (!text) continue;
    if (text::ContainsNul(*text)) {
      return InvalidArgument("Argument `" + name + "` must not contain NUL characters");
    }
    target.push_back(call.query.empty() ? '?' : '&');
    text::AppendPercentEncoded(name, target, false);
    target.push_back('=');
    text::AppendPercentEncoded(*text, target, false);
    call.query.emplace_back(name, std::move(*text));
  }
  if (tool.has_body && !arguments.contains("body")) {
    return InvalidArgument("Argument `body` is required");
  }
  namespace beast_http = boost::beast::http;
  call.raw.version(outer.raw->version());
  call.raw.method(beast_http::string_to_verb(tool.method));
  call.raw.target(target);
  // The headers (credentials, origin, client), not the body or its framing.
  for (const auto& field : *outer.raw) {
    if (field.name() == beast_http::field::content_length ||
        field.name() == beast_http::field::transfer_encoding ||
        field.name() == beast_http::field::content_type) {
      continue;
    }
    call.raw.insert(field.name_string(), field.value());
  }
  if (tool.has_body) call.raw.set(beast_http::field::content_type, "application/json");
  return call;
}

// What the dispatcher does with a handler's error: the envelope, 5xx details logged only.
http::Response FromResult(Result<http::Response> result, const http::Request& request) {
  if (result.ok()) return std::move(result).value();
  const Error& error = result.error();
  if (HttpStatus(error.code) >= 500) {
    log::Error("request " + request.request_id + " tool call " + std::string(request.method) + " " +
               request.path + ": " + error.detail);
  }
  return http::Response::FromError(error);
}

}  // namespace

std::variant<http::Response, RpcError> RunTool(const http::Request& outer, const Tool& tool,
                                               boost::json::object arguments,
                                               json::NumberTexts numbers) {
  auto built = BuildCall(outer, tool, arguments);
  if (auto* error = std::get_if<RpcError>(&built)) return std::move(*error);
  InnerCall& call = std::get<InnerCall>(built);

  http::RouteMatch match = outer.router->Match(tool.method, call.segments);
  // A value such as recordId `batch` would reach another route: it names no record.
  if (match.route == nullptr || match.route->route.spec.pattern != tool.pattern ||
      match.route->route.spec.method != tool.method) {
    return InvalidArgument("The arguments do not name a " + tool.method + " " + tool.pattern);
  }
  const http::CompiledRoute& route = *match.route;

  http::Request request;
  request.raw = &call.raw;
  request.router = outer.router;
  request.method = call.raw.method_string();
  request.path = std::move(call.path);
  request.path_params = std::move(match.path_params);
  request.query = std::move(call.query);
  request.request_id = outer.request_id;
  request.client_address = outer.client_address;
  request.caller = outer.caller;
  try {
    if (route.route.precheck) {
      if (Status checked = route.route.precheck(request); !checked.ok()) {
        return FromResult(checked.error(), request);
      }
    }
    if (!route.route.spec.body_schema.is_null()) {
      // Moving the object keeps the nodes the number texts refer to.
      json::InputDocument body{std::move(arguments["body"]), std::move(numbers)};
      if (auto error = http::AcceptJsonBody(route, std::move(body), request)) {
        return http::Response::FromError(*error);
      }
    }
    return FromResult(route.route.handler(request), request);
  } catch (const std::exception& e) {
    log::Error("request " + outer.request_id + " tool " + tool.name + " failed: " + e.what());
    return http::Response::FromError(Error::Internal("unexpected exception"));
  }
}

}  // namespace cairn::mcp
