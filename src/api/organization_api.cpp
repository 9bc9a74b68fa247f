// Better Auth's organization plugin routes under /api/auth/organization (D19), registered only
// when the config says `auth.organizations: true`. Bodies and answers are Better Auth's, so its
// organizationClient works unchanged; auth::OrganizationService holds the rules.
#include <charconv>

#include "api/auth_route_support.hpp"
#include "api/auth_routes.hpp"
#include "auth/auth_errors.hpp"
#include "auth/limits.hpp"
#include "auth/organization_service.hpp"
#include "common/json.hpp"
#include "common/time.hpp"

namespace cairn::api {
namespace {

using namespace auth_routes;
using http::Execution;
using http::Request;
using http::Response;

constexpr const char* kRoleSchema = R"({"type":["string","array"],"items":{"type":"string"}})";

const std::string kCreateBody = std::string(R"({"type":"object","required":["name","slug"],
  "properties":{"name":{"type":"string"},"slug":{"type":"string"},"userId":{"type":"string"},
  "logo":{"type":["string","null"]},"metadata":{"type":"object"},
  "keepCurrentActiveOrganization":{"type":"boolean"}}})");
constexpr const char* kSlugBody = R"({"type":"object","required":["slug"],
  "properties":{"slug":{"type":"string"}}})";
constexpr const char* kUpdateBody = R"({"type":"object","required":["data"],
  "properties":{"organizationId":{"type":"string"},"data":{"type":"object",
  "properties":{"name":{"type":"string"},"slug":{"type":"string"},
  "logo":{"type":["string","null"]},"metadata":{"type":"object"}}}}})";
constexpr const char* kOrganizationIdBody = R"({"type":"object","required":["organizationId"],
  "properties":{"organizationId":{"type":"string"}}})";
constexpr const char* kSetActiveBody = R"({"type":"object",
  "properties":{"organizationId":{"type":["string","null"]},"organizationSlug":{"type":"string"}}})";
const std::string kInviteBody = std::string(R"({"type":"object","required":["email","role"],
  "properties":{"email":{"type":"string"},"role":)") +
                                kRoleSchema + R"(,
  "organizationId":{"type":"string"},"resend":{"type":"boolean"}}})";
constexpr const char* kHasPermissionBody = R"({"type":"object",
  "properties":{"organizationId":{"type":"string"},
  "permissions":{"type":"object","additionalProperties":{"type":"array","items":{"type":"string"}}},
  "permission":{"type":"object","additionalProperties":{"type":"array","items":{"type":"string"}}}}})";
constexpr const char* kInvitationIdBody = R"({"type":"object","required":["invitationId"],
  "properties":{"invitationId":{"type":"string"}}})";
const std::string kAddMemberBody = std::string(R"({"type":"object","required":["userId","role"],
  "properties":{"userId":{"type":"string"},"role":)") +
                                   kRoleSchema + R"(,
  "organizationId":{"type":"string"}}})";
constexpr const char* kRemoveMemberBody = R"({"type":"object","required":["memberIdOrEmail"],
  "properties":{"memberIdOrEmail":{"type":"string"},"organizationId":{"type":"string"}}})";
const std::string kUpdateRoleBody = std::string(R"({"type":"object","required":["role","memberId"],
  "properties":{"memberId":{"type":"string"},"role":)") +
                                    kRoleSchema + R"(,
  "organizationId":{"type":"string"}}})";

// --- JSON ---------------------------------------------------------------------------------------

boost::json::value Date(std::int64_t millis) {
  return boost::json::value(time::FormatIso(millis));
}

boost::json::value OptionalText(const std::optional<std::string>& text) {
  return text ? boost::json::value(*text) : boost::json::value(nullptr);
}

boost::json::object OrganizationJson(const auth::Organization& organization) {
  boost::json::object out{{"id", organization.id},
                          {"name", organization.name},
                          {"slug", organization.slug},
                          {"logo", OptionalText(organization.logo)},
                          {"createdAt", Date(organization.created_at)}};
  // Stored as serialized here from a validated object, so it parses.
  out["metadata"] = organization.metadata_json ? boost::json::parse(*organization.metadata_json)
                                               : boost::json::value(nullptr);
  return out;
}

boost::json::object MemberJson(const auth::Member& member, bool with_user) {
  boost::json::object out{{"id", member.id},
                          {"organizationId", member.organization_id},
                          {"userId", member.user_id},
                          {"role", member.role},
                          {"createdAt", Date(member.created_at)}};
  if (with_user) {
    out["user"] = boost::json::object{{"id", member.user.id},
                                      {"name", member.user.name},
                                      {"email", member.user.email},
                                      {"image", OptionalText(member.user.image)}};
  }
  return out;
}

