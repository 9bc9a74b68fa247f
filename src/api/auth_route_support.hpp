// Helpers shared by the /api/auth route files: route specs, body members, common answers.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <boost/json.hpp>

#include "api/auth_json.hpp"
#include "api/session_layer.hpp"
#include "auth/model.hpp"
#include "http/request.hpp"
#include "http/response.hpp"
#include "http/route.hpp"

namespace cairn::api::auth_routes {

inline constexpr std::string_view kPrefix = "/api/auth/";

enum class SessionUse { kNone, kOptional, kRequired };

// A route under /api/auth. `body_schema` is JSON Schema text, or null for no body.
http::RouteSpec Spec(const char* method, std::string_view path, const char* summary,
                     SessionUse session, const char* body_schema = nullptr,
                     http::Execution execution = http::Execution::kInline);

// Body members (the dispatcher has validated the types against the schema).
const boost::json::object& Body(const http::Request& request);
std::optional<std::string> OptionalString(const boost::json::object& body, std::string_view key);
std::string RequiredString(const boost::json::object& body, std::string_view key);
bool Flag(const boost::json::object& body, std::string_view key, bool fallback);

// Where the request comes from, for the sessions it creates.
auth::ClientInfo ClientOf(const http::Request& request);
// The caller of a route that requires a session (the session layer guarantees one).
const auth::Caller& RequireCaller(const http::Request& request);
// The caller of a route that requires a session and where the request comes from: the actor
// of the activity log's entry.
auth::Actor RequireActor(const http::Request& request);

http::Response Json(std::string body);
http::Response StatusTrue();
http::Response Redirect(std::string location);
std::string UserObject(const auth::User& user);  // {"user":…}

}  // namespace cairn::api::auth_routes
