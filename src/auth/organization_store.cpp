#include "auth/organization_store.hpp"

namespace cairn::auth {
namespace {

db::Value Optional(const std::optional<std::string>& text) {
  if (!text) return db::Null{};
  return std::string_view(*text);
}

std::optional<std::string> OptionalText(const db::Row& row, int column) {
  if (row.IsNull(column)) return std::nullopt;
  return std::string(row.GetText(column));
}

constexpr const char* kOrganizationColumns =
    R"(o."id", o."name", o."slug", o."logo", o."metadata", o."created_at")";

Organization ReadOrganization(const db::Row& row) {
  return Organization{std::string(row.GetText(0)), std::string(row.GetText(1)),
                      std::string(row.GetText(2)), OptionalText(row, 3),
                      OptionalText(row, 4),        row.GetInt64(5)};
}

Result<std::optional<Organization>> FindOrganization(db::Connection& connection,
                                                     std::string_view column,
                                                     std::string_view key) {
  const std::string sql = std::string("SELECT ") + kOrganizationColumns +
                          R"( FROM "_cairn_auth_organizations" o WHERE o.")" + std::string(column) +
                          "\" = ?";
  std::optional<Organization> found;
  CAIRN_TRY(
      connection.Execute(sql, {key}, [&](const db::Row& row) { found = ReadOrganization(row); }));
  return found;
}

// A member joined with its user.
constexpr const char* kMemberSelect =
    R"(SELECT m."id", m."organization_id", m."user_id", m."role", m."created_at", )"
    R"(u."name", u."email", u."image" FROM "_cairn_auth_members" m )"
    R"(JOIN "_cairn_auth_users" u ON u."id" = m."user_id" )";

Member ReadMember(const db::Row& row) {
  Member member{std::string(row.GetText(0)),
                std::string(row.GetText(1)),
                std::string(row.GetText(2)),
                std::string(row.GetText(3)),
                row.GetInt64(4),
                {}};
  member.user = MemberUser{member.user_id, std::string(row.GetText(5)), std::string(row.GetText(6)),
                           OptionalText(row, 7)};
  return member;
}

constexpr const char* kInvitationColumns =
    R"(i."id", i."organization_id", i."email", i."role", i."status", i."inviter_id", )"
    R"(i."expires_at", i."created_at")";

Invitation ReadInvitation(const db::Row& row) {
  return Invitation{std::string(row.GetText(0)),
                    std::string(row.GetText(1)),
                    std::string(row.GetText(2)),
                    std::string(row.GetText(3)),
                    std::string(row.GetText(4)),
                    OptionalText(row, 5),
                    row.GetInt64(6),
                    row.GetInt64(7)};
}

}  // namespace

Status InsertOrganization(db::Connection& connection, const Organization& organization) {
  CAIRN_TRY(connection.Execute(
      R"(INSERT INTO "_cairn_auth_organizations" ("id", "name", "slug", "logo", "metadata", )"
      R"("created_at") VALUES (?, ?, ?, ?, ?, ?))",
      {std::string_view(organization.id), std::string_view(organization.name),
       std::string_view(organization.slug), Optional(organization.logo),
       Optional(organization.metadata_json), organization.created_at}));
  return {};
}

Result<std::optional<Organization>> FindOrganizationById(db::Connection& connection,
                                                         std::string_view id) {
  return FindOrganization(connection, "id", id);
}

Result<std::optional<Organization>> FindOrganizationBySlug(db::Connection& connection,
                                                           std::string_view slug) {
  return FindOrganization(connection, "slug", slug);
}

Status UpdateOrganization(db::Connection& connection, const Organization& organization) {
  CAIRN_TRY(connection.Execute(
      R"(UPDATE "_cairn_auth_organizations" SET "name" = ?, "slug" = ?, "logo" = ?, )"
      R"("metadata" = ? WHERE "id" = ?)",
      {std::string_view(organization.name), std::string_view(organization.slug),
       Optional(organization.logo), Optional(organization.metadata_json),
       std::string_view(organization.id)}));
  return {};
}

Status DeleteOrganization(db::Connection& connection, std::string_view id) {
  // Explicit rather than by cascade: SQLite enforces foreign keys only when asked to.
  CAIRN_TRY(
      connection.Execute(R"(DELETE FROM "_cairn_auth_members" WHERE "organization_id" = ?)", {id}));
  CAIRN_TRY(connection.Execute(
      R"(DELETE FROM "_cairn_auth_invitations" WHERE "organization_id" = ?)", {id}));
  CAIRN_TRY(connection.Execute(R"(DELETE FROM "_cairn_auth_organizations" WHERE "id" = ?)", {id}));
  return {};
}

