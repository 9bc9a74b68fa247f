#include "auth/organization_service.hpp"

#include <algorithm>
#include <array>

#include "auth/auth_errors.hpp"
#include "auth/limits.hpp"
#include "auth/session_store.hpp"
#include "common/crypto.hpp"
#include "common/log.hpp"
#include "common/time.hpp"

namespace cairn::auth {
namespace {

constexpr std::string_view kOwner = "owner";
constexpr std::string_view kAdmin = "admin";
constexpr std::string_view kMember = "member";

// Better Auth's messages for the reasons used here.
constexpr std::array<std::pair<std::string_view, std::string_view>, 26> kMessages{{
    {"YOU_HAVE_REACHED_THE_MAXIMUM_NUMBER_OF_ORGANIZATIONS",
     "You have reached the maximum number of organizations"},
    {"ORGANIZATION_ALREADY_EXISTS", "Organization already exists"},
    {"ORGANIZATION_SLUG_ALREADY_TAKEN", "Organization slug already taken"},
    {"ORGANIZATION_NOT_FOUND", "Organization not found"},
    {"YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_ORGANIZATION",
     "You are not allowed to update this organization"},
    {"YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_ORGANIZATION",
     "You are not allowed to delete this organization"},
    {"NO_ACTIVE_ORGANIZATION", "No active organization"},
    {"USER_IS_ALREADY_A_MEMBER_OF_THIS_ORGANIZATION",
     "User is already a member of this organization"},
    {"MEMBER_NOT_FOUND", "Member not found"},
    {"ROLE_NOT_FOUND", "Role not found"},
    {"YOU_CANNOT_LEAVE_THE_ORGANIZATION_AS_THE_ONLY_OWNER",
     "You cannot leave the organization as the only owner"},
    {"YOU_CANNOT_LEAVE_THE_ORGANIZATION_WITHOUT_AN_OWNER",
     "You cannot leave the organization without an owner"},
    {"YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_MEMBER", "You are not allowed to delete this member"},
    {"YOU_ARE_NOT_ALLOWED_TO_INVITE_USERS_TO_THIS_ORGANIZATION",
     "You are not allowed to invite users to this organization"},
    {"USER_IS_ALREADY_INVITED_TO_THIS_ORGANIZATION",
     "User is already invited to this organization"},
    {"INVITATION_NOT_FOUND", "Invitation not found"},
    {"YOU_ARE_NOT_THE_RECIPIENT_OF_THE_INVITATION", "You are not the recipient of the invitation"},
    {"EMAIL_VERIFICATION_REQUIRED_FOR_INVITATION",
     "Email verification required to view or list invitations for the session email"},
    {"YOU_ARE_NOT_ALLOWED_TO_CANCEL_THIS_INVITATION",
     "You are not allowed to cancel this invitation"},
    {"YOU_ARE_NOT_ALLOWED_TO_LIST_INVITATIONS",
     "You are not allowed to list invitations for this organization"},
    {"INVITER_IS_NO_LONGER_A_MEMBER_OF_THE_ORGANIZATION",
     "Inviter is no longer a member of the organization"},
    {"YOU_ARE_NOT_ALLOWED_TO_INVITE_USER_WITH_THIS_ROLE",
     "You are not allowed to invite a user with this role"},
    {"YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_MEMBER", "You are not allowed to update this member"},
    {"ORGANIZATION_MEMBERSHIP_LIMIT_REACHED", "Organization membership limit reached"},
    {"INVITATION_LIMIT_REACHED", "Invitation limit reached"},
    {"YOU_ARE_NOT_ALLOWED_TO_ADD_MEMBERS", "Only an administrator may add members directly"},
}};

Error OrgError(ErrorCode code, std::string_view reason) {
  std::string_view message = reason;
  for (const auto& [known, text] : kMessages) {
    if (known == reason) message = text;
  }
  return AuthError(code, reason, message);
}

Error NotFound() {
  return OrgError(ErrorCode::kNotFound, "ORGANIZATION_NOT_FOUND");
}

// Better Auth's default access control: what each role may do.
enum class Permission {
  kUpdateOrganization,
  kDeleteOrganization,
  kManageMembers,  // member: create, update, delete
  kInvite,         // invitation: create
  kCancelInvitation,
};

bool RoleAllows(std::string_view role, Permission permission) {
  if (role == kOwner) return true;
  if (role == kAdmin) return permission != Permission::kDeleteOrganization;
  return false;  // member
}

// The same rules as Better Auth's statements, per resource and action, for has-permission.
// Teams and dynamic roles are not served, so their resources grant nothing.
bool RoleGrants(std::string_view role, std::string_view resource, std::string_view action) {
  if (resource == "organization") {
    if (action == "update") return RoleAllows(role, Permission::kUpdateOrganization);
    if (action == "delete") return RoleAllows(role, Permission::kDeleteOrganization);
  } else if (resource == "member") {
    if (action == "create" || action == "update" || action == "delete") {
      return RoleAllows(role, Permission::kManageMembers);
    }
  } else if (resource == "invitation") {
    if (action == "create") return RoleAllows(role, Permission::kInvite);
    if (action == "cancel") return RoleAllows(role, Permission::kCancelInvitation);
  }
  return false;
}

bool HasRole(std::string_view roles, std::string_view wanted) {
  const auto list = ParseRoleList(roles);
  return std::find(list.begin(), list.end(), wanted) != list.end();
}

bool Allows(std::string_view roles, Permission permission) {
  const auto list = ParseRoleList(roles);
  return std::any_of(list.begin(), list.end(),
                     [&](const std::string& role) { return RoleAllows(role, permission); });
}

// The stored form of a submitted role list; 400 ROLE_NOT_FOUND for an empty or unknown role.
Result<std::string> NormalizeRoles(std::string_view roles) {
  const auto list = ParseRoleList(roles);
  if (list.empty()) return OrgError(ErrorCode::kValidation, "ROLE_NOT_FOUND");
  std::string joined;
  for (const std::string& role : list) {
    if (role != kOwner && role != kAdmin && role != kMember) {
      return AuthError(ErrorCode::kValidation, "ROLE_NOT_FOUND", "ROLE_NOT_FOUND: " + role);
    }
    if (!joined.empty()) joined.push_back(',');
    joined.append(role);
  }
  return joined;
}

Result<std::int64_t> CountOwners(db::Connection& connection, std::string_view organization_id) {
  CAIRN_ASSIGN_OR_RETURN(auto roles, MemberRoles(connection, organization_id));
  return static_cast<std::int64_t>(std::count_if(
      roles.begin(), roles.end(), [](const std::string& role) { return HasRole(role, kOwner); }));
}

Status CheckOrganizationFields(const std::optional<std::string>& name,
                               const std::optional<std::string>& slug,
                               const std::optional<std::string>& logo,
                               const std::optional<std::string>& metadata_json) {
  if (name && (name->empty() || name->size() > kMaxOrganizationNameLength)) {
    return FieldFailure(
        "INVALID_NAME", "name",
        "Name must be 1 to " + std::to_string(kMaxOrganizationNameLength) + " bytes");
  }
  if (slug && (slug->empty() || slug->size() > kMaxOrganizationSlugLength)) {
    return FieldFailure(
        "INVALID_SLUG", "slug",
        "Slug must be 1 to " + std::to_string(kMaxOrganizationSlugLength) + " bytes");
  }
  if (logo && logo->size() > kMaxImageLength) {
    return FieldFailure("INVALID_LOGO", "logo", "Logo URL is too long");
  }
  if (metadata_json && metadata_json->size() > kMaxOrganizationMetadataBytes) {
    return FieldFailure("INVALID_METADATA", "metadata",
                        "Metadata is too large: at most " +
                            std::to_string(kMaxOrganizationMetadataBytes) + " bytes");
  }
  return {};
}

Member NewMember(std::string organization_id, const User& user, std::string role,
                 std::int64_t now) {
  return Member{crypto::RandomAlphanumeric(kIdLength),
                std::move(organization_id),
                user.id,
                std::move(role),
                now,
                {user.id, user.name, user.email, user.image}};
}

}  // namespace

std::vector<std::string> ParseRoleList(std::string_view roles) {
  std::vector<std::string> list;
  while (!roles.empty()) {
    const std::size_t comma = roles.find(',');
    std::string_view role = roles.substr(0, comma);
    roles = comma == std::string_view::npos ? std::string_view() : roles.substr(comma + 1);
    while (!role.empty() && (role.front() == ' ' || role.front() == '\t')) role.remove_prefix(1);
    while (!role.empty() && (role.back() == ' ' || role.back() == '\t')) role.remove_suffix(1);
    if (!role.empty() && std::find(list.begin(), list.end(), role) == list.end()) {
      list.emplace_back(role);
    }
  }
  return list;
}

Status OrganizationService::Read(const std::function<Status(db::Connection&)>& work) {
  return auth_.database().Transaction(db::Access::kRead, work);
}

Result<Member> OrganizationService::RequireMember(db::Connection& connection, const Caller& caller,
                                                  std::string_view organization_id) {
  CAIRN_ASSIGN_OR_RETURN(auto member, FindMember(connection, organization_id, caller.user.id));
  if (!member) return NotFound();
  return std::move(*member);
}

Result<std::string> OrganizationService::OrganizationOf(
    const Caller& caller, const std::optional<std::string>& organization_id) {
  if (organization_id && !organization_id->empty()) return *organization_id;
  if (caller.session.active_organization_id) return *caller.session.active_organization_id;
  return OrgError(ErrorCode::kValidation, "NO_ACTIVE_ORGANIZATION");
}

Result<std::string> OrganizationService::Resolve(db::Connection& connection, const Caller& caller,
                                                 const Target& target) {
  if (target.slug && !target.slug->empty()) {
    CAIRN_ASSIGN_OR_RETURN(auto organization, FindOrganizationBySlug(connection, *target.slug));
    if (!organization) return NotFound();
    return organization->id;
  }
  if (target.id && !target.id->empty()) return *target.id;
  return caller.session.active_organization_id.value_or(std::string());
}

// --- Organizations ------------------------------------------------------------------------------

Result<OrganizationService::Created> OrganizationService::Create(const Caller& caller,
                                                                 const ClientInfo& client,
                                                                 const CreateInput& input) {
  CAIRN_TRY(CheckOrganizationFields(input.name, input.slug, input.logo, input.metadata_json));
  // Better Auth takes userId from the server only; here a site admin may create for someone.
  const bool for_other = input.user_id && *input.user_id != caller.user.id;
  if (for_other && caller.user.role != kAdmin) {
    return AuthError(ErrorCode::kForbidden, "YOU_ARE_NOT_ALLOWED_TO_CREATE_A_NEW_ORGANIZATION",
                     "You are not allowed to create a new organization");
  }
  const std::int64_t now = time::NowMillis();
  Created created;
  Status written = auth_.Write([&](db::Connection& connection) -> Status {
    User owner = caller.user;
    if (for_other) {
      CAIRN_ASSIGN_OR_RETURN(auto found, FindUserById(connection, *input.user_id));
      if (!found) return UserNotFound();
      owner = std::move(*found);
    }
    CAIRN_ASSIGN_OR_RETURN(auto existing, ListOrganizationsOfUser(connection, owner.id));
    if (existing.size() >= kMaxOrganizationsPerUser) {
      return OrgError(ErrorCode::kForbidden,
                      "YOU_HAVE_REACHED_THE_MAXIMUM_NUMBER_OF_ORGANIZATIONS");
    }
    CAIRN_ASSIGN_OR_RETURN(auto taken, FindOrganizationBySlug(connection, input.slug));
    if (taken) return OrgError(ErrorCode::kValidation, "ORGANIZATION_ALREADY_EXISTS");
    created.organization = Organization{crypto::RandomAlphanumeric(kIdLength),
                                        input.name,
                                        input.slug,
                                        input.logo,
                                        input.metadata_json,
                                        now};
    CAIRN_TRY(InsertOrganization(connection, created.organization));
    created.member = NewMember(created.organization.id, owner, std::string(kOwner), now);
    CAIRN_TRY(InsertMember(connection, created.member));
    if (!for_other && !input.keep_current_active) {
      CAIRN_TRY(SetActiveOrganization(connection, caller.session.id,
                                      std::string_view(created.organization.id)));
    }
    boost::json::object metadata{{"organizationId", created.organization.id}};
    if (for_other) metadata["targetUserId"] = owner.id;
    return AuthService::Record(connection, "organization.create", ActorOf(caller, client),
                               std::move(metadata));
  });
  if (!written.ok()) return written.error();
  return created;
}

Status OrganizationService::CheckSlug(std::string_view slug) {
  return Read([&](db::Connection& connection) -> Status {
    CAIRN_ASSIGN_OR_RETURN(auto taken, FindOrganizationBySlug(connection, slug));
    if (taken) return OrgError(ErrorCode::kValidation, "ORGANIZATION_SLUG_ALREADY_TAKEN");
    return {};
  });
}

Result<Organization> OrganizationService::Update(const Caller& caller, const ClientInfo& client,
                                                 std::optional<std::string> organization_id,
                                                 const UpdateInput& input) {
  CAIRN_ASSIGN_OR_RETURN(std::string id, OrganizationOf(caller, organization_id));
  CAIRN_TRY(CheckOrganizationFields(input.name, input.slug, input.logo ? *input.logo : std::nullopt,
                                    input.metadata_json));
  Organization updated;
  CAIRN_TRY(auth_.Write([&](db::Connection& connection) -> Status {
    CAIRN_ASSIGN_OR_RETURN(Member member, RequireMember(connection, caller, id));
    if (!Allows(member.role, Permission::kUpdateOrganization)) {
      return OrgError(ErrorCode::kForbidden, "YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_ORGANIZATION");
    }
    CAIRN_ASSIGN_OR_RETURN(auto organization, FindOrganizationById(connection, id));
    if (!organization) return NotFound();
    if (input.slug && *input.slug != organization->slug) {
      CAIRN_ASSIGN_OR_RETURN(auto taken, FindOrganizationBySlug(connection, *input.slug));
      if (taken) return OrgError(ErrorCode::kValidation, "ORGANIZATION_SLUG_ALREADY_TAKEN");
    }
    updated = std::move(*organization);
    boost::json::array fields;
    if (input.name) {
      updated.name = *input.name;
      fields.emplace_back("name");
    }
    if (input.slug) {
      updated.slug = *input.slug;
      fields.emplace_back("slug");
    }
    if (input.logo) {
      updated.logo = *input.logo;
      fields.emplace_back("logo");
    }
    if (input.metadata_json) {
      updated.metadata_json = input.metadata_json;
      fields.emplace_back("metadata");
    }
    CAIRN_TRY(UpdateOrganization(connection, updated));
    return AuthService::Record(connection, "organization.update", ActorOf(caller, client),
                               {{"organizationId", id}, {"fields", std::move(fields)}});
  }));
  return updated;
}

Result<Organization> OrganizationService::Delete(const Caller& caller, const ClientInfo& client,
                                                 std::string_view organization_id) {
  Organization deleted;
  CAIRN_TRY(auth_.Write([&](db::Connection& connection) -> Status {
    CAIRN_ASSIGN_OR_RETURN(Member member, RequireMember(connection, caller, organization_id));
    if (!Allows(member.role, Permission::kDeleteOrganization)) {
      return OrgError(ErrorCode::kForbidden, "YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_ORGANIZATION");
    }
    CAIRN_ASSIGN_OR_RETURN(auto organization, FindOrganizationById(connection, organization_id));
    if (!organization) return NotFound();
    deleted = std::move(*organization);
    // Every session that had it active loses it, not only the caller's.
    CAIRN_TRY(ClearActiveOrganization(connection, organization_id, std::nullopt));
    CAIRN_TRY(DeleteOrganization(connection, organization_id));
    return AuthService::Record(connection, "organization.delete", ActorOf(caller, client),
                               {{"organizationId", deleted.id}});
  }));
  return deleted;
}

Result<std::vector<Organization>> OrganizationService::List(const Caller& caller) {
  std::vector<Organization> organizations;
  CAIRN_TRY(Read([&](db::Connection& connection) -> Status {
    CAIRN_ASSIGN_OR_RETURN(organizations, ListOrganizationsOfUser(connection, caller.user.id));
    return {};
  }));
  return organizations;
}

Result<std::optional<OrganizationService::Full>> OrganizationService::GetFull(
    const Caller& caller, const Target& target, std::optional<int> members_limit) {
  std::optional<Full> full;
  bool stale_active = false;
  Status read = Read([&](db::Connection& connection) -> Status {
    full.reset();
    CAIRN_ASSIGN_OR_RETURN(std::string id, Resolve(connection, caller, target));
    if (id.empty()) return {};
    CAIRN_ASSIGN_OR_RETURN(auto member, FindMember(connection, id, caller.user.id));
    CAIRN_ASSIGN_OR_RETURN(auto organization, FindOrganizationById(connection, id));
    if (!member || !organization) {
      stale_active = caller.session.active_organization_id == id;
      return NotFound();
    }
    full.emplace();
    full->organization = std::move(*organization);
    const int limit = static_cast<int>(std::min<std::int64_t>(
        members_limit.value_or(kMaxMembersPerOrganization), kMaxMembersPerOrganization));
    CAIRN_ASSIGN_OR_RETURN(full->members, auth::ListMembers(connection, id, limit, 0));
    // Invitation ids are invitation links: only those who may invite see them, and only an
    // owner sees invitations that grant the owner role.
    if (Allows(member->role, Permission::kInvite)) {
      CAIRN_ASSIGN_OR_RETURN(auto invitations, auth::ListInvitations(connection, id));
      const bool owner = HasRole(member->role, kOwner);
      for (Invitation& invitation : invitations) {
        if (owner || !HasRole(invitation.role, kOwner)) {
          full->invitations.push_back(std::move(invitation));
        }
      }
    }
    return {};
  });
  if (!read.ok()) {
    // As Better Auth does: an active organization the caller cannot see any more is dropped.
    if (stale_active) {
      CAIRN_TRY(auth_.Write([&](db::Connection& connection) {
        return SetActiveOrganization(connection, caller.session.id, std::nullopt);
      }));
    }
    return read.error();
  }
  return full;
}

Result<std::optional<Organization>> OrganizationService::SetActive(const Caller& caller,
                                                                   const Target& target,
                                                                   bool clear) {
  if (clear) {
    if (!caller.session.active_organization_id) return std::optional<Organization>();
    CAIRN_TRY(auth_.Write([&](db::Connection& connection) {
      return SetActiveOrganization(connection, caller.session.id, std::nullopt);
    }));
    return std::optional<Organization>();
  }
  // Here an id wins over a slug (Better Auth's order for set-active; reads prefer the slug).
  Target named = target;
  if (named.id && !named.id->empty()) named.slug.reset();
  std::optional<Organization> active;
  bool not_member = false;
  Status written = auth_.Write([&](db::Connection& connection) -> Status {
    CAIRN_ASSIGN_OR_RETURN(std::string id, Resolve(connection, caller, named));
    if (id.empty()) return {};
    CAIRN_ASSIGN_OR_RETURN(auto member, FindMember(connection, id, caller.user.id));
    CAIRN_ASSIGN_OR_RETURN(auto organization, FindOrganizationById(connection, id));
    if (!member || !organization) {
      not_member = true;
      // As Better Auth does: a refused switch leaves no organization active.
      return SetActiveOrganization(connection, caller.session.id, std::nullopt);
    }
    active = std::move(*organization);
    return SetActiveOrganization(connection, caller.session.id, std::string_view(active->id));
  });
  if (!written.ok()) return written.error();
  if (not_member) return NotFound();
  return active;
}

// --- Members ------------------------------------------------------------------------------------

Result<OrganizationService::MemberPage> OrganizationService::ListMembers(const Caller& caller,
                                                                         const Target& target,
                                                                         std::optional<int> limit,
                                                                         int offset) {
  MemberPage page;
  CAIRN_TRY(Read([&](db::Connection& connection) -> Status {
    CAIRN_ASSIGN_OR_RETURN(std::string id, Resolve(connection, caller, target));
    if (id.empty()) return OrgError(ErrorCode::kValidation, "NO_ACTIVE_ORGANIZATION");
    CAIRN_TRY(RequireMember(connection, caller, id));
    CAIRN_ASSIGN_OR_RETURN(
        page.members,
        auth::ListMembers(connection, id,
                          limit.value_or(static_cast<int>(kMaxMembersPerOrganization)), offset));
    CAIRN_ASSIGN_OR_RETURN(page.total, CountMembers(connection, id));
    return {};
  }));
  return page;
}

Result<Member> OrganizationService::ActiveMember(const Caller& caller, const Target& target,
                                                 std::optional<std::string> user_id) {
  Member found;
  CAIRN_TRY(Read([&](db::Connection& connection) -> Status {
    CAIRN_ASSIGN_OR_RETURN(std::string id, Resolve(connection, caller, target));
    if (id.empty()) return OrgError(ErrorCode::kValidation, "NO_ACTIVE_ORGANIZATION");
    CAIRN_ASSIGN_OR_RETURN(found, RequireMember(connection, caller, id));
    if (user_id && *user_id != caller.user.id) {
      CAIRN_ASSIGN_OR_RETURN(auto other, FindMember(connection, id, *user_id));
      if (!other) return OrgError(ErrorCode::kNotFound, "MEMBER_NOT_FOUND");
      found = std::move(*other);
    }
    return {};
  }));
  return found;
}

Result<Member> OrganizationService::AddMember(const Caller& caller, const ClientInfo& client,
                                              std::optional<std::string> organization_id,
                                              std::string_view user_id, std::string_view role) {
  // Better Auth serves add-member to its server code only; cairn's server-side caller is a
  // site admin.
  if (caller.user.role != kAdmin) {
    return OrgError(ErrorCode::kForbidden, "YOU_ARE_NOT_ALLOWED_TO_ADD_MEMBERS");
  }
  CAIRN_ASSIGN_OR_RETURN(std::string id, OrganizationOf(caller, organization_id));
  CAIRN_ASSIGN_OR_RETURN(std::string roles, NormalizeRoles(role));
  Member added;
  CAIRN_TRY(auth_.Write([&](db::Connection& connection) -> Status {
    CAIRN_ASSIGN_OR_RETURN(auto organization, FindOrganizationById(connection, id));
    if (!organization) return NotFound();
    CAIRN_ASSIGN_OR_RETURN(auto user, FindUserById(connection, user_id));
    if (!user) return UserNotFound();
    CAIRN_ASSIGN_OR_RETURN(auto existing, FindMember(connection, id, user->id));
    if (existing) {
      return OrgError(ErrorCode::kValidation, "USER_IS_ALREADY_A_MEMBER_OF_THIS_ORGANIZATION");
    }
    CAIRN_ASSIGN_OR_RETURN(std::int64_t count, CountMembers(connection, id));
    if (count >= kMaxMembersPerOrganization) {
      return OrgError(ErrorCode::kForbidden, "ORGANIZATION_MEMBERSHIP_LIMIT_REACHED");
    }
    added = NewMember(id, *user, roles, time::NowMillis());
    CAIRN_TRY(InsertMember(connection, added));
    return AuthService::Record(connection, "organization.member.add", ActorOf(caller, client),
                               {{"organizationId", id},
                                {"memberId", added.id},
                                {"targetUserId", added.user_id},
                                {"role", added.role}});
  }));
  return added;
}

Result<Member> OrganizationService::RemoveMember(const Caller& caller, const ClientInfo& client,
                                                 std::optional<std::string> organization_id,
                                                 std::string_view member_id_or_email) {
  CAIRN_ASSIGN_OR_RETURN(std::string id, OrganizationOf(caller, organization_id));
  Member removed;
  CAIRN_TRY(auth_.Write([&](db::Connection& connection) -> Status {
    CAIRN_ASSIGN_OR_RETURN(Member member, RequireMember(connection, caller, id));
    std::optional<Member> target;
    if (member_id_or_email.find('@') != std::string_view::npos) {
      CAIRN_ASSIGN_OR_RETURN(auto user,
                             FindUserByEmail(connection, NormalizeEmail(member_id_or_email)));
      if (user) {
        CAIRN_ASSIGN_OR_RETURN(target, FindMember(connection, id, user->id));
      }
    } else {
      CAIRN_ASSIGN_OR_RETURN(target, FindMemberById(connection, member_id_or_email));
    }
    if (!target || target->organization_id != id) {
      return OrgError(ErrorCode::kNotFound, "MEMBER_NOT_FOUND");
    }
    if (!Allows(member.role, Permission::kManageMembers)) {
      return OrgError(ErrorCode::kForbidden, "YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_MEMBER");
    }
    if (HasRole(target->role, kOwner)) {
      if (!HasRole(member.role, kOwner)) {
        return OrgError(ErrorCode::kForbidden, "YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_MEMBER");
      }
      CAIRN_ASSIGN_OR_RETURN(std::int64_t owners, CountOwners(connection, id));
      if (owners <= 1) {
        return OrgError(ErrorCode::kValidation,
                        "YOU_CANNOT_LEAVE_THE_ORGANIZATION_AS_THE_ONLY_OWNER");
      }
    }
    removed = std::move(*target);
    CAIRN_TRY(DeleteMember(connection, removed.id));
    CAIRN_TRY(ClearActiveOrganization(connection, id, std::string_view(removed.user_id)));
    return AuthService::Record(
        connection, "organization.member.remove", ActorOf(caller, client),
        {{"organizationId", id}, {"memberId", removed.id}, {"targetUserId", removed.user_id}});
  }));
  return removed;
}

Result<Member> OrganizationService::UpdateMemberRole(const Caller& caller, const ClientInfo& client,
                                                     std::optional<std::string> organization_id,
                                                     std::string_view member_id,
                                                     std::string_view role) {
  CAIRN_ASSIGN_OR_RETURN(std::string roles, NormalizeRoles(role));
  CAIRN_ASSIGN_OR_RETURN(std::string id, OrganizationOf(caller, organization_id));
  Member updated;
  CAIRN_TRY(auth_.Write([&](db::Connection& connection) -> Status {
    CAIRN_ASSIGN_OR_RETURN(Member member, RequireMember(connection, caller, id));
    CAIRN_ASSIGN_OR_RETURN(auto target, FindMemberById(connection, member_id));
    if (!target || target->organization_id != id) {
      return OrgError(ErrorCode::kNotFound, "MEMBER_NOT_FOUND");
    }
    const bool caller_is_owner = HasRole(member.role, kOwner);
    const bool setting_owner = HasRole(roles, kOwner);
    if (!Allows(member.role, Permission::kManageMembers) ||
        ((HasRole(target->role, kOwner) || setting_owner) && !caller_is_owner)) {
      return OrgError(ErrorCode::kForbidden, "YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_MEMBER");
    }
    if (HasRole(target->role, kOwner) && !setting_owner) {
      CAIRN_ASSIGN_OR_RETURN(std::int64_t owners, CountOwners(connection, id));
      if (owners <= 1) {
        return OrgError(ErrorCode::kValidation,
                        "YOU_CANNOT_LEAVE_THE_ORGANIZATION_WITHOUT_AN_OWNER");
      }
    }
    const std::string previous = target->role;
    updated = std::move(*target);
    updated.role = roles;
    CAIRN_TRY(auth::UpdateMemberRole(connection, updated.id, roles));
    return AuthService::Record(connection, "organization.member.update_role",
                               ActorOf(caller, client),
                               {{"organizationId", id},
                                {"memberId", updated.id},
                                {"targetUserId", updated.user_id},
                                {"previousRole", previous},
                                {"role", roles}});
  }));
  return updated;
}

Result<Member> OrganizationService::Leave(const Caller& caller, const ClientInfo& client,
                                          std::string_view organization_id) {
  Member left;
  CAIRN_TRY(auth_.Write([&](db::Connection& connection) -> Status {
    CAIRN_ASSIGN_OR_RETURN(left, RequireMember(connection, caller, organization_id));
    if (HasRole(left.role, kOwner)) {
      CAIRN_ASSIGN_OR_RETURN(std::int64_t owners, CountOwners(connection, organization_id));
      if (owners <= 1) {
        return OrgError(ErrorCode::kValidation,
                        "YOU_CANNOT_LEAVE_THE_ORGANIZATION_AS_THE_ONLY_OWNER");
      }
    }
    CAIRN_TRY(DeleteMember(connection, left.id));
    CAIRN_TRY(
        ClearActiveOrganization(connection, organization_id, std::string_view(caller.user.id)));
    return AuthService::Record(connection, "organization.member.leave", ActorOf(caller, client),
                               {{"organizationId", left.organization_id}, {"memberId", left.id}});
  }));
  return left;
}

Result<bool> OrganizationService::HasPermission(const Caller& caller,
                                                std::optional<std::string> organization_id,
                                                const PermissionQuery& permissions) {
  CAIRN_ASSIGN_OR_RETURN(std::string id, OrganizationOf(caller, organization_id));
  Member member;
  CAIRN_TRY(Read([&](db::Connection& connection) -> Status {
    CAIRN_ASSIGN_OR_RETURN(member, RequireMember(connection, caller, id));
    return {};
  }));
  // One of the member's roles must grant every action asked for (Better Auth's `authorize`).
  const auto roles = ParseRoleList(member.role);
  return std::any_of(roles.begin(), roles.end(), [&](const std::string& role) {
    return !permissions.empty() &&
           std::all_of(permissions.begin(), permissions.end(), [&](const auto& entry) {
             return std::all_of(
                 entry.second.begin(), entry.second.end(),
                 [&](const std::string& action) { return RoleGrants(role, entry.first, action); });
           });
  });
}

// --- Invitations --------------------------------------------------------------------------------

Status OrganizationService::SendInvitationMail(const Invitation& invitation) {
  mail::Message message;
  message.to = invitation.email;
  message.subject = "You have been invited to an organization";
  // No text chosen by the inviter (the organization's name) goes into the mail, so that an
  // invitation cannot put someone's words in front of a stranger.
  const std::string hours = std::to_string(kInvitationLifetimeMillis / (60 * 60 * 1000));
  const std::string link =
      auth_.options().base_url + "/api/auth/organization/get-invitation?id=" + invitation.id;
  message.text = "Hello,\r\n\r\nYou have been invited to join an organization as " +
                 invitation.role +
                 ". To accept, sign in with this address and accept the invitation with this id "
                 "within " +
                 hours + " hours:\r\n\r\n" + invitation.id + "\r\n\r\n" + link +
                 "\r\n\r\nIf you do not want to join, ignore this message.\r\n";
  if (Status sent = mailer_->Send(message); !sent.ok()) {
    log::Error("cannot send the invitation mail: " + sent.error().message + " " +
               sent.error().detail);
    return Error::Unavailable("The email could not be sent; try again later", sent.error().detail);
  }
  return {};
}

Result<Invitation> OrganizationService::Invite(const Caller& caller, const ClientInfo& client,
                                               std::optional<std::string> organization_id,
                                               std::string_view email_input, std::string_view role,
                                               bool resend) {
  CAIRN_ASSIGN_OR_RETURN(std::string id, OrganizationOf(caller, organization_id));
  const std::string email = NormalizeEmail(email_input);
  if (email.empty()) return FieldFailure("INVALID_EMAIL", "email", "Invalid email");
  CAIRN_ASSIGN_OR_RETURN(std::string roles, NormalizeRoles(role));
  const std::int64_t now = time::NowMillis();
  Invitation invitation;
  CAIRN_TRY(auth_.Write([&](db::Connection& connection) -> Status {
    CAIRN_ASSIGN_OR_RETURN(Member member, RequireMember(connection, caller, id));
    if (!Allows(member.role, Permission::kInvite)) {
      return OrgError(ErrorCode::kForbidden,
                      "YOU_ARE_NOT_ALLOWED_TO_INVITE_USERS_TO_THIS_ORGANIZATION");
    }
    if (HasRole(roles, kOwner) && !HasRole(member.role, kOwner)) {
      return OrgError(ErrorCode::kForbidden, "YOU_ARE_NOT_ALLOWED_TO_INVITE_USER_WITH_THIS_ROLE");
    }
    CAIRN_ASSIGN_OR_RETURN(auto user, FindUserByEmail(connection, email));
    if (user) {
      CAIRN_ASSIGN_OR_RETURN(auto existing, FindMember(connection, id, user->id));
      if (existing) {
        return OrgError(ErrorCode::kValidation, "USER_IS_ALREADY_A_MEMBER_OF_THIS_ORGANIZATION");
      }
    }
    CAIRN_ASSIGN_OR_RETURN(auto pending, FindPendingInvitation(connection, id, email, now));
    if (pending) {
      if (!resend) {
        return OrgError(ErrorCode::kValidation, "USER_IS_ALREADY_INVITED_TO_THIS_ORGANIZATION");
      }
      if (HasRole(pending->role, kOwner) && !HasRole(member.role, kOwner)) {
        return OrgError(ErrorCode::kForbidden, "YOU_ARE_NOT_ALLOWED_TO_INVITE_USER_WITH_THIS_ROLE");
      }
      invitation = std::move(*pending);
      invitation.expires_at = now + kInvitationLifetimeMillis;
      CAIRN_TRY(SetInvitationExpiry(connection, invitation.id, invitation.expires_at));
      return AuthService::Record(connection, "organization.invitation.create",
                                 ActorOf(caller, client),
                                 {{"organizationId", id},
                                  {"invitationId", invitation.id},
                                  {"role", invitation.role},
                                  {"resent", true}});
    }
    CAIRN_ASSIGN_OR_RETURN(std::int64_t open, CountPendingInvitations(connection, id, now));
    if (open >= kMaxPendingInvitationsPerOrganization) {
      return OrgError(ErrorCode::kForbidden, "INVITATION_LIMIT_REACHED");
    }
    invitation = Invitation{
        crypto::RandomAlphanumeric(kIdLength), id, email, roles, "pending", caller.user.id,
        now + kInvitationLifetimeMillis,       now};
    CAIRN_TRY(InsertInvitation(connection, invitation));
    return AuthService::Record(
        connection, "organization.invitation.create", ActorOf(caller, client),
        {{"organizationId", id}, {"invitationId", invitation.id}, {"role", invitation.role}});
  }));
  CAIRN_TRY(SendInvitationMail(invitation));
  return invitation;
}

Result<OrganizationService::Accepted> OrganizationService::Accept(const Caller& caller,
                                                                  const ClientInfo& client,
                                                                  std::string_view invitation_id) {
  const std::int64_t now = time::NowMillis();
  Accepted accepted;
  CAIRN_TRY(auth_.Write([&](db::Connection& connection) -> Status {
    CAIRN_ASSIGN_OR_RETURN(auto invitation, FindInvitation(connection, invitation_id));
    if (!invitation || invitation->status != "pending" || invitation->expires_at <= now) {
      return OrgError(ErrorCode::kNotFound, "INVITATION_NOT_FOUND");
    }
    if (invitation->email != caller.user.email) {
      return OrgError(ErrorCode::kForbidden, "YOU_ARE_NOT_THE_RECIPIENT_OF_THE_INVITATION");
    }
    CAIRN_ASSIGN_OR_RETURN(auto existing,
                           FindMember(connection, invitation->organization_id, caller.user.id));
    if (existing) {
      return OrgError(ErrorCode::kValidation, "USER_IS_ALREADY_A_MEMBER_OF_THIS_ORGANIZATION");
    }
    CAIRN_ASSIGN_OR_RETURN(std::int64_t count,
                           CountMembers(connection, invitation->organization_id));
    if (count >= kMaxMembersPerOrganization) {
      return OrgError(ErrorCode::kForbidden, "ORGANIZATION_MEMBERSHIP_LIMIT_REACHED");
    }
    CAIRN_ASSIGN_OR_RETURN(bool moved,
                           SetInvitationStatus(connection, invitation->id, "pending", "accepted"));
    if (!moved) return OrgError(ErrorCode::kNotFound, "INVITATION_NOT_FOUND");
    accepted.invitation = std::move(*invitation);
    accepted.invitation.status = "accepted";
    accepted.member =
        NewMember(accepted.invitation.organization_id, caller.user, accepted.invitation.role, now);
    CAIRN_TRY(InsertMember(connection, accepted.member));
    CAIRN_TRY(SetActiveOrganization(connection, caller.session.id,
                                    std::string_view(accepted.invitation.organization_id)));
    return AuthService::Record(connection, "organization.invitation.accept",
                               ActorOf(caller, client),
                               {{"organizationId", accepted.invitation.organization_id},
                                {"invitationId", accepted.invitation.id},
                                {"memberId", accepted.member.id},
                                {"role", accepted.member.role}});
  }));
  return accepted;
}

Result<Invitation> OrganizationService::Reject(const Caller& caller, const ClientInfo& client,
                                               std::string_view invitation_id) {
  Invitation rejected;
  CAIRN_TRY(auth_.Write([&](db::Connection& connection) -> Status {
    CAIRN_ASSIGN_OR_RETURN(auto invitation, FindInvitation(connection, invitation_id));
    if (!invitation || invitation->status != "pending") {
      return OrgError(ErrorCode::kNotFound, "INVITATION_NOT_FOUND");
    }
    if (invitation->email != caller.user.email) {
      return OrgError(ErrorCode::kForbidden, "YOU_ARE_NOT_THE_RECIPIENT_OF_THE_INVITATION");
    }
    CAIRN_ASSIGN_OR_RETURN(bool moved,
                           SetInvitationStatus(connection, invitation->id, "pending", "rejected"));
    if (!moved) return OrgError(ErrorCode::kNotFound, "INVITATION_NOT_FOUND");
    rejected = std::move(*invitation);
    rejected.status = "rejected";
    return AuthService::Record(
        connection, "organization.invitation.reject", ActorOf(caller, client),
        {{"organizationId", rejected.organization_id}, {"invitationId", rejected.id}});
  }));
  return rejected;
}

Result<Invitation> OrganizationService::Cancel(const Caller& caller, const ClientInfo& client,
                                               std::string_view invitation_id) {
  Invitation canceled;
  CAIRN_TRY(auth_.Write([&](db::Connection& connection) -> Status {
    CAIRN_ASSIGN_OR_RETURN(auto invitation, FindInvitation(connection, invitation_id));
    if (!invitation) return OrgError(ErrorCode::kNotFound, "INVITATION_NOT_FOUND");
    // Someone outside the organization learns nothing about its invitations.
    CAIRN_ASSIGN_OR_RETURN(auto member,
                           FindMember(connection, invitation->organization_id, caller.user.id));
    if (!member) return OrgError(ErrorCode::kNotFound, "INVITATION_NOT_FOUND");
    if (!Allows(member->role, Permission::kCancelInvitation)) {
      return OrgError(ErrorCode::kForbidden, "YOU_ARE_NOT_ALLOWED_TO_CANCEL_THIS_INVITATION");
    }
    CAIRN_ASSIGN_OR_RETURN(bool moved,
                           SetInvitationStatus(connection, invitation->id, "pending", "canceled"));
    if (!moved) return OrgError(ErrorCode::kNotFound, "INVITATION_NOT_FOUND");
    canceled = std::move(*invitation);
    canceled.status = "canceled";
    return AuthService::Record(
        connection, "organization.invitation.cancel", ActorOf(caller, client),
        {{"organizationId", canceled.organization_id}, {"invitationId", canceled.id}});
  }));
  return canceled;
}

Result<OrganizationService::InvitationView> OrganizationService::GetInvitation(
    const Caller& caller, std::string_view invitation_id) {
  InvitationView view;
  const std::int64_t now = time::NowMillis();
  CAIRN_TRY(Read([&](db::Connection& connection) -> Status {
    CAIRN_ASSIGN_OR_RETURN(auto invitation, FindInvitation(connection, invitation_id));
    if (!invitation || invitation->status != "pending" || invitation->expires_at <= now) {
      return OrgError(ErrorCode::kNotFound, "INVITATION_NOT_FOUND");
    }
    if (invitation->email != caller.user.email) {
      return OrgError(ErrorCode::kForbidden, "YOU_ARE_NOT_THE_RECIPIENT_OF_THE_INVITATION");
    }
    CAIRN_ASSIGN_OR_RETURN(auto organization,
                           FindOrganizationById(connection, invitation->organization_id));
    if (!organization) return NotFound();
    std::optional<Member> inviter;
    if (invitation->inviter_id) {
      CAIRN_ASSIGN_OR_RETURN(
          inviter, FindMember(connection, invitation->organization_id, *invitation->inviter_id));
    }
    if (!inviter) {
      return OrgError(ErrorCode::kValidation, "INVITER_IS_NO_LONGER_A_MEMBER_OF_THE_ORGANIZATION");
    }
    view = InvitationView{std::move(*invitation), organization->name, organization->slug,
                          inviter->user.email};
    return {};
  }));
  return view;
}

Result<std::vector<Invitation>> OrganizationService::ListInvitations(
    const Caller& caller, std::optional<std::string> organization_id) {
  CAIRN_ASSIGN_OR_RETURN(std::string id, OrganizationOf(caller, organization_id));
  std::vector<Invitation> visible;
  CAIRN_TRY(Read([&](db::Connection& connection) -> Status {
    visible.clear();
    CAIRN_ASSIGN_OR_RETURN(Member member, RequireMember(connection, caller, id));
    if (!Allows(member.role, Permission::kInvite)) {
      return OrgError(ErrorCode::kForbidden, "YOU_ARE_NOT_ALLOWED_TO_LIST_INVITATIONS");
    }
    CAIRN_ASSIGN_OR_RETURN(auto invitations, auth::ListInvitations(connection, id));
    const bool owner = HasRole(member.role, kOwner);
    for (Invitation& invitation : invitations) {
      if (owner || !HasRole(invitation.role, kOwner)) visible.push_back(std::move(invitation));
    }
    return {};
  }));
  return visible;
}

Result<std::vector<ReceivedInvitation>> OrganizationService::ListUserInvitations(
    const Caller& caller) {
  // Anyone may sign up with any address: only a verified one shows what was sent to it.
  if (!caller.user.email_verified) {
    return OrgError(ErrorCode::kForbidden, "EMAIL_VERIFICATION_REQUIRED_FOR_INVITATION");
  }
  std::vector<ReceivedInvitation> invitations;
  CAIRN_TRY(Read([&](db::Connection& connection) -> Status {
    CAIRN_ASSIGN_OR_RETURN(invitations,
                           ListInvitationsTo(connection, caller.user.email, time::NowMillis()));
    return {};
  }));
  return invitations;
}

}  // namespace cairn::auth
