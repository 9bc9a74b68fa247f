// SQL for organizations, their members and invitations (D19). Every function runs inside the
// caller's transaction; values are always bound.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "db/database.hpp"

namespace cairn::auth {

struct Organization {
  std::string id;
  std::string name;
  std::string slug;
  std::optional<std::string> logo;
  std::optional<std::string> metadata_json;  // a JSON object, as given
  std::int64_t created_at = 0;
};

// The public part of a member's user, as Better Auth shows it with a member.
struct MemberUser {
  std::string id, name, email;
  std::optional<std::string> image;
};

struct Member {
  std::string id;
  std::string organization_id;
  std::string user_id;
  std::string role;  // comma-separated role names
  std::int64_t created_at = 0;
  MemberUser user;
};

struct Invitation {
  std::string id;
  std::string organization_id;
  std::string email;
  std::string role;
  std::string status;                     // pending | accepted | rejected | canceled
  std::optional<std::string> inviter_id;  // null once the inviter's account is erased
  std::int64_t expires_at = 0;
  std::int64_t created_at = 0;
};

Status InsertOrganization(db::Connection& connection, const Organization& organization);
Result<std::optional<Organization>> FindOrganizationById(db::Connection& connection,
                                                         std::string_view id);
Result<std::optional<Organization>> FindOrganizationBySlug(db::Connection& connection,
                                                           std::string_view slug);
// Writes name, slug, logo and metadata.
Status UpdateOrganization(db::Connection& connection, const Organization& organization);
// The organization, its members and its invitations.
Status DeleteOrganization(db::Connection& connection, std::string_view id);
// The organizations the user is a member of, oldest membership first.
Result<std::vector<Organization>> ListOrganizationsOfUser(db::Connection& connection,
                                                          std::string_view user_id);

Status InsertMember(db::Connection& connection, const Member& member);
// With the member's user.
Result<std::optional<Member>> FindMember(db::Connection& connection,
                                         std::string_view organization_id,
                                         std::string_view user_id);
Result<std::optional<Member>> FindMemberById(db::Connection& connection, std::string_view id);
// Members with their users, oldest first.
Result<std::vector<Member>> ListMembers(db::Connection& connection,
                                        std::string_view organization_id, int limit, int offset);
Result<std::int64_t> CountMembers(db::Connection& connection, std::string_view organization_id);
// The role lists of every member (to count owners).
Result<std::vector<std::string>> MemberRoles(db::Connection& connection,
                                             std::string_view organization_id);
Status UpdateMemberRole(db::Connection& connection, std::string_view id, std::string_view role);
Status DeleteMember(db::Connection& connection, std::string_view id);

Status InsertInvitation(db::Connection& connection, const Invitation& invitation);
Result<std::optional<Invitation>> FindInvitation(db::Connection& connection, std::string_view id);
// Pending and not expired at `now`, to this address in this organization.
Result<std::optional<Invitation>> FindPendingInvitation(db::Connection& connection,
                                                        std::string_view organization_id,
                                                        std::string_view email, std::int64_t now);
Result<std::int64_t> CountPendingInvitations(db::Connection& connection,
                                             std::string_view organization_id, std::int64_t now);
// Every invitation of the organization, newest first.
Result<std::vector<Invitation>> ListInvitations(db::Connection& connection,
                                                std::string_view organization_id);
// Pending, unexpired invitations to this address, each with its organization's name.
struct ReceivedInvitation {
  Invitation invitation;
  std::string organization_name;
};
Result<std::vector<ReceivedInvitation>> ListInvitationsTo(db::Connection& connection,
                                                          std::string_view email, std::int64_t now);
// Moves the invitation from `from` to `to`; false when it was not in `from` any more.
Result<bool> SetInvitationStatus(db::Connection& connection, std::string_view id,
                                 std::string_view from, std::string_view to);
Status SetInvitationExpiry(db::Connection& connection, std::string_view id,
                           std::int64_t expires_at);

// An AccountErasureHook (D19a): the invitations sent to the user's address go, the user's
// invitations lose their inviter, the memberships go, and organizations left with no member at
// all go with their invitations. (An organization whose only owner is erased keeps its other
// members, with no owner.)
Status ForgetOrganizationMember(db::Connection& connection, std::string_view user_id);

}  // namespace cairn::auth
