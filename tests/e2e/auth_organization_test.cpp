// Better Auth's organization plugin under /api/auth/organization end to end (D19), on the
// backend of this run: every route's answers and refusals, the role rules, invitations read from
// the outbox, the session's activeOrganizationId, and what each change leaves in the tables.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include <boost/json.hpp>

#include "auth/session_token.hpp"
#include "e2e/auth_test_support.hpp"

namespace cairn::test {
namespace {

namespace json = boost::json;

constexpr const char* kAdminEmail = "root@example.com";
constexpr const char* kAdminPassword = "root password 1";
constexpr const char* kPrefix = "/api/auth/organization/";

TestAppOptions OrganizationOptions(bool rate_limited = false) {
  TestAppOptions options = AuthAppOptionsWithConfig(AuthConfigYaml("", "organizations: true"),
                                                    kAdminEmail, kAdminPassword);
  auto tune = options.tune_settings;
  options.tune_settings = [tune, rate_limited](app::Settings& settings) {
    tune(settings);
    // Most tests make more calls than one window allows; RateLimited checks the limit itself.
    settings.rate_limit_disabled = !rate_limited;
  };
  return options;
}

std::string Str(const json::value& value, const char* key) {
  return std::string(value.at(key).as_string());
}

class OrganizationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    app_ = std::make_unique<AuthApp>(OrganizationOptions());
    owner_ = app_->NewAccount("olivia@example.com", "owner password", "Olivia Owner");
    bob_ = app_->NewAccount("bob@example.com", "bob password 1", "Bob");
    carol_ = app_->NewAccount("carol@example.com", "carol password", "Carol");
  }

  HttpResult Post(const Account& as, const std::string& route, const std::string& body) {
    return app_->PostAs(as.token, kPrefix + route, body);
  }
  HttpResult Get(const Account& as, const std::string& route_and_query) {
    return app_->GetAs(as.token, kPrefix + route_and_query);
  }

  // Creates an organization owned by `as` (it becomes the active one); returns its id.
  std::string CreateOrg(const Account& as, const std::string& name, const std::string& slug) {
    const auto result =
        Post(as, "create", json::serialize(json::object{{"name", name}, {"slug", slug}}));
    EXPECT_EQ(result.status, 200) << result.body;
    return Str(result.Json(), "id");
  }

  // Invites `email` as `role` and returns the invitation id as read from the mail.
  std::string InviteByMail(const Account& as, const std::string& org_id, const std::string& email,
                           const std::string& role) {
    const std::size_t before = app_->OutboxSize();
    const auto result = Post(as, "invite-member",
                             json::serialize(json::object{
                                 {"email", email}, {"role", role}, {"organizationId", org_id}}));
    EXPECT_EQ(result.status, 200) << result.body;
    EXPECT_EQ(app_->OutboxSize(), before + 1);
    const ParsedMail mail = app_->LastMail();
    EXPECT_EQ(mail.Header("to"), email);
    const std::string id = QueryParam(FirstLink(mail.text), "id");
    EXPECT_EQ(id, Str(result.Json(), "id"));
    EXPECT_NE(mail.text.find(id + "\n"), std::string::npos) << mail.text;
    return id;
  }

  // Makes `who` a member of `org_id` with `role` through an invitation.
  std::string Join(const Account& inviter, const std::string& org_id, const Account& who,
                   const std::string& role) {
    const std::string invitation = InviteByMail(inviter, org_id, who.email, role);
    const auto accepted =
        Post(who, "accept-invitation", json::serialize(json::object{{"invitationId", invitation}}));
    EXPECT_EQ(accepted.status, 200) << accepted.body;
    return Str(accepted.Json().at("member"), "id");
  }

  std::optional<std::string> ActiveOrgInDb(const Account& as) {
    return app_->Scalar(
        R"(SELECT "active_organization_id" FROM "_cairn_auth_sessions" WHERE "token_hash" = ?)",
        {auth::SessionTokenCodec::Hash(as.token)});
  }
  json::value SessionActiveOrg(const Account& as) {
    const auto session = app_->GetAs(as.token, "/api/auth/get-session");
    EXPECT_EQ(session.status, 200) << session.body;
    return session.Json().at("session").at("activeOrganizationId");
  }
  std::int64_t Activity(const std::string& action) {
    return app_->Count(R"(SELECT COUNT(*) FROM "_cairn_activity" WHERE "action" = ?)", {action});
  }

  std::unique_ptr<AuthApp> app_;
  Account owner_, bob_, carol_;
};

TEST(OrganizationConfigTest, RoutesExistOnlyWhenConfigured) {
  AuthApp plain;  // no `organizations: true`
  const Account user = plain.NewAccount("plain@example.com");
  EXPECT_EQ(plain.GetAs(user.token, "/api/auth/organization/list").status, 404);
  EXPECT_EQ(plain.PostAs(user.token, "/api/auth/organization/create", R"({"name":"A","slug":"a"})")
                .status,
            404);

  AuthApp on(OrganizationOptions());
  const Account member = on.NewAccount("on@example.com");
  EXPECT_EQ(on.GetAs(member.token, "/api/auth/organization/list").status, 200);
}

TEST_F(OrganizationTest, EveryRouteNeedsASession) {
  for (const char* route : {"list", "get-full-organization", "list-members", "get-active-member",
                            "get-active-member-role", "get-invitation?id=x", "list-invitations",
                            "list-user-invitations"}) {
    EXPECT_TRUE(
        IsAuthError(app_->Client().Get(std::string(kPrefix) + route), 401, "UNAUTHORIZED", ""))
        << route;
  }
  for (const char* route : {"create", "check-slug", "update", "delete", "set-active", "add-member",
                            "remove-member", "update-member-role", "leave", "invite-member",
                            "accept-invitation", "reject-invitation", "cancel-invitation"}) {
    EXPECT_TRUE(IsAuthError(app_->Client().PostJson(std::string(kPrefix) + route, "{}"), 401,
                            "UNAUTHORIZED", ""))
        << route;
  }
}

