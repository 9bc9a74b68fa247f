// Better Auth's admin plugin routes under /api/auth/admin (D10). Every route needs an admin
// session: no session → 401, another role → 403.
#include <charconv>

#include "api/auth_route_support.hpp"
#include "api/auth_routes.hpp"
#include "auth/auth_errors.hpp"
#include "auth/limits.hpp"
#include "common/json.hpp"

namespace cairn::api {
namespace {

using namespace auth_routes;
using http::Execution;
using http::Request;
using http::Response;

constexpr const char* kCreateUserBody = R"({"type":"object","required":["email","name"],
  "properties":{"email":{"type":"string"},"password":{"type":"string"},"name":{"type":"string"},
  "role":{"type":"string"},"data":{"type":"object"}}})";
constexpr const char* kUserIdBody = R"({"type":"object","required":["userId"],
  "properties":{"userId":{"type":"string"}}})";
constexpr const char* kSetRoleBody = R"({"type":"object","required":["userId","role"],
  "properties":{"userId":{"type":"string"},"role":{"type":"string"}}})";
constexpr const char* kBanBody = R"({"type":"object","required":["userId"],
  "properties":{"userId":{"type":"string"},"banReason":{"type":"string"},
  "banExpiresIn":{"type":"integer","minimum":1}}})";
constexpr const char* kSetPasswordBody = R"({"type":"object","required":["userId","newPassword"],
  "properties":{"userId":{"type":"string"},"newPassword":{"type":"string"}}})";
constexpr const char* kSessionTokenBody = R"({"type":"object","required":["sessionToken"],
  "properties":{"sessionToken":{"type":"string"}}})";
constexpr const char* kAdminUpdateBody = R"({"type":"object","required":["userId","data"],
  "properties":{"userId":{"type":"string"},"data":{"type":"object"}}})";

Result<int> QueryInt(const Request& request, std::string_view name, int fallback, int max) {
  const auto text = request.Query(name);
  if (!text || text->empty()) return fallback;
  int value = 0;
  auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), value);
  if (ec != std::errc() || end != text->data() + text->size() || value < 0 || value > max) {
    return Error::Validation(
        "Invalid query parameter",
        {{std::string(name), "must be an integer from 0 to " + std::to_string(max)}});
  }
  return value;
}

// Better Auth's refusal of each admin route to a caller who is not an admin.
Error DenialFor(std::string_view path) {
  static constexpr std::pair<std::string_view, std::string_view> kDenials[] = {
      {"create-user", "YOU_ARE_NOT_ALLOWED_TO_CREATE_USERS"},
      {"list-users", "YOU_ARE_NOT_ALLOWED_TO_LIST_USERS"},
      {"get-user", "YOU_ARE_NOT_ALLOWED_TO_GET_USER"},
      {"set-role", "YOU_ARE_NOT_ALLOWED_TO_CHANGE_USERS_ROLE"},
      {"ban-user", "YOU_ARE_NOT_ALLOWED_TO_BAN_USERS"},
      {"unban-user", "YOU_ARE_NOT_ALLOWED_TO_BAN_USERS"},
      {"remove-user", "YOU_ARE_NOT_ALLOWED_TO_DELETE_USERS"},
      {"set-user-password", "YOU_ARE_NOT_ALLOWED_TO_SET_USERS_PASSWORD"},
      {"update-user", "YOU_ARE_NOT_ALLOWED_TO_UPDATE_USERS"},
      {"list-user-sessions", "YOU_ARE_NOT_ALLOWED_TO_LIST_USERS_SESSIONS"},
      {"revoke-user-session", "YOU_ARE_NOT_ALLOWED_TO_REVOKE_USERS_SESSIONS"},
      {"revoke-user-sessions", "YOU_ARE_NOT_ALLOWED_TO_REVOKE_USERS_SESSIONS"},
      {"impersonate-user", "YOU_ARE_NOT_ALLOWED_TO_IMPERSONATE_USERS"},
  };
  std::string_view reason = "FORBIDDEN";
  for (const auto& [route, denial] : kDenials) {
    if (route == path) reason = denial;
  }
  // YOU_ARE_NOT_ALLOWED_TO_LIST_USERS → "You are not allowed to list users".
  std::string message;
  for (char c : reason) {
    message.push_back(c == '_' ? ' ' : static_cast<char>(std::tolower(c)));
  }
  message[0] = static_cast<char>(std::toupper(message[0]));
  return auth::AuthError(ErrorCode::kForbidden, reason, message);
}

