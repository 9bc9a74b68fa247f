#include "api/auth_route_support.hpp"

#include <stdexcept>

namespace cairn::api::auth_routes {

http::RouteSpec Spec(const char* method, std::string_view path, const char* summary,
                     SessionUse session, const char* body_schema, http::Execution execution) {
  http::RouteSpec spec;
  spec.method = method;
  spec.pattern = std::string(kPrefix) + std::string(path);
  spec.summary = summary;
  spec.tag = path.starts_with("admin/") ? "auth-admin" : "auth";
  spec.requires_session = session == SessionUse::kRequired;
  spec.optional_session = session == SessionUse::kOptional;
  if (body_schema != nullptr) spec.body_schema = boost::json::parse(body_schema);
  spec.execution = execution;
  return spec;
}

const boost::json::object& Body(const http::Request& request) {
  static const boost::json::object kEmpty;
  if (!request.json || !request.json->is_object()) return kEmpty;
  return request.json->get_object();
}

std::optional<std::string> OptionalString(const boost::json::object& body, std::string_view key) {
  const auto* value = body.if_contains(key);
  if (value == nullptr || !value->is_string()) return std::nullopt;
  return std::string(value->get_string());
}

std::string RequiredString(const boost::json::object& body, std::string_view key) {
  return OptionalString(body, key).value_or(std::string());
}

bool Flag(const boost::json::object& body, std::string_view key, bool fallback) {
  const auto* value = body.if_contains(key);
  if (value == nullptr || !value->is_bool()) return fallback;
  return value->get_bool();
}

auth::ClientInfo ClientOf(const http::Request& request) {
  return {request.client_address, std::string(request.Header("User-Agent"))};
}

const auth::Caller& RequireCaller(const http::Request& request) {
  const auth::Caller* caller = CallerOf(request);
  // The session layer answers 401 before the handler runs; reaching here without a caller is
  // a route declared without requires_session.
  if (caller == nullptr) throw std::logic_error("route needs requires_session");
  return *caller;
}

auth::Actor RequireActor(const http::Request& request) {
  return auth::ActorOf(RequireCaller(request), ClientOf(request));
}

http::Response Json(std::string body) {
  return http::Response::RawJson(200, std::move(body));
}

http::Response StatusTrue() {
  return Json(R"({"status":true})");
}

http::Response Redirect(std::string location) {
  http::Response response;
  response.status = 302;
  response.content_type.clear();
  response.SetHeader("Location", std::move(location));
  return response;
}

std::string UserObject(const auth::User& user) {
  std::string out = R"({"user":)";
  AppendUser(out, user);
  out.push_back('}');
  return out;
}

}  // namespace cairn::api::auth_routes