Result<std::vector<Organization>> ListOrganizationsOfUser(db::Connection& connection,
                                                          std::string_view user_id) {
  static const std::string sql =
      std::string("SELECT ") + kOrganizationColumns +
      R"( FROM "_cairn_auth_members" m JOIN "_cairn_auth_organizations" o )"
      R"(ON o."id" = m."organization_id" WHERE m."user_id" = ? ORDER BY m."created_at", o."id")";
  std::vector<Organization> organizations;
  CAIRN_TRY(connection.Execute(
      sql, {user_id}, [&](const db::Row& row) { organizations.push_back(ReadOrganization(row)); }));
  return organizations;
}

Status InsertMember(db::Connection& connection, const Member& member) {
  CAIRN_TRY(connection.Execute(
      R"(INSERT INTO "_cairn_auth_members" ("id", "organization_id", "user_id", "role", )"
      R"("created_at") VALUES (?, ?, ?, ?, ?))",
      {std::string_view(member.id), std::string_view(member.organization_id),
       std::string_view(member.user_id), std::string_view(member.role), member.created_at}));
  return {};
}

Result<std::optional<Member>> FindMember(db::Connection& connection,
                                         std::string_view organization_id,
                                         std::string_view user_id) {
  static const std::string sql =
      std::string(kMemberSelect) + R"(WHERE m."organization_id" = ? AND m."user_id" = ?)";
  std::optional<Member> found;
  CAIRN_TRY(connection.Execute(sql, {organization_id, user_id},
                               [&](const db::Row& row) { found = ReadMember(row); }));
  return found;
}

Result<std::optional<Member>> FindMemberById(db::Connection& connection, std::string_view id) {
  static const std::string sql = std::string(kMemberSelect) + R"(WHERE m."id" = ?)";
  std::optional<Member> found;
  CAIRN_TRY(connection.Execute(sql, {id}, [&](const db::Row& row) { found = ReadMember(row); }));
  return found;
}

Result<std::vector<Member>> ListMembers(db::Connection& connection,
                                        std::string_view organization_id, int limit, int offset) {
  static const std::string sql = std::string(kMemberSelect) +
                                 R"(WHERE m."organization_id" = ? )"
                                 R"(ORDER BY m."created_at", m."id" LIMIT ? OFFSET ?)";
  std::vector<Member> members;
  CAIRN_TRY(connection.Execute(
      sql, {organization_id, static_cast<std::int64_t>(limit), static_cast<std::int64_t>(offset)},
      [&](const db::Row& row) { members.push_back(ReadMember(row)); }));
  return members;
}

Result<std::int64_t> CountMembers(db::Connection& connection, std::string_view organization_id) {
  std::int64_t count = 0;
  CAIRN_TRY(connection.Execute(
      R"(SELECT COUNT(*) FROM "_cairn_auth_members" WHERE "organization_id" = ?)",
      {organization_id}, [&](const db::Row& row) { count = row.GetInt64(0); }));
  return count;
}

Result<std::vector<std::string>> MemberRoles(db::Connection& connection,
                                             std::string_view organization_id) {
  std::vector<std::string> roles;
  CAIRN_TRY(connection.Execute(
      R"(SELECT "role" FROM "_cairn_auth_members" WHERE "organization_id" = ?)", {organization_id},
      [&](const db::Row& row) { roles.emplace_back(row.GetText(0)); }));
  return roles;
}

Status UpdateMemberRole(db::Connection& connection, std::string_view id, std::string_view role) {
  CAIRN_TRY(connection.Execute(R"(UPDATE "_cairn_auth_members" SET "role" = ? WHERE "id" = ?)",
                               {role, id}));
  return {};
}

Status DeleteMember(db::Connection& connection, std::string_view id) {
  CAIRN_TRY(connection.Execute(R"(DELETE FROM "_cairn_auth_members" WHERE "id" = ?)", {id}));
  return {};
}

Status InsertInvitation(db::Connection& connection, const Invitation& invitation) {
  CAIRN_TRY(connection.Execute(
      R"(INSERT INTO "_cairn_auth_invitations" ("id", "organization_id", "email", "role", )"
      R"("status", "inviter_id", "expires_at", "created_at") VALUES (?, ?, ?, ?, ?, ?, ?, ?))",
      {std::string_view(invitation.id), std::string_view(invitation.organization_id),
       std::string_view(invitation.email), std::string_view(invitation.role),
       std::string_view(invitation.status), Optional(invitation.inviter_id), invitation.expires_at,
       invitation.created_at}));
  return {};
}

Result<std::optional<Invitation>> FindInvitation(db::Connection& connection, std::string_view id) {
  static const std::string sql = std::string("SELECT ") + kInvitationColumns +
                                 R"( FROM "_cairn_auth_invitations" i WHERE i."id" = ?)";
  std::optional<Invitation> found;
  CAIRN_TRY(
      connection.Execute(sql, {id}, [&](const db::Row& row) { found = ReadInvitation(row); }));
  return found;
}

