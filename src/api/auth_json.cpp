#include "api/auth_json.hpp"

#include "common/json.hpp"
#include "common/time.hpp"

namespace cairn::api {
namespace {

void Key(std::string& out, std::string_view key) {
  if (out.back() != '{') out.push_back(',');
  out.push_back('"');
  out.append(key);
  out.append("\":");
}

void Text(std::string& out, std::string_view key, std::string_view value) {
  Key(out, key);
  json::AppendString(out, value);
}

void OptionalText(std::string& out, std::string_view key, const std::optional<std::string>& value) {
  Key(out, key);
  if (value) {
    json::AppendString(out, *value);
  } else {
    out.append("null");
  }
}

void Date(std::string& out, std::string_view key, std::int64_t millis) {
  Key(out, key);
  out.push_back('"');
  time::AppendIso(out, millis);
  out.push_back('"');
}

void Flag(std::string& out, std::string_view key, bool value) {
  Key(out, key);
  out.append(value ? "true" : "false");
}

}  // namespace

void AppendUser(std::string& out, const auth::User& user) {
  out.push_back('{');
  Text(out, "id", user.id);
  Text(out, "name", user.name);
  Text(out, "email", user.email);
  Flag(out, "emailVerified", user.email_verified);
  OptionalText(out, "image", user.image);
  Date(out, "createdAt", user.created_at);
  Date(out, "updatedAt", user.updated_at);
  Text(out, "role", user.role);
  Flag(out, "banned", user.banned);
  OptionalText(out, "banReason", user.ban_reason);
  Key(out, "banExpires");
  if (user.ban_expires) {
    out.push_back('"');
    time::AppendIso(out, *user.ban_expires);
    out.push_back('"');
  } else {
    out.append("null");
  }
  Flag(out, "twoFactorEnabled", user.two_factor_enabled);
  out.push_back('}');
}

void AppendSession(std::string& out, const auth::Session& session, std::string_view token) {
  out.push_back('{');
  Text(out, "id", session.id);
  Text(out, "token", token);
  Text(out, "userId", session.user_id);
  Date(out, "expiresAt", session.expires_at);
  Date(out, "createdAt", session.created_at);
  Date(out, "updatedAt", session.updated_at);
  OptionalText(out, "ipAddress", session.ip_address);
  OptionalText(out, "userAgent", session.user_agent);
  OptionalText(out, "impersonatedBy", session.impersonated_by);
  OptionalText(out, "activeOrganizationId", session.active_organization_id);
  out.push_back('}');
}

std::string SessionAndUser(const auth::Session& session, std::string_view token,
                           const auth::User& user) {
  std::string out = R"({"session":)";
  AppendSession(out, session, token);
  out.append(R"(,"user":)");
  AppendUser(out, user);
  out.push_back('}');
  return out;
}

}  // namespace cairn::api
