#include "http/dispatcher.hpp"

#include <array>
#include <random>

#include <boost/url/parse.hpp>

#include "common/log.hpp"
#include "http/json_body.hpp"
#include "http/limits.hpp"

namespace cairn::http {
namespace {

bool IsSafeRequestId(std::string_view id) {
  if (id.empty() || id.size() > kMaxRequestIdLength) return false;
  for (char c : id) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '-' || c == '_' || c == '.';
    if (!ok) return false;
  }
  return true;
}

std::optional<Error> ParseTarget(std::string_view target, Request& request,
                                 std::vector<std::string>& segments) {
  auto parsed = boost::urls::parse_origin_form(target);
  if (!parsed) return Error::Validation("Malformed request target");
  const auto& url = *parsed;
  for (auto segment : url.segments()) {
    if (segment.find('\0') != std::string::npos) {
      return Error::Validation("Request path must not contain NUL characters");
    }
    segments.push_back(std::move(segment));
  }
  request.path.assign(url.path());
  for (auto param : url.params()) {
    request.query.emplace_back(std::move(param.key), std::move(param.value));
  }
  return std::nullopt;
}

}  // namespace

std::string MakeRequestId(std::string_view incoming) {
  if (IsSafeRequestId(incoming)) return std::string(incoming);
  thread_local std::mt19937_64 engine{std::random_device{}()};
  static constexpr char kHex[] = "0123456789abcdef";
  std::string id(32, '0');
  for (int half = 0; half < 2; ++half) {
    std::uint64_t bits = engine();
    for (int i = 0; i < 16; ++i) {
      id[half * 16 + i] = kHex[bits & 0xF];
      bits >>= 4;
    }
  }
  return id;
}

Dispatcher::Dispatcher(Router router, MiddlewareChain middleware)
    : router_(std::move(router)), middleware_(std::move(middleware)) {}

Dispatcher::Prepared Dispatcher::Prepare(const BeastRequest& raw, Request& request) const {
  Prepared prepared;
  request.raw = &raw;
  request.method = raw.method_string();
  if (request.request_id.empty())
    request.request_id = MakeRequestId(request.Header("X-Request-Id"));

  std::vector<std::string> segments;
  if (auto error = ParseTarget(raw.target(), request, segments)) {
    prepared.response = Response::FromError(*error);
    return prepared;
  }
  RouteMatch match = router_.Match(request.method, segments);
  if (match.route == nullptr) {
    std::string message = match.path_matched ? "Method not allowed: " : "Route not found: ";
    message.append(request.method).append(" ").append(request.path);
    prepared.response = Response::FromError(Error::NotFound(std::move(message)));
    return prepared;
  }
  request.path_params = std::move(match.path_params);
  const CompiledRoute& route = *match.route;
  // Middleware (rate limit, session) comes before the body: an unauthenticated call gets its
  // 401 before its input is looked at (D17).
  for (const auto& middleware : middleware_) {
    if (auto early = middleware->Before(request, route.route.spec)) {
      prepared.response = std::move(early);
      return prepared;
    }
  }
  if (!route.route.spec.body_schema.is_null()) {
    if (auto error = ParseJsonBody(raw, route, request)) {
      prepared.response = Response::FromError(*error);
      return prepared;
    }
  }
  prepared.route = &route;
  return prepared;
}

Response Dispatcher::Invoke(const CompiledRoute& route, Request& request) const {
  try {
    Result<Response> result = route.route.handler(request);
    if (result.ok()) return std::move(result).value();
    const Error& error = result.error();
    if (HttpStatus(error.code) >= 500) {
      log::Error("request " + request.request_id + " " + std::string(request.method) + " " +
                 request.path + ": " + error.detail);
    }
    return Response::FromError(error);
  } catch (const std::exception& e) {
    log::Error("request " + request.request_id + " " + std::string(request.method) + " " +
               request.path + " failed: " + e.what());
  } catch (...) {
    log::Error("request " + request.request_id + " failed with a non-standard exception");
  }
  return Response::FromError(Error::Internal("handler threw"));
}

void Dispatcher::Finish(const Request& request, Response& response) const {
  if (response.status >= 500 && log::Enabled(log::Level::kWarn)) {
    log::Warn("request " + request.request_id + " " + std::string(request.method) + " " +
              request.path + " answered " + std::to_string(response.status));
  }
  for (auto it = middleware_.rbegin(); it != middleware_.rend(); ++it) {
    (*it)->After(request, response);
  }
}

Response Dispatcher::Handle(const BeastRequest& raw, Request& request) const {
  Prepared prepared = Prepare(raw, request);
  Response response =
      prepared.response ? std::move(*prepared.response) : Invoke(*prepared.route, request);
  Finish(request, response);
  return response;
}

}  // namespace cairn::http