TEST_F(OrganizationTest, CreateMakesTheCallerOwnerAndActive) {
  const auto created = Post(owner_, "create",
                            R"({"name":"Acme","slug":"acme","logo":"https://x.test/l.png",)"
                            R"("metadata":{"plan":"pro","seats":5}})");
  ASSERT_EQ(created.status, 200) << created.body;
  const auto org = created.Json();
  EXPECT_EQ(Str(org, "name"), "Acme");
  EXPECT_EQ(Str(org, "slug"), "acme");
  EXPECT_EQ(Str(org, "logo"), "https://x.test/l.png");
  EXPECT_EQ(org.at("metadata"), json::parse(R"({"plan":"pro","seats":5})"));
  EXPECT_TRUE(org.at("createdAt").is_string());
  const auto& members = org.at("members").as_array();
  ASSERT_EQ(members.size(), 1U);
  EXPECT_EQ(Str(members[0], "role"), "owner");
  EXPECT_EQ(Str(members[0], "userId"), owner_.user_id);
  EXPECT_EQ(Str(members[0], "organizationId"), Str(org, "id"));

  EXPECT_EQ(ActiveOrgInDb(owner_), Str(org, "id"));
  EXPECT_EQ(SessionActiveOrg(owner_), org.at("id"));
  EXPECT_EQ(app_->Count(R"(SELECT COUNT(*) FROM "_cairn_auth_members" WHERE "organization_id" = ? )"
                        R"(AND "user_id" = ? AND "role" = 'owner')",
                        {Str(org, "id"), owner_.user_id}),
            1);
  EXPECT_EQ(Activity("organization.create"), 1);

  // keepCurrentActiveOrganization leaves the active one alone.
  const auto second =
      Post(owner_, "create", R"({"name":"Two","slug":"two","keepCurrentActiveOrganization":true})");
  ASSERT_EQ(second.status, 200) << second.body;
  EXPECT_EQ(ActiveOrgInDb(owner_), Str(org, "id"));
}

TEST_F(OrganizationTest, CreateRefusals) {
  CreateOrg(owner_, "Acme", "acme");
  EXPECT_TRUE(IsAuthError(Post(bob_, "create", R"({"name":"Other","slug":"acme"})"), 400,
                          "VALIDATION_ERROR", "ORGANIZATION_ALREADY_EXISTS"));
  EXPECT_EQ(Post(bob_, "create", R"({"name":"","slug":"x"})").status, 400);
  EXPECT_EQ(Post(bob_, "create", R"({"name":"X","slug":""})").status, 400);
  EXPECT_EQ(Post(bob_, "create", R"({"slug":"x"})").status, 400);
  EXPECT_EQ(Post(bob_, "create", R"({"name":"X","slug":"x","metadata":"text"})").status, 400);
  EXPECT_EQ(
      Post(bob_, "create", R"({"name":")" + std::string(300, 'n') + R"(","slug":"x"})").status,
      400);
  // Only a site admin creates for someone else.
  EXPECT_TRUE(IsAuthError(
      Post(bob_, "create", R"({"name":"X","slug":"x","userId":")" + carol_.user_id + R"("})"), 403,
      "FORBIDDEN", "YOU_ARE_NOT_ALLOWED_TO_CREATE_A_NEW_ORGANIZATION"));
  const Account admin = app_->SignInOk(kAdminEmail, kAdminPassword);
  const auto for_carol =
      Post(admin, "create", R"({"name":"C","slug":"c","userId":")" + carol_.user_id + R"("})");
  ASSERT_EQ(for_carol.status, 200) << for_carol.body;
  EXPECT_EQ(Str(for_carol.Json().at("members").at(0), "userId"), carol_.user_id);
  EXPECT_FALSE(ActiveOrgInDb(admin).has_value());
}

TEST_F(OrganizationTest, CheckSlug) {
  CreateOrg(owner_, "Acme", "acme");
  const auto free = Post(bob_, "check-slug", R"({"slug":"free-slug"})");
  ASSERT_EQ(free.status, 200) << free.body;
  EXPECT_EQ(free.Json(), json::parse(R"({"status":true})"));
  EXPECT_TRUE(IsAuthError(Post(bob_, "check-slug", R"({"slug":"acme"})"), 400, "VALIDATION_ERROR",
                          "ORGANIZATION_SLUG_ALREADY_TAKEN"));
  EXPECT_EQ(Post(bob_, "check-slug", "{}").status, 400);
}

TEST_F(OrganizationTest, UpdateFollowsRoles) {
  const std::string org = CreateOrg(owner_, "Acme", "acme");
  CreateOrg(carol_, "Taken", "taken");
  Join(owner_, org, bob_, "member");

  const auto updated = Post(owner_, "update",
                            R"({"data":{"name":"Acme Inc","slug":"acme-inc","logo":null,)"
                            R"("metadata":{"a":1}}})");  // the active organization
  ASSERT_EQ(updated.status, 200) << updated.body;
  EXPECT_EQ(Str(updated.Json(), "name"), "Acme Inc");
  EXPECT_EQ(Str(updated.Json(), "slug"), "acme-inc");
  EXPECT_EQ(app_->Scalar(R"(SELECT "name" FROM "_cairn_auth_organizations" WHERE "id" = ?)", {org}),
            "Acme Inc");
  EXPECT_EQ(Activity("organization.update"), 1);

  EXPECT_TRUE(IsAuthError(
      Post(bob_, "update", R"({"organizationId":")" + org + R"(","data":{"name":"Mine"}})"), 403,
      "FORBIDDEN", "YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_ORGANIZATION"));
  EXPECT_TRUE(IsAuthError(
      Post(owner_, "update", R"({"organizationId":")" + org + R"(","data":{"slug":"taken"}})"), 400,
      "VALIDATION_ERROR", "ORGANIZATION_SLUG_ALREADY_TAKEN"));
  // Carol is no member: she learns nothing about it.
  EXPECT_TRUE(IsAuthError(
      Post(carol_, "update", R"({"organizationId":")" + org + R"(","data":{"name":"X"}})"), 404,
      "NOT_FOUND", "ORGANIZATION_NOT_FOUND"));
  EXPECT_TRUE(
      IsAuthError(Post(carol_, "update", R"({"organizationId":"no-such-org","data":{"name":"X"}})"),
                  404, "NOT_FOUND", "ORGANIZATION_NOT_FOUND"));
  EXPECT_EQ(Post(owner_, "update", R"({"organizationId":")" + org + R"("})").status, 400);
}