Result<std::optional<Invitation>> FindPendingInvitation(db::Connection& connection,
                                                        std::string_view organization_id,
                                                        std::string_view email, std::int64_t now) {
  static const std::string sql =
      std::string("SELECT ") + kInvitationColumns +
      R"( FROM "_cairn_auth_invitations" i WHERE i."organization_id" = ? AND i."email" = ? )"
      R"(AND i."status" = 'pending' AND i."expires_at" > ? ORDER BY i."created_at" LIMIT 1)";
  std::optional<Invitation> found;
  CAIRN_TRY(connection.Execute(sql, {organization_id, email, now},
                               [&](const db::Row& row) { found = ReadInvitation(row); }));
  return found;
}

Result<std::int64_t> CountPendingInvitations(db::Connection& connection,
                                             std::string_view organization_id, std::int64_t now) {
  std::int64_t count = 0;
  CAIRN_TRY(connection.Execute(R"(SELECT COUNT(*) FROM "_cairn_auth_invitations" )"
                               R"(WHERE "organization_id" = ? AND "status" = 'pending' )"
                               R"(AND "expires_at" > ?)",
                               {organization_id, now},
                               [&](const db::Row& row) { count = row.GetInt64(0); }));
  return count;
}

Result<std::vector<Invitation>> ListInvitations(db::Connection& connection,
                                                std::string_view organization_id) {
  static const std::string sql =
      std::string("SELECT ") + kInvitationColumns +
      R"( FROM "_cairn_auth_invitations" i WHERE i."organization_id" = ? )"
      R"(ORDER BY i."created_at" DESC, i."id")";
  std::vector<Invitation> invitations;
  CAIRN_TRY(connection.Execute(sql, {organization_id}, [&](const db::Row& row) {
    invitations.push_back(ReadInvitation(row));
  }));
  return invitations;
}

Result<std::vector<ReceivedInvitation>> ListInvitationsTo(db::Connection& connection,
                                                          std::string_view email,
                                                          std::int64_t now) {
  static const std::string sql =
      std::string("SELECT ") + kInvitationColumns +
      R"(, o."name" FROM "_cairn_auth_invitations" i JOIN "_cairn_auth_organizations" o )"
      R"(ON o."id" = i."organization_id" WHERE i."email" = ? AND i."status" = 'pending' )"
      R"(AND i."expires_at" > ? ORDER BY i."created_at" DESC, i."id")";
  std::vector<ReceivedInvitation> invitations;
  CAIRN_TRY(connection.Execute(sql, {email, now}, [&](const db::Row& row) {
    invitations.push_back({ReadInvitation(row), std::string(row.GetText(8))});
  }));
  return invitations;
}

Result<bool> SetInvitationStatus(db::Connection& connection, std::string_view id,
                                 std::string_view from, std::string_view to) {
  CAIRN_ASSIGN_OR_RETURN(
      std::int64_t changed,
      connection.Execute(
          R"(UPDATE "_cairn_auth_invitations" SET "status" = ? WHERE "id" = ? AND "status" = ?)",
          {to, id, from}));
  return changed > 0;
}

Status SetInvitationExpiry(db::Connection& connection, std::string_view id,
                           std::int64_t expires_at) {
  CAIRN_TRY(connection.Execute(
      R"(UPDATE "_cairn_auth_invitations" SET "expires_at" = ? WHERE "id" = ?)", {expires_at, id}));
  return {};
}

Status ForgetOrganizationMember(db::Connection& connection, std::string_view user_id) {
  CAIRN_TRY(connection.Execute(R"(DELETE FROM "_cairn_auth_invitations" WHERE "email" = )"
                               R"((SELECT "email" FROM "_cairn_auth_users" WHERE "id" = ?))",
                               {user_id}));
  CAIRN_TRY(connection.Execute(
      R"(UPDATE "_cairn_auth_invitations" SET "inviter_id" = NULL WHERE "inviter_id" = ?)",
      {user_id}));
  std::vector<std::string> organizations;
  CAIRN_TRY(connection.Execute(
      R"(SELECT "organization_id" FROM "_cairn_auth_members" WHERE "user_id" = ?)", {user_id},
      [&](const db::Row& row) { organizations.emplace_back(row.GetText(0)); }));
  CAIRN_TRY(
      connection.Execute(R"(DELETE FROM "_cairn_auth_members" WHERE "user_id" = ?)", {user_id}));
  for (const std::string& organization : organizations) {
    CAIRN_ASSIGN_OR_RETURN(std::int64_t left, CountMembers(connection, organization));
    if (left == 0) CAIRN_TRY(DeleteOrganization(connection, organization));
  }
  return {};
}

}  // namespace cairn::auth
