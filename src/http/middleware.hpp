// Middleware runs in a written-down order around every routed request (docs/architecture.md):
//   1. error envelope + request id   (built into the server: outermost, cannot be skipped)
//   2. rate limit                    (auth issue)
//   3. session                       (auth issue; 401 before anything else, D17)
//   4. security headers              (after the handler, on every response)
// The dispatcher's chain holds the layers every version shares; a route table may carry the
// layers of its schema version (Router::SetMiddleware: with auth, the origin check, the session
// layer and the per-user limit), which run after the dispatcher's chain, their After first.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "http/request.hpp"
#include "http/response.hpp"
#include "http/route.hpp"

namespace cairn::http {

class Middleware {
 public:
  virtual ~Middleware() = default;
  // Returning a response short-circuits the handler (and later middleware).
  virtual std::optional<Response> Before(Request&, const RouteSpec&) { return std::nullopt; }
  // Runs on every response, including short-circuited and error responses, in reverse order.
  virtual void After(const Request&, Response&) {}
};

using MiddlewareChain = std::vector<std::shared_ptr<Middleware>>;

// Headers every API response carries.
class SecurityHeaders final : public Middleware {
 public:
  void After(const Request&, Response& response) override;
};

}  // namespace cairn::http