class AdminRoutes : public std::enable_shared_from_this<AdminRoutes> {
 public:
  AdminRoutes(auth::AuthService& auth, const SessionCookies& cookies)
      : auth_(auth), cookies_(cookies) {}

  Status Register(http::Router& router) {
    CAIRN_TRY(Add(router, "POST", "create-user", "Create a user", kCreateUserBody,
                  &AdminRoutes::CreateUser, Execution::kWorker));
    CAIRN_TRY(Add(router, "GET", "list-users", "List users (search, filter, sort, page)", nullptr,
                  &AdminRoutes::ListUsers));
    CAIRN_TRY(Add(router, "GET", "get-user", "One user by id", nullptr, &AdminRoutes::GetUser));
    CAIRN_TRY(Add(router, "POST", "set-role", "Change a user's role", kSetRoleBody,
                  &AdminRoutes::SetRole));
    CAIRN_TRY(Add(router, "POST", "ban-user", "Ban a user and end their sessions", kBanBody,
                  &AdminRoutes::BanUser));
    CAIRN_TRY(
        Add(router, "POST", "unban-user", "Lift a ban", kUserIdBody, &AdminRoutes::UnbanUser));
    CAIRN_TRY(
        Add(router, "POST", "remove-user", "Delete a user", kUserIdBody, &AdminRoutes::RemoveUser));
    CAIRN_TRY(Add(router, "POST", "set-user-password", "Set a user's password", kSetPasswordBody,
                  &AdminRoutes::SetUserPassword, Execution::kWorker));
    CAIRN_TRY(Add(router, "POST", "update-user", "Change a user's profile, email or role",
                  kAdminUpdateBody, &AdminRoutes::UpdateUser));
    CAIRN_TRY(Add(router, "POST", "list-user-sessions", "A user's live sessions", kUserIdBody,
                  &AdminRoutes::ListUserSessions));
    CAIRN_TRY(Add(router, "POST", "revoke-user-session", "End one session of a user",
                  kSessionTokenBody, &AdminRoutes::RevokeUserSession));
    CAIRN_TRY(Add(router, "POST", "revoke-user-sessions", "End every session of a user",
                  kUserIdBody, &AdminRoutes::RevokeUserSessions));
    CAIRN_TRY(Add(router, "POST", "impersonate-user", "Act as a user for an hour", kUserIdBody,
                  &AdminRoutes::Impersonate));
    // Stopping is open to the impersonation session itself, which is not an admin's.
    return router.Add({Spec("POST", "admin/stop-impersonating", "Return to the admin's session",
                            SessionUse::kRequired),
                       [self = shared_from_this()](Request& request) {
                         return self->StopImpersonating(request);
                       }});
  }

 private:
  using Method = Result<Response> (AdminRoutes::*)(Request&, const auth::Caller&);
  Status Add(http::Router& router, const char* method, std::string_view path, const char* summary,
             const char* body, Method handler, Execution execution = Execution::kInline) {
    http::RouteSpec spec =
        Spec(method, "admin/" + std::string(path), summary, SessionUse::kRequired, body, execution);
    return router.Add({std::move(spec),
                       [self = shared_from_this(), handler,
                        path = std::string(path)](Request& request) -> Result<Response> {
                         const auth::Caller& caller = RequireCaller(request);
                         if (caller.user.role != "admin") return DenialFor(path);
                         return ((*self).*handler)(request, caller);
                       }});
  }