boost::json::object InvitationJson(const auth::Invitation& invitation) {
  return {{"id", invitation.id},
          {"organizationId", invitation.organization_id},
          {"email", invitation.email},
          {"role", invitation.role},
          {"status", invitation.status},
          {"inviterId", OptionalText(invitation.inviter_id)},
          {"expiresAt", Date(invitation.expires_at)},
          {"createdAt", Date(invitation.created_at)}};
}

Response JsonValue(const boost::json::value& value) {
  return Json(boost::json::serialize(value));
}

// --- Request members ----------------------------------------------------------------------------

// A role given as Better Auth accepts it: "admin,member" or ["admin","member"].
std::string RoleOf(const boost::json::object& body) {
  const auto* value = body.if_contains("role");
  if (value == nullptr) return {};
  if (value->is_string()) return std::string(value->get_string());
  std::string joined;
  if (const auto* list = value->if_array()) {
    for (const auto& item : *list) {
      if (!item.is_string()) continue;
      if (!joined.empty()) joined.push_back(',');
      joined.append(item.get_string());
    }
  }
  return joined;
}

std::optional<std::string> QueryText(const Request& request, std::string_view name) {
  const auto text = request.Query(name);
  if (!text || text->empty()) return std::nullopt;
  return std::string(*text);
}

Result<std::optional<int>> QueryInt(const Request& request, std::string_view name, int max) {
  const auto text = request.Query(name);
  if (!text || text->empty()) return std::optional<int>();
  int value = 0;
  auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), value);
  if (ec != std::errc() || end != text->data() + text->size() || value < 0 || value > max) {
    return Error::Validation(
        "Invalid query parameter",
        {{std::string(name), "must be an integer from 0 to " + std::to_string(max)}});
  }
  return std::optional<int>(value);
}

auth::OrganizationService::Target TargetOf(const Request& request) {
  return {QueryText(request, "organizationId"), QueryText(request, "organizationSlug")};
}

// list-members' sorting and filtering are not served: refused rather than ignored.
Status RefuseUnsupported(const Request& request) {
  for (const char* name :
       {"sortBy", "sortDirection", "filterField", "filterValue", "filterOperator"}) {
    if (request.Query(name)) {
      return Error::Validation("Unsupported query parameter",
                               {{name, "list-members does not sort or filter"}});
    }
  }
  return {};
}

class OrganizationRoutes : public std::enable_shared_from_this<OrganizationRoutes> {
 public:
  OrganizationRoutes(auth::AuthService& auth, std::shared_ptr<mail::Mailer> mailer)
      : organizations_(auth, std::move(mailer)) {}

