#include "http/router.hpp"

#include <atomic>
#include <map>

namespace cairn::http {

struct Router::Node {
  std::unordered_map<std::string, std::unique_ptr<Node>> literals;
  std::unique_ptr<Node> param;  // {name}
  std::string param_name;
  std::map<std::string, const CompiledRoute*, std::less<>> rest;  // {name...} by method
  std::string rest_name;
  std::map<std::string, const CompiledRoute*, std::less<>> methods;  // routes ending here
};

namespace {

std::vector<std::string_view> SplitPattern(std::string_view pattern) {
  std::vector<std::string_view> segments;
  std::size_t start = 1;
  while (start <= pattern.size()) {
    const std::size_t end = pattern.find('/', start);
    const std::size_t stop = end == std::string_view::npos ? pattern.size() : end;
    segments.push_back(pattern.substr(start, stop - start));
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return segments;
}

bool IsParam(std::string_view segment) {
  return segment.size() > 2 && segment.front() == '{' && segment.back() == '}';
}

}  // namespace

namespace {
std::atomic<std::uint64_t> next_generation{1};
}  // namespace

Router::Router()
    : root_(std::make_unique<Node>()),
      generation_(next_generation.fetch_add(1, std::memory_order_relaxed)) {}
Router::~Router() = default;
Router::Router(Router&&) noexcept = default;
Router& Router::operator=(Router&&) noexcept = default;

Status Router::Add(Route route) {
  const std::string& pattern = route.spec.pattern;
  if (pattern.empty() || pattern.front() != '/') {
    return Error::Internal("route pattern must start with '/': " + pattern);
  }
  if (static_cast<bool>(route.handler) == static_cast<bool>(route.stream_handler)) {
    return Error::Internal("a route needs exactly one of handler and stream_handler: " + pattern);
  }
  if (route.stream_handler && !route.spec.body_schema.is_null()) {
    return Error::Internal("a streamed route takes no JSON body schema: " + pattern);
  }
  auto compiled = std::make_unique<CompiledRoute>();
  if (!route.spec.body_schema.is_null()) {
    auto schema = json::JsonSchema::Compile(route.spec.body_schema);
    if (!schema.ok()) {
      return Error::Internal("invalid body schema for " + pattern + ": " + schema.error().message);
    }
    compiled->body_schema.emplace(std::move(schema).value());
  }
  compiled->route = std::move(route);
  const RouteSpec& spec = compiled->route.spec;

  Node* node = root_.get();
  const auto segments = SplitPattern(spec.pattern);
  for (std::size_t i = 0; i < segments.size(); ++i) {
    const std::string_view segment = segments[i];
    if (!IsParam(segment)) {
      auto& child = node->literals[std::string(segment)];
      if (!child) child = std::make_unique<Node>();
      node = child.get();
      continue;
    }
    std::string_view name = segment.substr(1, segment.size() - 2);
    if (name.ends_with("...")) {
      if (i + 1 != segments.size()) {
        return Error::Internal("{name...} must be the last segment: " + spec.pattern);
      }
      name.remove_suffix(3);
      if (node->rest.contains(spec.method)) {
        return Error::Internal("duplicate route " + spec.method + " " + spec.pattern);
      }
      node->rest_name = std::string(name);
      node->rest[spec.method] = compiled.get();
      routes_.push_back(std::move(compiled));
      return {};
    }
    if (!node->param) {
      node->param = std::make_unique<Node>();
      node->param_name = std::string(name);
    } else if (node->param_name != name) {
      return Error::Internal("conflicting parameter names at " + spec.pattern);
    }
    node = node->param.get();
  }
  if (node->methods.contains(spec.method)) {
    return Error::Internal("duplicate route " + spec.method + " " + spec.pattern);
  }
  node->methods[spec.method] = compiled.get();
  routes_.push_back(std::move(compiled));
  return {};
}

namespace {

struct Walker {
  std::string_view method;
  const std::vector<std::string>& segments;
  RouteMatch& match;

  // Depth-first: literal first, then parameter, then rest-capture. Returns true on a full match.
  template <class NodeT>
  bool Visit(const NodeT& node, std::size_t index) {
    if (index == segments.size()) {
      if (!node.methods.empty()) {
        match.path_matched = true;
        if (auto it = node.methods.find(method); it != node.methods.end()) {
          match.route = it->second;
          return true;
        }
      }
      return false;
    }
    const std::string& segment = segments[index];
    if (auto it = node.literals.find(segment); it != node.literals.end()) {
      if (Visit(*it->second, index + 1)) return true;
    }
    if (node.param && !segment.empty()) {
      match.path_params.emplace_back(node.param_name, segment);
      if (Visit(*node.param, index + 1)) return true;
      match.path_params.pop_back();
    }
    if (!node.rest.empty()) {
      match.path_matched = true;
      if (auto it = node.rest.find(method); it != node.rest.end()) {
        std::string rest;
        for (std::size_t i = index; i < segments.size(); ++i) {
          if (i > index) rest.push_back('/');
          rest.append(segments[i]);
        }
        match.path_params.emplace_back(node.rest_name, std::move(rest));
        match.route = it->second;
        return true;
      }
    }
    return false;
  }
};

}  // namespace

RouteMatch Router::Match(std::string_view method, const std::vector<std::string>& segments) const {
  RouteMatch match;
  Walker walker{method, segments, match};
  walker.Visit(*root_, 0);
  return match;
}

std::vector<const Route*> Router::Routes() const {
  std::vector<const Route*> routes;
  routes.reserve(routes_.size());
  for (const auto& compiled : routes_) routes.push_back(&compiled->route);
  return routes;
}

}  // namespace cairn::http