TEST_F(OrganizationTest, AdminsUpdateButOnlyOwnersDelete) {
  const std::string org = CreateOrg(owner_, "Acme", "acme");
  Join(owner_, org, bob_, "admin");
  EXPECT_EQ(
      Post(bob_, "update", R"({"organizationId":")" + org + R"(","data":{"name":"B"}})").status,
      200);
  EXPECT_TRUE(IsAuthError(Post(bob_, "delete", R"({"organizationId":")" + org + R"("})"), 403,
                          "FORBIDDEN", "YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_ORGANIZATION"));
  EXPECT_TRUE(IsAuthError(Post(carol_, "delete", R"({"organizationId":")" + org + R"("})"), 404,
                          "NOT_FOUND", "ORGANIZATION_NOT_FOUND"));
  EXPECT_EQ(Post(owner_, "delete", "{}").status, 400);

  // Bob has it active too; the deletion clears it on every session.
  ASSERT_EQ(Post(bob_, "set-active", R"({"organizationId":")" + org + R"("})").status, 200);
  const auto deleted = Post(owner_, "delete", R"({"organizationId":")" + org + R"("})");
  ASSERT_EQ(deleted.status, 200) << deleted.body;
  EXPECT_EQ(Str(deleted.Json(), "id"), org);
  EXPECT_TRUE(SessionActiveOrg(owner_).is_null());
  EXPECT_TRUE(SessionActiveOrg(bob_).is_null());
  for (const char* table :
       {"_cairn_auth_organizations", "_cairn_auth_members", "_cairn_auth_invitations"}) {
    const std::string column =
        std::string(table) == "_cairn_auth_organizations" ? "\"id\"" : "\"organization_id\"";
    EXPECT_EQ(
        app_->Count("SELECT COUNT(*) FROM \"" + std::string(table) + "\" WHERE " + column + " = ?",
                    {org}),
        0)
        << table;
  }
  EXPECT_EQ(Activity("organization.delete"), 1);
}

TEST_F(OrganizationTest, ListShowsOnlyTheCallersOrganizations) {
  const std::string acme = CreateOrg(owner_, "Acme", "acme");
  CreateOrg(carol_, "Carol's", "carols");
  const auto listed = Get(owner_, "list");
  ASSERT_EQ(listed.status, 200) << listed.body;
  ASSERT_EQ(listed.Json().as_array().size(), 1U);
  EXPECT_EQ(Str(listed.Json().at(0), "id"), acme);
  const auto none = Get(bob_, "list");
  ASSERT_EQ(none.status, 200);
  EXPECT_TRUE(none.Json().as_array().empty());
}

TEST_F(OrganizationTest, GetFullOrganization) {
  // Nothing active and nothing named: null.
  const auto nothing = Get(owner_, "get-full-organization");
  ASSERT_EQ(nothing.status, 200) << nothing.body;
  EXPECT_TRUE(nothing.Json().is_null());

  const std::string org = CreateOrg(owner_, "Acme", "acme");
  Join(owner_, org, bob_, "member");
  InviteByMail(owner_, org, "dave@example.com", "admin");
  InviteByMail(owner_, org, "erin@example.com", "owner");

  const auto full = Get(owner_, "get-full-organization");
  ASSERT_EQ(full.status, 200) << full.body;
  const auto body = full.Json();
  EXPECT_EQ(Str(body, "id"), org);
  ASSERT_EQ(body.at("members").as_array().size(), 2U);
  EXPECT_EQ(Str(body.at("members").at(0).at("user"), "email"), "olivia@example.com");
  EXPECT_EQ(Str(body.at("members").at(1).at("user"), "name"), "Bob");
  // Every invitation, whatever its status (Bob's accepted one too), as Better Auth lists them.
  EXPECT_EQ(body.at("invitations").as_array().size(), 3U);
  // By slug, with a member limit.
  const auto by_slug = Get(owner_, "get-full-organization?organizationSlug=acme&membersLimit=1");
  ASSERT_EQ(by_slug.status, 200) << by_slug.body;
  EXPECT_EQ(by_slug.Json().at("members").as_array().size(), 1U);

  // A plain member sees the members but no invitation (the ids are invitation links).
  const auto as_member = Get(bob_, "get-full-organization?organizationId=" + org);
  ASSERT_EQ(as_member.status, 200) << as_member.body;
  EXPECT_TRUE(as_member.Json().at("invitations").as_array().empty());
  // An admin does not see invitations that grant the owner role.
  const Account frank = app_->NewAccount("frank@example.com");
  Join(owner_, org, frank, "admin");
  const auto as_admin = Get(frank, "get-full-organization?organizationId=" + org);
  ASSERT_EQ(as_admin.status, 200) << as_admin.body;
  const json::value admin_view = as_admin.Json();
  for (const auto& invitation : admin_view.at("invitations").as_array()) {
    EXPECT_NE(Str(invitation, "role"), "owner");
  }
  EXPECT_EQ(as_admin.Json().at("invitations").as_array().size(), 3U);  // of 4: not Erin's

  // Non-members and unknown ids get the same 404.
  EXPECT_TRUE(IsAuthError(Get(carol_, "get-full-organization?organizationId=" + org), 404,
                          "NOT_FOUND", "ORGANIZATION_NOT_FOUND"));
  EXPECT_TRUE(IsAuthError(Get(carol_, "get-full-organization?organizationId=nope"), 404,
                          "NOT_FOUND", "ORGANIZATION_NOT_FOUND"));
  EXPECT_TRUE(IsAuthError(Get(carol_, "get-full-organization?organizationSlug=acme"), 404,
                          "NOT_FOUND", "ORGANIZATION_NOT_FOUND"));
  EXPECT_EQ(Get(owner_, "get-full-organization?membersLimit=-1").status, 400);
}