  Status Register(http::Router& router) {
    CAIRN_TRY(Add(router, "POST", "create", "Create an organization", kCreateBody.c_str(),
                  &OrganizationRoutes::Create));
    CAIRN_TRY(Add(router, "POST", "check-slug", "Whether a slug is free", kSlugBody,
                  &OrganizationRoutes::CheckSlug));
    CAIRN_TRY(Add(router, "POST", "update", "Change an organization", kUpdateBody,
                  &OrganizationRoutes::Update));
    CAIRN_TRY(Add(router, "POST", "delete", "Delete an organization", kOrganizationIdBody,
                  &OrganizationRoutes::Delete));
    CAIRN_TRY(Add(router, "GET", "list", "The caller's organizations", nullptr,
                  &OrganizationRoutes::List));
    CAIRN_TRY(Add(router, "GET", "get-full-organization",
                  "An organization with its members and invitations", nullptr,
                  &OrganizationRoutes::GetFull));
    CAIRN_TRY(Add(router, "POST", "set-active", "Set the session's active organization",
                  kSetActiveBody, &OrganizationRoutes::SetActive));
    CAIRN_TRY(Add(router, "GET", "list-members", "An organization's members", nullptr,
                  &OrganizationRoutes::ListMembers));
    CAIRN_TRY(Add(router, "GET", "get-active-member",
                  "The caller's membership of the active organization", nullptr,
                  &OrganizationRoutes::GetActiveMember));
    CAIRN_TRY(Add(router, "GET", "get-active-member-role",
                  "A member's role in the active organization", nullptr,
                  &OrganizationRoutes::GetActiveMemberRole));
    CAIRN_TRY(Add(router, "POST", "add-member", "Add a user directly (site admins)",
                  kAddMemberBody.c_str(), &OrganizationRoutes::AddMember));
    CAIRN_TRY(Add(router, "POST", "remove-member", "Remove a member", kRemoveMemberBody,
                  &OrganizationRoutes::RemoveMember));
    CAIRN_TRY(Add(router, "POST", "update-member-role", "Change a member's role",
                  kUpdateRoleBody.c_str(), &OrganizationRoutes::UpdateMemberRole));
    CAIRN_TRY(Add(router, "POST", "leave", "Leave an organization", kOrganizationIdBody,
                  &OrganizationRoutes::Leave));
    CAIRN_TRY(Add(router, "POST", "has-permission", "Whether the caller's role grants some actions",
                  kHasPermissionBody, &OrganizationRoutes::HasPermission));
    CAIRN_TRY(Add(router, "POST", "invite-member", "Invite an address by mail", kInviteBody.c_str(),
                  &OrganizationRoutes::Invite));
    CAIRN_TRY(Add(router, "POST", "accept-invitation", "Accept an invitation", kInvitationIdBody,
                  &OrganizationRoutes::Accept));
    CAIRN_TRY(Add(router, "POST", "reject-invitation", "Reject an invitation", kInvitationIdBody,
                  &OrganizationRoutes::Reject));
    CAIRN_TRY(Add(router, "POST", "cancel-invitation", "Cancel an invitation", kInvitationIdBody,
                  &OrganizationRoutes::Cancel));
    CAIRN_TRY(Add(router, "GET", "get-invitation", "An invitation to the caller", nullptr,
                  &OrganizationRoutes::GetInvitation));
    CAIRN_TRY(Add(router, "GET", "list-invitations", "An organization's invitations", nullptr,
                  &OrganizationRoutes::ListInvitations));
    return Add(router, "GET", "list-user-invitations", "Pending invitations to the caller", nullptr,
               &OrganizationRoutes::ListUserInvitations);
  }

 private:
  using Method = Result<Response> (OrganizationRoutes::*)(Request&, const auth::Caller&);
  Status Add(http::Router& router, const char* method, std::string_view path, const char* summary,
             const char* body, Method handler) {
    // Every route needs a session: 401 before anything is looked up (D17).
    return router.Add({Spec(method, "organization/" + std::string(path), summary,
                            SessionUse::kRequired, body, Execution::kWorker),
                       [self = shared_from_this(), handler](Request& request) {
                         return ((*self).*handler)(request, RequireCaller(request));
                       }});
  }

  Result<Response> Create(Request& request, const auth::Caller& caller) {
    const auto& body = Body(request);
    auth::OrganizationService::CreateInput input;
    input.name = RequiredString(body, "name");
    input.slug = RequiredString(body, "slug");
    input.logo = OptionalString(body, "logo");
    if (const auto* metadata = body.if_contains("metadata")) {
      input.metadata_json = boost::json::serialize(*metadata);
    }
    input.keep_current_active = Flag(body, "keepCurrentActiveOrganization", false);
    input.user_id = OptionalString(body, "userId");
    CAIRN_ASSIGN_OR_RETURN(auto created, organizations_.Create(caller, ClientOf(request), input));
    boost::json::object out = OrganizationJson(created.organization);
    out["members"] = boost::json::array{MemberJson(created.member, false)};
    return JsonValue(out);
  }

  Result<Response> CheckSlug(Request& request, const auth::Caller&) {
    CAIRN_TRY(organizations_.CheckSlug(RequiredString(Body(request), "slug")));
    return StatusTrue();
  }

  Result<Response> Update(Request& request, const auth::Caller& caller) {
    const auto& body = Body(request);
    const auto& data = body.at("data").as_object();
    auth::OrganizationService::UpdateInput input;
    input.name = OptionalString(data, "name");
    input.slug = OptionalString(data, "slug");
    if (const auto* logo = data.if_contains("logo")) {
      input.logo = logo->is_string() ? std::optional<std::string>(std::string(logo->get_string()))
                                     : std::nullopt;
    }
    if (const auto* metadata = data.if_contains("metadata")) {
      input.metadata_json = boost::json::serialize(*metadata);
    }
    CAIRN_ASSIGN_OR_RETURN(auto updated,
                           organizations_.Update(caller, ClientOf(request),
                                                 OptionalString(body, "organizationId"), input));
    return JsonValue(OrganizationJson(updated));
  }

  Result<Response> Delete(Request& request, const auth::Caller& caller) {
    CAIRN_ASSIGN_OR_RETURN(auto deleted,
                           organizations_.Delete(caller, ClientOf(request),
                                                 RequiredString(Body(request), "organizationId")));
    return JsonValue(OrganizationJson(deleted));
  }

