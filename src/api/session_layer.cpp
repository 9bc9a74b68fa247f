#include "api/session_layer.hpp"

#include <cctype>
#include <string>

#include "auth/limits.hpp"
#include "common/log.hpp"

namespace cairn::api {
namespace {

// The token a request presents: `Authorization: Bearer …` first, then the session cookie.
// As Better Auth's bearer plugin does, the scheme is case-insensitive and a credential that is
// neither a token nor a validly signed one is ignored.
struct Presented {
  std::string token;
  bool from_cookie = false;
};

bool IsBearer(std::string_view authorization) {
  if (authorization.size() <= 7 || authorization[6] != ' ') return false;
  for (std::size_t i = 0; i < 6; ++i) {
    if (std::tolower(static_cast<unsigned char>(authorization[i])) != "bearer"[i]) return false;
  }
  return true;
}

std::optional<Presented> PresentedToken(const http::Request& request,
                                        const auth::SessionTokenCodec& codec) {
  std::string_view authorization = request.Header("Authorization");
  if (IsBearer(authorization)) {
    authorization.remove_prefix(7);
    while (!authorization.empty() && authorization.front() == ' ') authorization.remove_prefix(1);
    while (!authorization.empty() && authorization.back() == ' ') authorization.remove_suffix(1);
    if (auto token = codec.FromBearer(authorization)) return Presented{std::move(*token), false};
  }
  if (auto cookie = request.Cookie(kSessionCookie)) {
    if (auto token = codec.VerifyCookie(*cookie)) return Presented{std::move(*token), true};
  }
  return std::nullopt;
}

}  // namespace

const auth::Caller* CallerOf(const http::Request& request) {
  const auto* context = std::any_cast<CallerContext>(&request.caller);
  return context ? &context->caller : nullptr;
}

void SessionCookies::Set(http::Response& response, std::string_view name, std::string_view token,
                         bool remember) const {
  std::string cookie(name);
  cookie.append("=").append(codec_.Sign(token));
  if (remember) {
    cookie.append("; Max-Age=").append(std::to_string(auth::kSessionLifetimeMillis / 1000));
  }
  cookie.append("; Path=/; HttpOnly; SameSite=Lax");
  if (secure_) cookie.append("; Secure");
  response.AddHeader("Set-Cookie", std::move(cookie));
  if (name == kSessionCookie) {
    // Better Auth's bearer plugin: clients without a cookie jar read the token from here.
    response.SetHeader("set-auth-token", codec_.SignedValue(token));
    response.SetHeader("Access-Control-Expose-Headers", "set-auth-token");
  }
}

void SessionCookies::SetSigned(http::Response& response, std::string_view name,
                               std::string_view value, std::int64_t max_age_seconds) const {
  std::string cookie(name);
  cookie.append("=").append(codec_.Sign(value));
  cookie.append("; Max-Age=").append(std::to_string(max_age_seconds));
  cookie.append("; Path=/; HttpOnly; SameSite=Lax");
  if (secure_) cookie.append("; Secure");
  response.AddHeader("Set-Cookie", std::move(cookie));
}

void SessionCookies::Clear(http::Response& response, std::string_view name) const {
  std::string cookie(name);
  cookie.append("=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax");
  if (secure_) cookie.append("; Secure");
  response.AddHeader("Set-Cookie", std::move(cookie));
}

std::optional<http::Response> SessionLayer::Before(http::Request& request,
                                                   const http::RouteSpec& route) {
  if (!route.requires_session && !route.optional_session) return std::nullopt;
  if (auto presented = PresentedToken(request, auth_.codec())) {
    auto resolved = auth_.Resolve(presented->token);
    if (!resolved.ok()) {
      log::Error("request " + request.request_id +
                 ": session lookup failed: " + resolved.error().detail);
      return http::Response::FromError(
          Error::Unavailable("Sessions cannot be checked right now", resolved.error().detail));
    }
    if (*resolved) {
      request.caller = CallerContext{std::move((*resolved)->caller), (*resolved)->refreshed,
                                     presented->from_cookie};
      return std::nullopt;
    }
  }
  if (route.requires_session) return http::Response::FromError(Error::Unauthorized());
  return std::nullopt;
}

void SessionLayer::After(const http::Request& request, http::Response& response) {
  const auto* context = std::any_cast<CallerContext>(&request.caller);
  if (context == nullptr || !context->refreshed || !context->from_cookie) return;
  for (const auto& [name, value] : response.headers) {
    if (name == "Set-Cookie" && std::string_view(value).starts_with(kSessionCookie)) return;
  }
  cookies_.Set(response, kSessionCookie, context->caller.token, context->caller.session.remember);
}

}  // namespace cairn::api