TEST_F(OrganizationTest, SetActiveLifecycle) {
  const std::string acme = CreateOrg(owner_, "Acme", "acme");
  const std::string beta = CreateOrg(owner_, "Beta", "beta");
  EXPECT_EQ(SessionActiveOrg(owner_), json::value(beta));

  // By id, by slug; the session shows it at once (no stale cached session).
  const auto by_id = Post(owner_, "set-active", R"({"organizationId":")" + acme + R"("})");
  ASSERT_EQ(by_id.status, 200) << by_id.body;
  EXPECT_EQ(Str(by_id.Json(), "id"), acme);
  EXPECT_EQ(SessionActiveOrg(owner_), json::value(acme));
  const auto by_slug = Post(owner_, "set-active", R"({"organizationSlug":"beta"})");
  ASSERT_EQ(by_slug.status, 200) << by_slug.body;
  EXPECT_EQ(SessionActiveOrg(owner_), json::value(beta));
  // Nothing named: the active one.
  const auto current = Post(owner_, "set-active", "{}");
  ASSERT_EQ(current.status, 200);
  EXPECT_EQ(Str(current.Json(), "id"), beta);
  // Only this session changes.
  const Account other_session = app_->SignInOk(owner_.email, owner_.password);
  EXPECT_TRUE(SessionActiveOrg(other_session).is_null());
  // null clears it.
  const auto cleared = Post(owner_, "set-active", R"({"organizationId":null})");
  ASSERT_EQ(cleared.status, 200);
  EXPECT_TRUE(cleared.Json().is_null());
  EXPECT_TRUE(SessionActiveOrg(owner_).is_null());
  EXPECT_FALSE(ActiveOrgInDb(owner_).has_value());
  // Not a member, or unknown: 404, and nothing active.
  ASSERT_EQ(Post(bob_, "create", R"({"name":"Bob's","slug":"bobs"})").status, 200);
  EXPECT_TRUE(IsAuthError(Post(bob_, "set-active", R"({"organizationId":")" + acme + R"("})"), 404,
                          "NOT_FOUND", "ORGANIZATION_NOT_FOUND"));
  EXPECT_TRUE(SessionActiveOrg(bob_).is_null());
  EXPECT_TRUE(IsAuthError(Post(bob_, "set-active", R"({"organizationSlug":"nope"})"), 404,
                          "NOT_FOUND", "ORGANIZATION_NOT_FOUND"));
  // list-sessions shows it too.
  ASSERT_EQ(Post(owner_, "set-active", R"({"organizationId":")" + acme + R"("})").status, 200);
  const auto sessions = app_->GetAs(owner_.token, "/api/auth/list-sessions");
  ASSERT_EQ(sessions.status, 200);
  bool found = false;
  const json::value listed = sessions.Json();
  for (const auto& session : listed.as_array()) {
    if (Str(session, "token") == owner_.token) {
      EXPECT_EQ(session.at("activeOrganizationId"), json::value(acme));
      found = true;
    }
  }
  EXPECT_TRUE(found);
}

TEST_F(OrganizationTest, InvitationByMailAcceptedByTheInvitedUser) {
  const std::string org = CreateOrg(owner_, "Acme", "acme");
  const auto invited = Post(owner_, "invite-member",
                            R"({"email":"Bob@Example.com","role":["admin"]})");  // active org
  ASSERT_EQ(invited.status, 200) << invited.body;
  const auto invitation = invited.Json();
  EXPECT_EQ(Str(invitation, "email"), "bob@example.com");
  EXPECT_EQ(Str(invitation, "role"), "admin");
  EXPECT_EQ(Str(invitation, "status"), "pending");
  EXPECT_EQ(Str(invitation, "inviterId"), owner_.user_id);
  EXPECT_EQ(Str(invitation, "organizationId"), org);
  const std::string id = Str(invitation, "id");
  const ParsedMail mail = app_->LastMail();
  EXPECT_EQ(mail.Header("to"), "bob@example.com");
  EXPECT_EQ(QueryParam(FirstLink(mail.text), "id"), id);
  EXPECT_EQ(mail.text.find("Acme"), std::string::npos) << "the inviter's words stay out";
  const std::int64_t expires = ToInt(
      app_->Scalar(R"(SELECT "expires_at" FROM "_cairn_auth_invitations" WHERE "id" = ?)", {id}));
  EXPECT_NEAR(static_cast<double>(expires - NowMillis()), 48.0 * 3600 * 1000, 60.0 * 1000);
  EXPECT_EQ(Activity("organization.invitation.create"), 1);

  // Only the invited address may look at it or accept it.
  EXPECT_TRUE(IsAuthError(Get(carol_, "get-invitation?id=" + id), 403, "FORBIDDEN",
                          "YOU_ARE_NOT_THE_RECIPIENT_OF_THE_INVITATION"));
  EXPECT_TRUE(IsAuthError(Post(carol_, "accept-invitation", R"({"invitationId":")" + id + R"("})"),
                          403, "FORBIDDEN", "YOU_ARE_NOT_THE_RECIPIENT_OF_THE_INVITATION"));
  const auto viewed = Get(bob_, "get-invitation?id=" + id);
  ASSERT_EQ(viewed.status, 200) << viewed.body;
  EXPECT_EQ(Str(viewed.Json(), "organizationName"), "Acme");
  EXPECT_EQ(Str(viewed.Json(), "organizationSlug"), "acme");
  EXPECT_EQ(Str(viewed.Json(), "inviterEmail"), "olivia@example.com");
  EXPECT_TRUE(
      IsAuthError(Get(bob_, "get-invitation?id=nope"), 404, "NOT_FOUND", "INVITATION_NOT_FOUND"));
  EXPECT_EQ(Get(bob_, "get-invitation").status, 400);

  const auto accepted = Post(bob_, "accept-invitation", R"({"invitationId":")" + id + R"("})");
  ASSERT_EQ(accepted.status, 200) << accepted.body;
  EXPECT_EQ(Str(accepted.Json().at("invitation"), "status"), "accepted");
  EXPECT_EQ(Str(accepted.Json().at("member"), "role"), "admin");
  EXPECT_EQ(Str(accepted.Json().at("member"), "userId"), bob_.user_id);
  EXPECT_EQ(SessionActiveOrg(bob_), json::value(org));
  EXPECT_EQ(app_->Scalar(R"(SELECT "status" FROM "_cairn_auth_invitations" WHERE "id" = ?)", {id}),
            "accepted");
  EXPECT_EQ(Activity("organization.invitation.accept"), 1);
  // Once only.
  EXPECT_TRUE(IsAuthError(Post(bob_, "accept-invitation", R"({"invitationId":")" + id + R"("})"),
                          404, "NOT_FOUND", "INVITATION_NOT_FOUND"));
}

TEST_F(OrganizationTest, InvitationRefusals) {
  const std::string org = CreateOrg(owner_, "Acme", "acme");
  Join(owner_, org, bob_, "member");
  const std::string body = R"(,"organizationId":")" + org + R"("})";
  // Members may not invite; admins may not grant owner.
  EXPECT_TRUE(
      IsAuthError(Post(bob_, "invite-member", R"({"email":"x@example.com","role":"member")" + body),
                  403, "FORBIDDEN", "YOU_ARE_NOT_ALLOWED_TO_INVITE_USERS_TO_THIS_ORGANIZATION"));
  const Account admin = app_->NewAccount("adam@example.com");
  Join(owner_, org, admin, "admin");
  EXPECT_TRUE(
      IsAuthError(Post(admin, "invite-member", R"({"email":"x@example.com","role":"owner")" + body),
                  403, "FORBIDDEN", "YOU_ARE_NOT_ALLOWED_TO_INVITE_USER_WITH_THIS_ROLE"));
  EXPECT_TRUE(
      IsAuthError(Post(owner_, "invite-member", R"({"email":"x@example.com","role":"boss")" + body),
                  400, "VALIDATION_ERROR", "ROLE_NOT_FOUND"));
  EXPECT_TRUE(
      IsAuthError(Post(owner_, "invite-member", R"({"email":"x@example.com","role":"")" + body),
                  400, "VALIDATION_ERROR", "ROLE_NOT_FOUND"));
  EXPECT_TRUE(IsAuthError(
      Post(owner_, "invite-member", R"({"email":"not-an-email","role":"member")" + body), 400,
      "VALIDATION_ERROR", "INVALID_EMAIL"));
  EXPECT_TRUE(IsAuthError(
      Post(owner_, "invite-member", R"({"email":"bob@example.com","role":"member")" + body), 400,
      "VALIDATION_ERROR", "USER_IS_ALREADY_A_MEMBER_OF_THIS_ORGANIZATION"));
  EXPECT_TRUE(IsAuthError(
      Post(carol_, "invite-member", R"({"email":"x@example.com","role":"member")" + body), 404,
      "NOT_FOUND", "ORGANIZATION_NOT_FOUND"));
  EXPECT_TRUE(
      IsAuthError(Post(carol_, "invite-member", R"({"email":"x@example.com","role":"member"})"),
                  400, "VALIDATION_ERROR", "NO_ACTIVE_ORGANIZATION"));
  // Twice: refused, unless resent (which renews the expiry and mails again).
  const std::string first = InviteByMail(owner_, org, "x@example.com", "member");
  EXPECT_TRUE(IsAuthError(
      Post(owner_, "invite-member", R"({"email":"x@example.com","role":"member")" + body), 400,
      "VALIDATION_ERROR", "USER_IS_ALREADY_INVITED_TO_THIS_ORGANIZATION"));
  app_->Execute(R"(UPDATE "_cairn_auth_invitations" SET "expires_at" = ? WHERE "id" = ?)",
                {NowMillis() + 1000 * 60, first});
  const std::size_t before = app_->OutboxSize();
  const auto resent = Post(owner_, "invite-member",
                           R"({"email":"x@example.com","role":"member","resend":true)" + body);
  ASSERT_EQ(resent.status, 200) << resent.body;
  EXPECT_EQ(Str(resent.Json(), "id"), first);
  EXPECT_EQ(app_->OutboxSize(), before + 1);
  EXPECT_GT(ToInt(app_->Scalar(
                R"(SELECT "expires_at" FROM "_cairn_auth_invitations" WHERE "id" = ?)", {first})),
            NowMillis() + 47LL * 3600 * 1000);
}

TEST_F(OrganizationTest, ExpiredInvitationsCannotBeAccepted) {
  const std::string org = CreateOrg(owner_, "Acme", "acme");
  const std::string id = InviteByMail(owner_, org, bob_.email, "member");
  app_->Execute(R"(UPDATE "_cairn_auth_invitations" SET "expires_at" = ? WHERE "id" = ?)",
                {NowMillis() - 1000, id});
  EXPECT_TRUE(IsAuthError(Post(bob_, "accept-invitation", R"({"invitationId":")" + id + R"("})"),
                          404, "NOT_FOUND", "INVITATION_NOT_FOUND"));
  EXPECT_TRUE(
      IsAuthError(Get(bob_, "get-invitation?id=" + id), 404, "NOT_FOUND", "INVITATION_NOT_FOUND"));
  EXPECT_EQ(app_->Count(R"(SELECT COUNT(*) FROM "_cairn_auth_members" WHERE "user_id" = ?)",
                        {bob_.user_id}),
            0);
  // An expired invitation no longer blocks a new one.
  InviteByMail(owner_, org, bob_.email, "member");
}

TEST_F(OrganizationTest, RejectAndCancel) {
  const std::string org = CreateOrg(owner_, "Acme", "acme");
  const std::string to_bob = InviteByMail(owner_, org, bob_.email, "member");
  EXPECT_TRUE(
      IsAuthError(Post(carol_, "reject-invitation", R"({"invitationId":")" + to_bob + R"("})"), 403,
                  "FORBIDDEN", "YOU_ARE_NOT_THE_RECIPIENT_OF_THE_INVITATION"));
  const auto rejected = Post(bob_, "reject-invitation", R"({"invitationId":")" + to_bob + R"("})");
  ASSERT_EQ(rejected.status, 200) << rejected.body;
  EXPECT_EQ(Str(rejected.Json().at("invitation"), "status"), "rejected");
  EXPECT_TRUE(rejected.Json().at("member").is_null());
  EXPECT_TRUE(
      IsAuthError(Post(bob_, "accept-invitation", R"({"invitationId":")" + to_bob + R"("})"), 404,
                  "NOT_FOUND", "INVITATION_NOT_FOUND"));
  EXPECT_TRUE(IsAuthError(Post(bob_, "reject-invitation", R"({"invitationId":"nope"})"), 404,
                          "NOT_FOUND", "INVITATION_NOT_FOUND"));
  EXPECT_EQ(Activity("organization.invitation.reject"), 1);

  const std::string to_carol = InviteByMail(owner_, org, carol_.email, "member");
  // Outsiders learn nothing; plain members may not cancel.
  const Account dave = app_->NewAccount("dave@example.com");
  EXPECT_TRUE(
      IsAuthError(Post(dave, "cancel-invitation", R"({"invitationId":")" + to_carol + R"("})"), 404,
                  "NOT_FOUND", "INVITATION_NOT_FOUND"));
  Join(owner_, org, dave, "member");
  EXPECT_TRUE(
      IsAuthError(Post(dave, "cancel-invitation", R"({"invitationId":")" + to_carol + R"("})"), 403,
                  "FORBIDDEN", "YOU_ARE_NOT_ALLOWED_TO_CANCEL_THIS_INVITATION"));
  const auto canceled =
      Post(owner_, "cancel-invitation", R"({"invitationId":")" + to_carol + R"("})");
  ASSERT_EQ(canceled.status, 200) << canceled.body;
  EXPECT_EQ(Str(canceled.Json(), "status"), "canceled");
  EXPECT_TRUE(
      IsAuthError(Post(carol_, "accept-invitation", R"({"invitationId":")" + to_carol + R"("})"),
                  404, "NOT_FOUND", "INVITATION_NOT_FOUND"));
  EXPECT_EQ(Activity("organization.invitation.cancel"), 1);
}

TEST_F(OrganizationTest, ListInvitations) {
  const std::string org = CreateOrg(owner_, "Acme", "acme");
  InviteByMail(owner_, org, "x@example.com", "member");
  InviteByMail(owner_, org, "y@example.com", "owner");
  const auto listed = Get(owner_, "list-invitations");
  ASSERT_EQ(listed.status, 200) << listed.body;
  EXPECT_EQ(listed.Json().as_array().size(), 2U);
  Join(owner_, org, bob_, "member");
  EXPECT_TRUE(IsAuthError(Get(bob_, "list-invitations?organizationId=" + org), 403, "FORBIDDEN",
                          "YOU_ARE_NOT_ALLOWED_TO_LIST_INVITATIONS"));
  EXPECT_TRUE(IsAuthError(Get(carol_, "list-invitations?organizationId=" + org), 404, "NOT_FOUND",
                          "ORGANIZATION_NOT_FOUND"));
  EXPECT_TRUE(IsAuthError(Get(carol_, "list-invitations"), 400, "VALIDATION_ERROR",
                          "NO_ACTIVE_ORGANIZATION"));
}

TEST_F(OrganizationTest, ListUserInvitationsNeedsAVerifiedAddress) {
  const std::string org = CreateOrg(owner_, "Acme", "acme");
  InviteByMail(owner_, org, bob_.email, "member");
  EXPECT_TRUE(IsAuthError(Get(bob_, "list-user-invitations"), 403, "FORBIDDEN",
                          "EMAIL_VERIFICATION_REQUIRED_FOR_INVITATION"));
  app_->Execute(R"(UPDATE "_cairn_auth_users" SET "email_verified" = 1 WHERE "id" = ?)",
                {bob_.user_id});
  WaitOutSessionCache();
  const auto listed = Get(bob_, "list-user-invitations");
  ASSERT_EQ(listed.status, 200) << listed.body;
  ASSERT_EQ(listed.Json().as_array().size(), 1U);
  EXPECT_EQ(Str(listed.Json().at(0), "organizationName"), "Acme");
  EXPECT_EQ(Get(bob_, "list-user-invitations?email=bob@example.com").status, 400);
}

TEST_F(OrganizationTest, ListMembersAndActiveMember) {
  const std::string org = CreateOrg(owner_, "Acme", "acme");
  Join(owner_, org, bob_, "admin");
  const auto listed = Get(owner_, "list-members");
  ASSERT_EQ(listed.status, 200) << listed.body;
  EXPECT_EQ(listed.Json().at("total"), 2);
  ASSERT_EQ(listed.Json().at("members").as_array().size(), 2U);
  EXPECT_EQ(Str(listed.Json().at("members").at(1).at("user"), "email"), "bob@example.com");
  const auto paged = Get(owner_, "list-members?limit=1&offset=1&organizationSlug=acme");
  ASSERT_EQ(paged.status, 200) << paged.body;
  EXPECT_EQ(paged.Json().at("total"), 2);
  ASSERT_EQ(paged.Json().at("members").as_array().size(), 1U);
  EXPECT_EQ(Str(paged.Json().at("members").at(0), "userId"), bob_.user_id);
  EXPECT_EQ(Get(owner_, "list-members?limit=x").status, 400);
  EXPECT_EQ(Get(owner_, "list-members?sortBy=role").status, 400);
  EXPECT_TRUE(IsAuthError(Get(carol_, "list-members?organizationId=" + org), 404, "NOT_FOUND",
                          "ORGANIZATION_NOT_FOUND"));
  EXPECT_TRUE(
      IsAuthError(Get(carol_, "list-members"), 400, "VALIDATION_ERROR", "NO_ACTIVE_ORGANIZATION"));

  const auto active = Get(bob_, "get-active-member");
  ASSERT_EQ(active.status, 200) << active.body;
  EXPECT_EQ(Str(active.Json(), "role"), "admin");
  EXPECT_EQ(Str(active.Json().at("user"), "email"), "bob@example.com");
  const auto role = Get(bob_, "get-active-member-role");
  ASSERT_EQ(role.status, 200);
  EXPECT_EQ(role.Json(), json::parse(R"({"role":"admin"})"));
  const auto owner_role = Get(bob_, "get-active-member-role?userId=" + owner_.user_id);
  ASSERT_EQ(owner_role.status, 200);
  EXPECT_EQ(owner_role.Json(), json::parse(R"({"role":"owner"})"));
  EXPECT_TRUE(IsAuthError(Get(carol_, "get-active-member"), 400, "VALIDATION_ERROR",
                          "NO_ACTIVE_ORGANIZATION"));
}

TEST_F(OrganizationTest, HasPermissionFollowsRoles) {
  const std::string org = CreateOrg(owner_, "Acme", "acme");
  Join(owner_, org, bob_, "admin");
  Join(owner_, org, carol_, "member");
  auto granted = [&](const Account& as, const std::string& permissions) {
    const auto result =
        Post(as, "has-permission",
             R"({"organizationId":")" + org + R"(","permissions":)" + permissions + "}");
    EXPECT_EQ(result.status, 200) << result.body;
    EXPECT_TRUE(result.Json().at("error").is_null());
    return result.Json().at("success") == true;
  };
  EXPECT_TRUE(granted(owner_, R"({"organization":["update","delete"]})"));
  EXPECT_TRUE(granted(bob_, R"({"organization":["update"],"member":["create","delete"]})"));
  EXPECT_FALSE(granted(bob_, R"({"organization":["delete"]})"));
  EXPECT_TRUE(granted(bob_, R"({"invitation":["create","cancel"]})"));
  EXPECT_FALSE(granted(carol_, R"({"invitation":["create"]})"));
  EXPECT_FALSE(granted(owner_, R"({"team":["create"]})"));  // teams are not served
  EXPECT_FALSE(granted(owner_, "{}"));
  // The deprecated spelling, from the active organization.
  const auto old_spelling =
      Post(owner_, "has-permission", R"({"permission":{"member":["update"]}})");
  ASSERT_EQ(old_spelling.status, 200) << old_spelling.body;
  EXPECT_EQ(old_spelling.Json().at("success"), true);
  EXPECT_EQ(Post(owner_, "has-permission", "{}").status, 400);
  EXPECT_EQ(Post(owner_, "has-permission", R"({"permissions":{"member":"update"}})").status, 400);
  const Account dave = app_->NewAccount("dave@example.com");
  EXPECT_TRUE(IsAuthError(
      Post(dave, "has-permission",
           R"({"organizationId":")" + org + R"(","permissions":{"member":["update"]}})"),
      404, "NOT_FOUND", "ORGANIZATION_NOT_FOUND"));
}

TEST_F(OrganizationTest, AddMemberIsForSiteAdmins) {
  const std::string org = CreateOrg(owner_, "Acme", "acme");
  const std::string body =
      R"({"userId":")" + bob_.user_id + R"(","role":"member","organizationId":")" + org + R"("})";
  EXPECT_TRUE(IsAuthError(Post(owner_, "add-member", body), 403, "FORBIDDEN",
                          "YOU_ARE_NOT_ALLOWED_TO_ADD_MEMBERS"));
  const Account admin = app_->SignInOk(kAdminEmail, kAdminPassword);
  const auto added = Post(admin, "add-member", body);
  ASSERT_EQ(added.status, 200) << added.body;
  EXPECT_EQ(Str(added.Json(), "userId"), bob_.user_id);
  EXPECT_EQ(Str(added.Json(), "role"), "member");
  EXPECT_TRUE(IsAuthError(Post(admin, "add-member", body), 400, "VALIDATION_ERROR",
                          "USER_IS_ALREADY_A_MEMBER_OF_THIS_ORGANIZATION"));
  EXPECT_TRUE(
      IsAuthError(Post(admin, "add-member",
                       R"({"userId":"nope","role":"member","organizationId":")" + org + R"("})"),
                  404, "NOT_FOUND", "USER_NOT_FOUND"));
  EXPECT_TRUE(IsAuthError(
      Post(admin, "add-member",
           R"({"userId":")" + carol_.user_id + R"(","role":"member","organizationId":"nope"})"),
      404, "NOT_FOUND", "ORGANIZATION_NOT_FOUND"));
  EXPECT_EQ(Activity("organization.member.add"), 1);
}

TEST_F(OrganizationTest, RemoveMemberFollowsRoles) {
  const std::string org = CreateOrg(owner_, "Acme", "acme");
  const std::string bob_member = Join(owner_, org, bob_, "admin");
  const std::string carol_member = Join(owner_, org, carol_, "member");
  const Account dave = app_->NewAccount("dave@example.com");
  Join(owner_, org, dave, "member");
  const std::string owner_member = *app_->Scalar(
      R"(SELECT "id" FROM "_cairn_auth_members" WHERE "user_id" = ?)", {owner_.user_id});
  const std::string in_org = R"(,"organizationId":")" + org + R"("})";

  // A plain member removes nobody; an admin removes no owner; nobody outside sees anything.
  EXPECT_TRUE(IsAuthError(
      Post(carol_, "remove-member", R"({"memberIdOrEmail":"dave@example.com")" + in_org), 403,
      "FORBIDDEN", "YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_MEMBER"));
  EXPECT_TRUE(IsAuthError(
      Post(bob_, "remove-member", R"({"memberIdOrEmail":")" + owner_member + R"(")" + in_org), 403,
      "FORBIDDEN", "YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_MEMBER"));
  const Account eve = app_->NewAccount("eve@example.com");
  EXPECT_TRUE(IsAuthError(
      Post(eve, "remove-member", R"({"memberIdOrEmail":")" + carol_member + R"(")" + in_org), 404,
      "NOT_FOUND", "ORGANIZATION_NOT_FOUND"));
  EXPECT_TRUE(IsAuthError(
      Post(bob_, "remove-member", R"({"memberIdOrEmail":"nobody@example.com")" + in_org), 404,
      "NOT_FOUND", "MEMBER_NOT_FOUND"));
  // The last owner stays.
  EXPECT_TRUE(IsAuthError(
      Post(owner_, "remove-member", R"({"memberIdOrEmail":")" + owner_member + R"(")" + in_org),
      400, "VALIDATION_ERROR", "YOU_CANNOT_LEAVE_THE_ORGANIZATION_AS_THE_ONLY_OWNER"));

  // An admin removes a member by id; the member's sessions lose the organization at once.
  EXPECT_EQ(SessionActiveOrg(carol_), json::value(org));
  const auto removed =
      Post(bob_, "remove-member", R"({"memberIdOrEmail":")" + carol_member + R"(")" + in_org);
  ASSERT_EQ(removed.status, 200) << removed.body;
  EXPECT_EQ(Str(removed.Json().at("member"), "id"), carol_member);
  EXPECT_TRUE(SessionActiveOrg(carol_).is_null());
  EXPECT_TRUE(IsAuthError(Get(carol_, "get-full-organization?organizationId=" + org), 404,
                          "NOT_FOUND", "ORGANIZATION_NOT_FOUND"));
  // By email, from the active organization.
  ASSERT_EQ(Post(owner_, "remove-member", R"({"memberIdOrEmail":"DAVE@example.com"})").status, 200);
  EXPECT_EQ(app_->Count(R"(SELECT COUNT(*) FROM "_cairn_auth_members" WHERE "organization_id" = ?)",
                        {org}),
            2);
  EXPECT_EQ(Activity("organization.member.remove"), 2);
  EXPECT_EQ(bob_member.empty(), false);
}

TEST_F(OrganizationTest, UpdateMemberRoleFollowsRoles) {
  const std::string org = CreateOrg(owner_, "Acme", "acme");
  const std::string bob_member = Join(owner_, org, bob_, "admin");
  const std::string carol_member = Join(owner_, org, carol_, "member");
  const std::string owner_member = *app_->Scalar(
      R"(SELECT "id" FROM "_cairn_auth_members" WHERE "user_id" = ?)", {owner_.user_id});
  auto body = [&](const std::string& member, const std::string& role) {
    return R"({"memberId":")" + member + R"(","role":)" + role + R"(,"organizationId":")" + org +
           R"("})";
  };
  // An admin promotes a member to admin, but grants no owner role and touches no owner.
  const auto promoted = Post(bob_, "update-member-role", body(carol_member, R"("admin")"));
  ASSERT_EQ(promoted.status, 200) << promoted.body;
  EXPECT_EQ(Str(promoted.Json(), "role"), "admin");
  EXPECT_EQ(
      app_->Scalar(R"(SELECT "role" FROM "_cairn_auth_members" WHERE "id" = ?)", {carol_member}),
      "admin");
  EXPECT_TRUE(IsAuthError(Post(bob_, "update-member-role", body(carol_member, R"("owner")")), 403,
                          "FORBIDDEN", "YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_MEMBER"));
  EXPECT_TRUE(IsAuthError(Post(bob_, "update-member-role", body(owner_member, R"("member")")), 403,
                          "FORBIDDEN", "YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_MEMBER"));
  EXPECT_TRUE(IsAuthError(Post(owner_, "update-member-role", body(carol_member, R"("boss")")), 400,
                          "VALIDATION_ERROR", "ROLE_NOT_FOUND"));
  EXPECT_TRUE(IsAuthError(Post(owner_, "update-member-role", body("nope", R"("member")")), 404,
                          "NOT_FOUND", "MEMBER_NOT_FOUND"));
  const Account dave = app_->NewAccount("dave@example.com");
  EXPECT_TRUE(IsAuthError(Post(dave, "update-member-role", body(carol_member, R"("member")")), 404,
                          "NOT_FOUND", "ORGANIZATION_NOT_FOUND"));
  // A plain member changes nothing.
  ASSERT_EQ(Post(owner_, "update-member-role", body(carol_member, R"("member")")).status, 200);
  EXPECT_TRUE(IsAuthError(Post(carol_, "update-member-role", body(bob_member, R"("member")")), 403,
                          "FORBIDDEN", "YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_MEMBER"));
  // The only owner cannot step down; with a second owner (roles as a list) it can.
  EXPECT_TRUE(IsAuthError(Post(owner_, "update-member-role", body(owner_member, R"("admin")")), 400,
                          "VALIDATION_ERROR",
                          "YOU_CANNOT_LEAVE_THE_ORGANIZATION_WITHOUT_AN_OWNER"));
  const auto two_roles =
      Post(owner_, "update-member-role", body(bob_member, R"(["owner","admin"])"));
  ASSERT_EQ(two_roles.status, 200) << two_roles.body;
  EXPECT_EQ(Str(two_roles.Json(), "role"), "owner,admin");
  ASSERT_EQ(Post(owner_, "update-member-role", body(owner_member, R"("member")")).status, 200);
  EXPECT_EQ(Activity("organization.member.update_role"), 4);
  EXPECT_EQ(Post(owner_, "update-member-role", R"({"memberId":"x"})").status, 400);
}