  Result<Response> List(Request&, const auth::Caller& caller) {
    CAIRN_ASSIGN_OR_RETURN(auto organizations, organizations_.List(caller));
    boost::json::array out;
    for (const auto& organization : organizations) out.push_back(OrganizationJson(organization));
    return JsonValue(out);
  }

  Result<Response> GetFull(Request& request, const auth::Caller& caller) {
    CAIRN_ASSIGN_OR_RETURN(auto limit,
                           QueryInt(request, "membersLimit", auth::kMaxListMembersLimit));
    CAIRN_ASSIGN_OR_RETURN(auto full, organizations_.GetFull(caller, TargetOf(request), limit));
    if (!full) return Json("null");
    boost::json::object out = OrganizationJson(full->organization);
    boost::json::array members, invitations;
    for (const auto& member : full->members) members.push_back(MemberJson(member, true));
    for (const auto& invitation : full->invitations) {
      invitations.push_back(InvitationJson(invitation));
    }
    out["members"] = std::move(members);
    out["invitations"] = std::move(invitations);
    return JsonValue(out);
  }

  Result<Response> SetActive(Request& request, const auth::Caller& caller) {
    const auto& body = Body(request);
    const auto* id = body.if_contains("organizationId");
    const bool clear = id != nullptr && id->is_null();
    CAIRN_ASSIGN_OR_RETURN(auto active,
                           organizations_.SetActive(caller,
                                                    {OptionalString(body, "organizationId"),
                                                     OptionalString(body, "organizationSlug")},
                                                    clear));
    if (!active) return Json("null");
    return JsonValue(OrganizationJson(*active));
  }

  Result<Response> ListMembers(Request& request, const auth::Caller& caller) {
    CAIRN_TRY(RefuseUnsupported(request));
    CAIRN_ASSIGN_OR_RETURN(auto limit, QueryInt(request, "limit", auth::kMaxListMembersLimit));
    CAIRN_ASSIGN_OR_RETURN(auto offset, QueryInt(request, "offset", INT32_MAX));
    CAIRN_ASSIGN_OR_RETURN(auto page, organizations_.ListMembers(caller, TargetOf(request), limit,
                                                                 offset.value_or(0)));
    boost::json::array members;
    for (const auto& member : page.members) members.push_back(MemberJson(member, true));
    return JsonValue(boost::json::object{{"members", std::move(members)}, {"total", page.total}});
  }

  Result<Response> GetActiveMember(Request& request, const auth::Caller& caller) {
    CAIRN_ASSIGN_OR_RETURN(auto member,
                           organizations_.ActiveMember(caller, TargetOf(request), std::nullopt));
    return JsonValue(MemberJson(member, true));
  }

  Result<Response> GetActiveMemberRole(Request& request, const auth::Caller& caller) {
    CAIRN_ASSIGN_OR_RETURN(auto member, organizations_.ActiveMember(caller, TargetOf(request),
                                                                    QueryText(request, "userId")));
    return JsonValue(boost::json::object{{"role", member.role}});
  }

  Result<Response> AddMember(Request& request, const auth::Caller& caller) {
    const auto& body = Body(request);
    CAIRN_ASSIGN_OR_RETURN(
        auto member,
        organizations_.AddMember(caller, ClientOf(request), OptionalString(body, "organizationId"),
                                 RequiredString(body, "userId"), RoleOf(body)));
    return JsonValue(MemberJson(member, false));
  }

  Result<Response> RemoveMember(Request& request, const auth::Caller& caller) {
    const auto& body = Body(request);
    CAIRN_ASSIGN_OR_RETURN(auto member,
                           organizations_.RemoveMember(caller, ClientOf(request),
                                                       OptionalString(body, "organizationId"),
                                                       RequiredString(body, "memberIdOrEmail")));
    return JsonValue(boost::json::object{{"member", MemberJson(member, false)}});
  }

  Result<Response> UpdateMemberRole(Request& request, const auth::Caller& caller) {
    const auto& body = Body(request);
    CAIRN_ASSIGN_OR_RETURN(auto member,
                           organizations_.UpdateMemberRole(
                               caller, ClientOf(request), OptionalString(body, "organizationId"),
                               RequiredString(body, "memberId"), RoleOf(body)));
    return JsonValue(MemberJson(member, false));
  }

  Result<Response> Leave(Request& request, const auth::Caller& caller) {
    CAIRN_ASSIGN_OR_RETURN(auto member,
                           organizations_.Leave(caller, ClientOf(request),
                                                RequiredString(Body(request), "organizationId")));
    return JsonValue(MemberJson(member, false));
  }

