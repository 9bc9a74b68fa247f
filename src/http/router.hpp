// Method + path → route. Literal segments win over parameters; {name...} captures the rest.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/json_schema.hpp"
#include "common/result.hpp"
#include "http/middleware.hpp"
#include "http/route.hpp"

namespace cairn::http {

struct CompiledRoute {
  Route route;
  std::optional<json::JsonSchema> body_schema;
};

struct RouteMatch {
  const CompiledRoute* route = nullptr;  // null when nothing matched
  bool path_matched = false;             // some route has this path (with another method)
  Params path_params;
};

class Router {
 public:
  Router();
  ~Router();
  Router(Router&&) noexcept;
  Router& operator=(Router&&) noexcept;

  // Fails on a malformed pattern, a duplicate route or an invalid schema.
  Status Add(Route route);
  // `segments` are the percent-decoded path segments.
  RouteMatch Match(std::string_view method, const std::vector<std::string>& segments) const;
  // Every route in registration order (the MCP tools and the OpenAPI generator read them).
  std::vector<const Route*> Routes() const;
  // Unique per router built in this process: a key for what is derived from one route table.
  std::uint64_t generation() const { return generation_; }

  // Middleware that belongs to this table's version (the session layer of the auth config it
  // was built from): the dispatcher runs it after its own chain, so a request meets the layers
  // of the table it was routed by.
  void SetMiddleware(MiddlewareChain middleware) { middleware_ = std::move(middleware); }
  const MiddlewareChain& middleware() const { return middleware_; }

 private:
  struct Node;
  std::unique_ptr<Node> root_;
  std::vector<std::unique_ptr<CompiledRoute>> routes_;
  std::uint64_t generation_;
  MiddlewareChain middleware_;
};

}  // namespace cairn::http