TEST_F(OrganizationTest, LeaveClearsTheActiveOrganization) {
  const std::string org = CreateOrg(owner_, "Acme", "acme");
  Join(owner_, org, bob_, "member");
  const Account bob_elsewhere = app_->SignInOk(bob_.email, bob_.password);
  ASSERT_EQ(Post(bob_elsewhere, "set-active", R"({"organizationId":")" + org + R"("})").status,
            200);
  EXPECT_TRUE(IsAuthError(Post(owner_, "leave", R"({"organizationId":")" + org + R"("})"), 400,
                          "VALIDATION_ERROR",
                          "YOU_CANNOT_LEAVE_THE_ORGANIZATION_AS_THE_ONLY_OWNER"));
  EXPECT_TRUE(IsAuthError(Post(carol_, "leave", R"({"organizationId":")" + org + R"("})"), 404,
                          "NOT_FOUND", "ORGANIZATION_NOT_FOUND"));
  const auto left = Post(bob_, "leave", R"({"organizationId":")" + org + R"("})");
  ASSERT_EQ(left.status, 200) << left.body;
  EXPECT_EQ(Str(left.Json(), "userId"), bob_.user_id);
  EXPECT_TRUE(SessionActiveOrg(bob_).is_null());
  EXPECT_TRUE(SessionActiveOrg(bob_elsewhere).is_null());
  EXPECT_EQ(SessionActiveOrg(owner_), json::value(org));
  EXPECT_TRUE(Get(bob_, "list").Json().as_array().empty());
  EXPECT_EQ(Activity("organization.member.leave"), 1);
}