  Result<Response> HasPermission(Request& request, const auth::Caller& caller) {
    const auto& body = Body(request);
    // `permission` is Better Auth's deprecated spelling; exactly one of the two is given.
    const auto* permissions = body.if_contains("permissions");
    const auto* permission = body.if_contains("permission");
    if ((permissions == nullptr) == (permission == nullptr)) {
      return Error::Validation("Invalid body",
                               {{"permissions", "give either permissions or permission"}});
    }
    auth::OrganizationService::PermissionQuery query;
    for (const auto& [resource, actions] : (permissions ? permissions : permission)->as_object()) {
      std::vector<std::string> names;
      for (const auto& action : actions.as_array()) names.emplace_back(action.as_string());
      query.emplace_back(std::string(resource), std::move(names));
    }
    CAIRN_ASSIGN_OR_RETURN(
        bool granted,
        organizations_.HasPermission(caller, OptionalString(body, "organizationId"), query));
    return JsonValue(boost::json::object{{"error", nullptr}, {"success", granted}});
  }

  Result<Response> Invite(Request& request, const auth::Caller& caller) {
    const auto& body = Body(request);
    CAIRN_ASSIGN_OR_RETURN(
        auto invitation,
        organizations_.Invite(caller, ClientOf(request), OptionalString(body, "organizationId"),
                              RequiredString(body, "email"), RoleOf(body),
                              Flag(body, "resend", false)));
    return JsonValue(InvitationJson(invitation));
  }

  Result<Response> Accept(Request& request, const auth::Caller& caller) {
    CAIRN_ASSIGN_OR_RETURN(auto accepted,
                           organizations_.Accept(caller, ClientOf(request),
                                                 RequiredString(Body(request), "invitationId")));
    return JsonValue(boost::json::object{{"invitation", InvitationJson(accepted.invitation)},
                                         {"member", MemberJson(accepted.member, false)}});
  }

  Result<Response> Reject(Request& request, const auth::Caller& caller) {
    CAIRN_ASSIGN_OR_RETURN(auto rejected,
                           organizations_.Reject(caller, ClientOf(request),
                                                 RequiredString(Body(request), "invitationId")));
    return JsonValue(
        boost::json::object{{"invitation", InvitationJson(rejected)}, {"member", nullptr}});
  }

  Result<Response> Cancel(Request& request, const auth::Caller& caller) {
    CAIRN_ASSIGN_OR_RETURN(auto canceled,
                           organizations_.Cancel(caller, ClientOf(request),
                                                 RequiredString(Body(request), "invitationId")));
    return JsonValue(InvitationJson(canceled));
  }

  Result<Response> GetInvitation(Request& request, const auth::Caller& caller) {
    const auto id = QueryText(request, "id");
    if (!id) return Error::Validation("Missing query parameter", {{"id", "is required"}});
    CAIRN_ASSIGN_OR_RETURN(auto view, organizations_.GetInvitation(caller, *id));
    boost::json::object out = InvitationJson(view.invitation);
    out["organizationName"] = view.organization_name;
    out["organizationSlug"] = view.organization_slug;
    out["inviterEmail"] = view.inviter_email;
    return JsonValue(out);
  }

  Result<Response> ListInvitations(Request& request, const auth::Caller& caller) {
    CAIRN_ASSIGN_OR_RETURN(auto invitations, organizations_.ListInvitations(
                                                 caller, QueryText(request, "organizationId")));
    boost::json::array out;
    for (const auto& invitation : invitations) out.push_back(InvitationJson(invitation));
    return JsonValue(out);
  }

  Result<Response> ListUserInvitations(Request& request, const auth::Caller& caller) {
    if (request.Query("email")) {
      return auth::AuthError(ErrorCode::kValidation, "BAD_REQUEST",
                             "User email cannot be passed for client side API calls.");
    }
    CAIRN_ASSIGN_OR_RETURN(auto invitations, organizations_.ListUserInvitations(caller));
    boost::json::array out;
    for (const auto& received : invitations) {
      boost::json::object item = InvitationJson(received.invitation);
      item["organizationName"] = received.organization_name;
      out.push_back(std::move(item));
    }
    return JsonValue(out);
  }

  auth::OrganizationService organizations_;
};

}  // namespace

Status AddOrganizationRoutes(http::Router& router, auth::AuthService& auth,
                             std::shared_ptr<mail::Mailer> mailer) {
  return std::make_shared<OrganizationRoutes>(auth, std::move(mailer))->Register(router);
}

}  // namespace cairn::api
