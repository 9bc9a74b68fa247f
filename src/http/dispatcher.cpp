#include "http/dispatcher.hpp"

#include <array>
#include <random>

#include <boost/url/parse.hpp>

#include "common/log.hpp"
#include "common/text.hpp"
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
    if (text::ContainsNul(segment)) {
      return Error::Validation("Request path must not contain NUL characters");
    }
    segments.push_back(std::move(segment));
  }
  request.path.assign(url.path());
  for (auto param : url.params()) {
    // PostgreSQL cannot store NUL and SQLite cuts text at it: refused here for every parameter
    // of every route, so nothing behind the dispatcher checks query text for it again.
    if (text::ContainsNul(param.key)) {
      return Error::Validation("Query parameters must not contain NUL characters",
                               {{"query", "a parameter name contains NUL"}});
    }
    if (text::ContainsNul(param.value)) {
      return Error::Validation("Query parameters must not contain NUL characters",
                               {{param.key, "must not contain NUL characters"}});
    }
    request.query.emplace_back(std::move(param.key), std::move(param.value));
  }
  return std::nullopt;
}

// What the exception being handled says, for the log; call only inside a catch block.
std::string InFlightException() {
  try {
    throw;
  } catch (const std::exception& e) {
    return e.what();
  } catch (...) {
    return "a non-standard exception";
  }
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
    : Dispatcher(std::make_shared<const Router>(std::move(router)), std::move(middleware)) {}

Dispatcher::Dispatcher(std::shared_ptr<const Router> router, MiddlewareChain middleware)
    : router_(std::make_unique<std::atomic<std::shared_ptr<const Router>>>(std::move(router))),
      middleware_(std::move(middleware)) {}

void Dispatcher::SwapRouter(std::shared_ptr<const Router> router) {
  router_->store(std::move(router));
}

std::shared_ptr<const Router> Dispatcher::CurrentRouter() const {
  return router_->load();
}

Dispatcher::Routed Dispatcher::Route(const BeastRequest& raw, Request& request) const {
  Routed routed;
  request.raw = &raw;
  request.method = raw.method_string();
  if (request.request_id.empty())
    request.request_id = MakeRequestId(request.Header("X-Request-Id"));

  std::vector<std::string> segments;
  if (auto error = ParseTarget(raw.target(), request, segments)) {
    routed.response = Response::FromError(*error);
    return routed;
  }
  routed.router = router_->load();
  request.router = routed.router.get();
  RouteMatch match = routed.router->Match(request.method, segments);
  if (match.route == nullptr) {
    std::string message = match.path_matched ? "Method not allowed: " : "Route not found: ";
    message.append(request.method).append(" ").append(request.path);
    routed.response = Response::FromError(Error::NotFound(std::move(message)));
    return routed;
  }
  // "First wins" would let a proxy and cairn disagree about who is calling.
  if (raw.count(boost::beast::http::field::authorization) > 1) {
    routed.response = Response::FromError(
        Error::Validation("A request must carry at most one Authorization header"));
    return routed;
  }
  request.path_params = std::move(match.path_params);
  routed.route = match.route;
  return routed;
}

std::optional<Response> Dispatcher::Before(const CompiledRoute& route, Request& request) const {
  // Middleware (rate limit, session) comes before the body: an unauthenticated call gets its
  // 401 before its input is looked at (D17).
  for (const auto& middleware : middleware_) {
    if (auto early = middleware->Before(request, route.route.spec)) return early;
  }
  // Then the layers of the request's route table (its version's session layer).
  if (request.router != nullptr) {
    for (const auto& middleware : request.router->middleware()) {
      if (auto early = middleware->Before(request, route.route.spec)) return early;
    }
  }
  return std::nullopt;
}

Response Dispatcher::FromHandler(Result<Response> result, const Request& request) const {
  if (result.ok()) return std::move(result).value();
  const Error& error = result.error();
  if (HttpStatus(error.code) >= 500) {
    log::Error("request " + request.request_id + " " + std::string(request.method) + " " +
               request.path + ": " + error.detail);
  }
  return Response::FromError(error);
}

Response Dispatcher::Internal(const Request& request, std::string_view what) const {
  log::Error("request " + request.request_id + " " + std::string(request.method) + " " +
             request.path + " failed: " + std::string(what));
  Response response = Response::FromError(Error::Internal("unexpected exception"));
  try {
    Finish(request, response);
  } catch (...) {
    // The after-middleware itself threw: the envelope goes out without its headers.
  }
  return response;
}

Response Dispatcher::Run(const CompiledRoute& route, Request& request) const {
  try {
    Response response;
    if (auto early = Before(route, request)) {
      response = std::move(*early);
    } else if (Status checked = route.route.precheck ? route.route.precheck(request) : Status{};
               !checked.ok()) {
      response = FromHandler(checked.error(), request);
    } else if (!route.route.spec.body_schema.is_null()) {
      if (auto error = ParseJsonBody(*request.raw, route, request)) {
        response = Response::FromError(*error);
      } else {
        response = FromHandler(route.route.handler(request), request);
      }
    } else {
      response = FromHandler(route.route.handler(request), request);
    }
    Finish(request, response);
    return response;
  } catch (...) {
    return Internal(request, InFlightException());
  }
}

Dispatcher::Opened Dispatcher::Open(const CompiledRoute& route, Request& request) const {
  Opened opened;
  try {
    if (auto early = Before(route, request)) {
      opened.response = std::move(*early);
    } else if (auto sink = route.route.stream_handler(request); sink.ok()) {
      opened.sink = std::move(sink).value();
      return opened;
    } else {
      opened.response = FromHandler(sink.error(), request);
    }
    Finish(request, *opened.response);
  } catch (...) {
    opened.sink.reset();
    opened.response = Internal(request, InFlightException());
  }
  return opened;
}

Response Dispatcher::Complete(BodySink& sink, Request& request) const {
  try {
    Response response = FromHandler(sink.Finish(), request);
    Finish(request, response);
    return response;
  } catch (...) {
    return Internal(request, InFlightException());
  }
}

void Dispatcher::Finish(const Request& request, Response& response) const {
  if (response.status >= 500 && log::Enabled(log::Level::kWarn)) {
    log::Warn("request " + request.request_id + " " + std::string(request.method) + " " +
              request.path + " answered " + std::to_string(response.status));
  }
  if (request.router != nullptr) {
    const MiddlewareChain& layers = request.router->middleware();
    for (auto it = layers.rbegin(); it != layers.rend(); ++it) (*it)->After(request, response);
  }
  for (auto it = middleware_.rbegin(); it != middleware_.rend(); ++it) {
    (*it)->After(request, response);
  }
}

Response Dispatcher::Handle(const BeastRequest& raw, Request& request) const {
  Routed routed = Route(raw, request);
  if (routed.route == nullptr) {
    Finish(request, *routed.response);
    return std::move(*routed.response);
  }
  return Run(*routed.route, request);
}

}  // namespace cairn::http