TEST_F(OrganizationTest, AStaleActiveOrganizationIsDropped) {
  const std::string org = CreateOrg(owner_, "Acme", "acme");
  Join(owner_, org, bob_, "member");
  // The membership goes behind the server's back (another node, say): the next read drops it.
  app_->Execute(R"(DELETE FROM "_cairn_auth_members" WHERE "user_id" = ?)", {bob_.user_id});
  EXPECT_TRUE(
      IsAuthError(Get(bob_, "get-full-organization"), 404, "NOT_FOUND", "ORGANIZATION_NOT_FOUND"));
  EXPECT_FALSE(ActiveOrgInDb(bob_).has_value());
  EXPECT_TRUE(SessionActiveOrg(bob_).is_null());
}

TEST_F(OrganizationTest, CrossSiteCookieRequestsAreRefused) {
  const auto result = app_->Client().PostJson(
      std::string(kPrefix) + "create", R"({"name":"A","slug":"a"})",
      {{"Cookie", std::string(kSessionCookieName) + "=" + owner_.cookie_value},
       {"Origin", "https://evil.example"}});
  EXPECT_TRUE(IsAuthError(result, 403, "FORBIDDEN", "INVALID_ORIGIN"));
  EXPECT_EQ(app_->Count(R"(SELECT COUNT(*) FROM "_cairn_auth_organizations")"), 0);
}