  Result<Response> CreateUser(Request& request, const auth::Caller&) {
    const auto& body = Body(request);
    auth::CreateUserInput input;
    input.email = RequiredString(body, "email");
    input.name = RequiredString(body, "name");
    input.password = RequiredString(body, "password");
    input.role = RequiredString(body, "role");
    if (const auto* data = body.if_contains("data"); data && data->is_object()) {
      if (const auto* verified = data->get_object().if_contains("emailVerified")) {
        input.email_verified = verified->is_bool() && verified->get_bool();
      }
    }
    CAIRN_ASSIGN_OR_RETURN(auth::User user, auth_.CreateUser(RequireActor(request), input));
    return Json(UserObject(user));
  }

  Result<Response> ListUsers(Request& request, const auth::Caller&) {
    auth::UserQuery query;
    CAIRN_ASSIGN_OR_RETURN(query.limit, QueryInt(request, "limit", auth::kDefaultListUsersLimit,
                                                 auth::kMaxListUsersLimit));
    // Better Auth reads limit=0 as no limit given.
    if (query.limit == 0) query.limit = auth::kDefaultListUsersLimit;
    CAIRN_ASSIGN_OR_RETURN(query.offset, QueryInt(request, "offset", 0, 1'000'000'000));
    if (auto value = request.Query("searchValue")) query.search_value = std::string(*value);
    if (auto field = request.Query("searchField")) query.search_field = std::string(*field);
    if (auto op = request.Query("searchOperator")) query.search_operator = std::string(*op);
    // A repeated filterValue is a list (Better Auth's client sends arrays so, for in/not_in);
    // an empty one is no filter, as in Better Auth.
    for (const auto& [key, value] : request.query) {
      if (key == "filterValue" && !value.empty()) query.filter_values.push_back(value);
    }
    if (!query.filter_values.empty()) {
      query.filter_field = std::string(request.Query("filterField").value_or("email"));
    }
    if (auto op = request.Query("filterOperator")) query.filter_operator = std::string(*op);
    if (auto sort = request.Query("sortBy")) query.sort_by = std::string(*sort);
    if (auto direction = request.Query("sortDirection")) {
      if (*direction != "asc" && *direction != "desc") {
        return Error::Validation("Invalid query parameter",
                                 {{"sortDirection", "must be asc or desc"}});
      }
      query.sort_descending = *direction == "desc";
    }
    CAIRN_ASSIGN_OR_RETURN(auto page, auth_.ListUsers(query));
    std::string out = R"({"users":[)";
    for (std::size_t i = 0; i < page.users.size(); ++i) {
      if (i > 0) out.push_back(',');
      AppendUser(out, page.users[i]);
    }
    out.append(R"(],"total":)").append(std::to_string(page.total));
    out.append(R"(,"limit":)").append(std::to_string(query.limit));
    out.append(R"(,"offset":)").append(std::to_string(query.offset)).push_back('}');
    return Json(std::move(out));
  }

  Result<Response> GetUser(Request& request, const auth::Caller&) {
    const auto id = request.Query("id");
    if (!id || id->empty()) {
      return Error::Validation("Invalid query parameter", {{"id", "is required"}});
    }
    CAIRN_ASSIGN_OR_RETURN(auth::User user, auth_.GetUser(*id));
    std::string out;
    AppendUser(out, user);
    return Json(std::move(out));
  }

  Result<Response> SetRole(Request& request, const auth::Caller&) {
    const auto& body = Body(request);
    CAIRN_ASSIGN_OR_RETURN(auth::User user,
                           auth_.SetRole(RequireActor(request), RequiredString(body, "userId"),
                                         RequiredString(body, "role")));
    return Json(UserObject(user));
  }

  Result<Response> BanUser(Request& request, const auth::Caller&) {
    const auto& body = Body(request);
    std::optional<std::int64_t> expires_in;
    if (const auto* value = body.if_contains("banExpiresIn"); value && value->is_int64()) {
      expires_in = value->get_int64();
    }
    CAIRN_ASSIGN_OR_RETURN(auth::User user,
                           auth_.Ban(RequireActor(request), RequiredString(body, "userId"),
                                     OptionalString(body, "banReason"), expires_in));
    return Json(UserObject(user));
  }

  Result<Response> UnbanUser(Request& request, const auth::Caller&) {
    CAIRN_ASSIGN_OR_RETURN(auth::User user, auth_.Unban(RequireActor(request),
                                                        RequiredString(Body(request), "userId")));
    return Json(UserObject(user));
  }

  Result<Response> RemoveUser(Request& request, const auth::Caller&) {
    CAIRN_TRY(auth_.RemoveUser(RequireActor(request), RequiredString(Body(request), "userId")));
    return Json(R"({"success":true})");
  }

  Result<Response> SetUserPassword(Request& request, const auth::Caller&) {
    const auto& body = Body(request);
    CAIRN_TRY(auth_.SetUserPassword(RequireActor(request), RequiredString(body, "userId"),
                                    RequiredString(body, "newPassword")));
    return StatusTrue();
  }

  Result<Response> UpdateUser(Request& request, const auth::Caller&) {
    const auto& body = Body(request);
    CAIRN_ASSIGN_OR_RETURN(auth::User user, auth_.AdminUpdateUser(RequireActor(request),
                                                                  RequiredString(body, "userId"),
                                                                  body.at("data").get_object()));
    std::string out;
    AppendUser(out, user);
    return Json(std::move(out));
  }

  Result<Response> ListUserSessions(Request& request, const auth::Caller& caller) {
    const std::string user_id = RequiredString(Body(request), "userId");
    CAIRN_ASSIGN_OR_RETURN(auto sessions, auth_.ListSessions(user_id));
    std::string out = R"({"sessions":[)";
    for (std::size_t i = 0; i < sessions.size(); ++i) {
      if (i > 0) out.push_back(',');
      const bool own = sessions[i].session.id == caller.session.id;
      AppendSession(out, sessions[i].session,
                    own ? std::string_view(caller.token) : sessions[i].token_hash);
    }
    out.append("]}");
    return Json(std::move(out));
  }

  Result<Response> RevokeUserSession(Request& request, const auth::Caller&) {
    // Any user's session: the token (or the handle list-user-sessions shows) identifies it.
    CAIRN_TRY(auth_.RevokeSession(RequireActor(request), std::nullopt,
                                  RequiredString(Body(request), "sessionToken")));
    return Json(R"({"success":true})");
  }

  Result<Response> RevokeUserSessions(Request& request, const auth::Caller&) {
    CAIRN_TRY(auth_.RevokeSessions(RequireActor(request), RequiredString(Body(request), "userId"),
                                   std::nullopt));
    return Json(R"({"success":true})");
  }

  Result<Response> Impersonate(Request& request, const auth::Caller& caller) {
    const std::string user_id = RequiredString(Body(request), "userId");
    CAIRN_ASSIGN_OR_RETURN(auto issued, auth_.Impersonate(caller, user_id, ClientOf(request)));
    CAIRN_ASSIGN_OR_RETURN(auth::User target, auth_.GetUser(user_id));
    Response response = Json(SessionAndUser(issued.session, issued.token, target));
    cookies_.Set(response, kAdminSessionCookie, caller.token, caller.session.remember);
    cookies_.SetSession(response, issued);
    return response;
  }

  Result<Response> StopImpersonating(Request& request) {
    const auth::Caller& caller = RequireCaller(request);
    std::string admin_token;
    if (auto cookie = request.Cookie(kAdminSessionCookie)) {
      admin_token = auth_.codec().VerifyCookie(*cookie).value_or("");
    }
    CAIRN_ASSIGN_OR_RETURN(auto admin,
                           auth_.StopImpersonating(caller, admin_token, ClientOf(request)));
    Response response =
        admin ? Json(SessionAndUser(admin->caller.session, admin->caller.token, admin->caller.user))
              : Json(R"({"session":null,"user":null})");
    cookies_.Clear(response, kAdminSessionCookie);
    if (admin) {
      cookies_.Set(response, kSessionCookie, admin->caller.token, admin->caller.session.remember);
    } else {
      cookies_.Clear(response, kSessionCookie);
    }
    return response;
  }

  auth::AuthService& auth_;
  const SessionCookies& cookies_;
};

}  // namespace

Status AddAuthAdminRoutes(http::Router& router, auth::AuthService& auth,
                          const SessionCookies& cookies) {
  return std::make_shared<AdminRoutes>(auth, cookies)->Register(router);
}

}  // namespace cairn::api
