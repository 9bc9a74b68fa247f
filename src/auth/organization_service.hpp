// Better Auth's organization plugin (D19) as a domain service: organizations, members with the
// roles owner, admin and member, invitations by mail, and the session's active organization.
//
// Role rules (Better Auth's default access control): owners may update and delete the
// organization; owners and admins may update it, add, update and remove members, and create and
// cancel invitations; members may do none of these. Only an owner may grant the owner role or
// change or remove an owner, and the last owner can neither leave nor stop being an owner.
//
// A caller who is not a member learns nothing about an organization: every such request answers
// as if it did not exist (404 ORGANIZATION_NOT_FOUND). Every write goes through
// AuthService::Write, so cached sessions never show a stale activeOrganizationId, and is an
// activity entry: organization.create, .update, .delete, organization.member.add, .remove,
// .leave, .update_role, organization.invitation.create, .accept, .reject, .cancel.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "auth/auth_service.hpp"
#include "auth/organization_store.hpp"
#include "mail/mailer.hpp"

namespace cairn::auth {

// Role names of a stored or submitted role list (`"admin,member"`), trimmed, empties dropped.
std::vector<std::string> ParseRoleList(std::string_view roles);

class OrganizationService {
 public:
  OrganizationService(AuthService& auth, std::shared_ptr<mail::Mailer> mailer)
      : auth_(auth), mailer_(std::move(mailer)) {}

  struct CreateInput {
    std::string name, slug;
    std::optional<std::string> logo;
    std::optional<std::string> metadata_json;
    bool keep_current_active = false;
    std::optional<std::string> user_id;  // an admin creating it for someone else
  };
  struct Created {
    Organization organization;
    Member member;
  };
  Result<Created> Create(const Caller& caller, const ClientInfo& client, const CreateInput& input);
  // 400 ORGANIZATION_SLUG_ALREADY_TAKEN when taken.
  Status CheckSlug(std::string_view slug);

  struct UpdateInput {
    std::optional<std::string> name, slug;
    std::optional<std::optional<std::string>> logo;  // null clears it
    std::optional<std::string> metadata_json;
  };
  Result<Organization> Update(const Caller& caller, const ClientInfo& client,
                              std::optional<std::string> organization_id, const UpdateInput& input);
  Result<Organization> Delete(const Caller& caller, const ClientInfo& client,
                              std::string_view organization_id);
  Result<std::vector<Organization>> List(const Caller& caller);

  // Which organization a read names: an id, a slug, or else the session's active one.
  struct Target {
    std::optional<std::string> id, slug;
  };
  struct Full {
    Organization organization;
    std::vector<Member> members;
    std::vector<Invitation> invitations;
  };
  // Nothing when no organization is named and none is active.
  Result<std::optional<Full>> GetFull(const Caller& caller, const Target& target,
                                      std::optional<int> members_limit);
  // `clear`: organizationId null. Nothing when cleared or when nothing is named or active.
  Result<std::optional<Organization>> SetActive(const Caller& caller, const Target& target,
                                                bool clear);

  struct MemberPage {
    std::vector<Member> members;
    std::int64_t total = 0;
  };
  Result<MemberPage> ListMembers(const Caller& caller, const Target& target,
                                 std::optional<int> limit, int offset);
  // The caller's membership of the active organization (`user_id`: another member's).
  Result<Member> ActiveMember(const Caller& caller, const Target& target,
                              std::optional<std::string> user_id);
  // Site admins only: adds a user directly, without an invitation.
  Result<Member> AddMember(const Caller& caller, const ClientInfo& client,
                           std::optional<std::string> organization_id, std::string_view user_id,
                           std::string_view role);
  Result<Member> RemoveMember(const Caller& caller, const ClientInfo& client,
                              std::optional<std::string> organization_id,
                              std::string_view member_id_or_email);
  Result<Member> UpdateMemberRole(const Caller& caller, const ClientInfo& client,
                                  std::optional<std::string> organization_id,
                                  std::string_view member_id, std::string_view role);
  Result<Member> Leave(const Caller& caller, const ClientInfo& client,
                       std::string_view organization_id);

  // Whether the caller's role in the organization grants every action asked for, as
  // {resource: [action, …]} (organization: update, delete; member: create, update, delete;
  // invitation: create, cancel).
  using PermissionQuery = std::vector<std::pair<std::string, std::vector<std::string>>>;
  Result<bool> HasPermission(const Caller& caller, std::optional<std::string> organization_id,
                             const PermissionQuery& permissions);

  // Mails the invitation; `resend` renews a pending one instead of refusing it.
  Result<Invitation> Invite(const Caller& caller, const ClientInfo& client,
                            std::optional<std::string> organization_id, std::string_view email,
                            std::string_view role, bool resend);
  struct Accepted {
    Invitation invitation;
    Member member;
  };
  Result<Accepted> Accept(const Caller& caller, const ClientInfo& client,
                          std::string_view invitation_id);
  Result<Invitation> Reject(const Caller& caller, const ClientInfo& client,
                            std::string_view invitation_id);
  Result<Invitation> Cancel(const Caller& caller, const ClientInfo& client,
                            std::string_view invitation_id);
  struct InvitationView {
    Invitation invitation;
    std::string organization_name, organization_slug, inviter_email;
  };
  Result<InvitationView> GetInvitation(const Caller& caller, std::string_view invitation_id);
  Result<std::vector<Invitation>> ListInvitations(const Caller& caller,
                                                  std::optional<std::string> organization_id);
  Result<std::vector<ReceivedInvitation>> ListUserInvitations(const Caller& caller);

 private:
  // The caller's membership of `organization_id`, or 404 ORGANIZATION_NOT_FOUND.
  static Result<Member> RequireMember(db::Connection& connection, const Caller& caller,
                                      std::string_view organization_id);
  // The explicit id, else the session's active organization, else 400 NO_ACTIVE_ORGANIZATION.
  static Result<std::string> OrganizationOf(const Caller& caller,
                                            const std::optional<std::string>& organization_id);
  // An id, a slug (404 when unknown) or the active organization; empty when none.
  static Result<std::string> Resolve(db::Connection& connection, const Caller& caller,
                                     const Target& target);
  Status SendInvitationMail(const Invitation& invitation);
  Status Read(const std::function<Status(db::Connection&)>& work);

  AuthService& auth_;
  std::shared_ptr<mail::Mailer> mailer_;
};

}  // namespace cairn::auth