TEST_F(OrganizationTest, ErasingAnAccountForgetsItsMembershipsAndInvitations) {
  const std::string shared = CreateOrg(owner_, "Shared", "shared");
  const std::string alone = CreateOrg(owner_, "Alone", "alone");
  Join(owner_, shared, bob_, "admin");
  // Bob invites Carol; Dave invites the owner elsewhere.
  const std::string by_bob = InviteByMail(bob_, shared, carol_.email, "member");
  const Account dave = app_->NewAccount("dave@example.com");
  const std::string dave_org = CreateOrg(dave, "Dave's", "daves");
  InviteByMail(dave, dave_org, owner_.email, "member");
  Join(bob_, shared, dave, "member");

  const Account admin = app_->SignInOk(kAdminEmail, kAdminPassword);
  const auto removed = app_->PostAs(admin.token, "/api/auth/admin/remove-user",
                                    json::serialize(json::object{{"userId", owner_.user_id}}));
  ASSERT_EQ(removed.status, 200) << removed.body;
  EXPECT_EQ(app_->Count(R"(SELECT COUNT(*) FROM "_cairn_auth_members" WHERE "user_id" = ?)",
                        {owner_.user_id}),
            0);
  EXPECT_EQ(app_->Count(R"(SELECT COUNT(*) FROM "_cairn_auth_invitations" WHERE "email" = ?)",
                        {owner_.email}),
            0);
  // The organization nobody is left in goes; the shared one stays with Bob and Dave.
  EXPECT_EQ(
      app_->Count(R"(SELECT COUNT(*) FROM "_cairn_auth_organizations" WHERE "id" = ?)", {alone}),
      0);
  EXPECT_EQ(app_->Count(R"(SELECT COUNT(*) FROM "_cairn_auth_members" WHERE "organization_id" = ?)",
                        {shared}),
            2);
  // Bob's erasure leaves his invitation without an inviter.
  ASSERT_EQ(app_->PostAs(admin.token, "/api/auth/admin/remove-user",
                         json::serialize(json::object{{"userId", bob_.user_id}}))
                .status,
            200);
  EXPECT_FALSE(
      app_->Scalar(R"(SELECT "inviter_id" FROM "_cairn_auth_invitations" WHERE "id" = ?)", {by_bob})
          .has_value());
  // Dave stays, with no owner (docs/auth.md).
  EXPECT_EQ(
      app_->Count(R"(SELECT COUNT(*) FROM "_cairn_auth_organizations" WHERE "id" = ?)", {shared}),
      1);
}

TEST(OrganizationRateLimitTest, OrganizationRoutesShareTheAuthLimit) {
  AuthApp app(OrganizationOptions(/*rate_limited=*/true));
  const Account user = app.NewAccount("rl@example.com");
  int last = 0;
  for (int i = 0; i < 101 && last != 429; ++i) {
    last = app.GetAs(user.token, "/api/auth/organization/list").status;
  }
  EXPECT_EQ(last, 429);
}

}  // namespace
}  // namespace cairn::test
