// Routing, body parsing and validation, middleware and the outermost error envelope.
// Independent of sockets so it can be unit-tested; the server calls it for every request.
#pragma once

#include <optional>
#include <string>

#include "http/middleware.hpp"
#include "http/request.hpp"
#include "http/response.hpp"
#include "http/router.hpp"

namespace cairn::http {

class Dispatcher {
 public:
  Dispatcher(Router router, MiddlewareChain middleware);

  // Everything before the handler. Returns the handler to run, or a finished response.
  struct Prepared {
    const CompiledRoute* route = nullptr;
    std::optional<Response> response;  // set when the request ends before the handler
  };
  Prepared Prepare(const BeastRequest& raw, Request& request) const;
  // Runs the handler; exceptions become the 500 envelope (logged with the request id).
  Response Invoke(const CompiledRoute& route, Request& request) const;
  // After-middleware and X-Request-Id; call exactly once per response.
  void Finish(const Request& request, Response& response) const;

  // Convenience for tests and the inline path: Prepare + Invoke + Finish.
  Response Handle(const BeastRequest& raw, Request& request) const;

  const Router& router() const { return router_; }

 private:
  Router router_;
  MiddlewareChain middleware_;
};

// A fresh request id (32 hex chars), or the client's when it is short and safe.
std::string MakeRequestId(std::string_view incoming);

}  // namespace cairn::http
