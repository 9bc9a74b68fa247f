// Routing, body parsing and validation, middleware and the outermost error envelope.
// Independent of sockets so it can be unit-tested; the server calls it for every request.
#pragma once

#include <atomic>
#include <memory>
#include <optional>
#include <string>

#include "http/body_stream.hpp"
#include "http/middleware.hpp"
#include "http/request.hpp"
#include "http/response.hpp"
#include "http/router.hpp"

namespace cairn::http {

class Dispatcher {
 public:
  Dispatcher(Router router, MiddlewareChain middleware);
  // `router` may own what its handlers reference (an aliasing shared_ptr into a larger snapshot).
  Dispatcher(std::shared_ptr<const Router> router, MiddlewareChain middleware);

  // Every request routed after this returns is served by `router`; a request already routed
  // finishes on the router it was routed by (Routed keeps it alive), so none sees a mix.
  void SwapRouter(std::shared_ptr<const Router> router);
  std::shared_ptr<const Router> CurrentRouter() const;

  // The first step, on the network thread, once the request's header is in (its body is not
  // read yet): request id, target, route, conflicting credentials. Pure CPU.
  struct Routed {
    std::shared_ptr<const Router> router;  // holds `route` (and what its handler uses) alive
    const CompiledRoute* route = nullptr;
    std::optional<Response> response;  // set when the request ends here (404, bad target)
  };
  Routed Route(const BeastRequest& raw, Request& request) const;

  // The rest of a request whose body was read whole: middleware, JSON body, handler and the
  // after-middleware. Runs where the route's Execution says; never throws (a throw anywhere
  // becomes the 500 envelope, logged with the request id).
  Response Run(const CompiledRoute& route, Request& request) const;

  // For a streamed route, before any of its body is read: middleware and the route's
  // StreamHandler. Either `sink` is set, or `response` (already finished) is the answer.
  struct Opened {
    std::unique_ptr<BodySink> sink;
    std::optional<Response> response;
  };
  Opened Open(const CompiledRoute& route, Request& request) const;
  // The whole streamed body reached `sink`: its answer, finished.
  Response Complete(BodySink& sink, Request& request) const;

  // After-middleware and the 5xx log line; call exactly once per response not produced by
  // Run, Open or Complete (those call it themselves).
  void Finish(const Request& request, Response& response) const;

  // Route + Run, for tests and tools that hold a whole request.
  Response Handle(const BeastRequest& raw, Request& request) const;

 private:
  std::optional<Response> Before(const CompiledRoute& route, Request& request) const;
  Response FromHandler(Result<Response> result, const Request& request) const;
  Response Internal(const Request& request, std::string_view what) const;

  // Heap-held so the dispatcher stays movable; swapped whole, read once per request.
  std::unique_ptr<std::atomic<std::shared_ptr<const Router>>> router_;
  MiddlewareChain middleware_;
};

// A fresh request id (32 hex chars), or the client's when it is short and safe.
std::string MakeRequestId(std::string_view incoming);

}  // namespace cairn::http
