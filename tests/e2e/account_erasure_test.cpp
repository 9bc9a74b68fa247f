// Account erasure and retention (D19a) end to end, on the backend of this run: delete-user
// schedules, the purge job erases (every `_cairn_auth_*` table read from the catalog), admin
// remove-user purges at once, ECO_RETENTION_PURGE_DAYS empties the old trash, `cairn admin
// purge-due` runs the job from the shell, and concurrent runs never purge twice.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <future>
#include <set>

#include "auth/limits.hpp"
#include "e2e/auth_test_support.hpp"
#include "e2e/records_support.hpp"
#include "support/test_database.hpp"

namespace cairn::test {
namespace {

namespace json = boost::json;

constexpr std::int64_t kDay = auth::kMillisPerDay;

constexpr const char* kTables = R"(tables:
  - name: tasks
    fields:
      - name: title
        type: single-line-text
      - name: author
        type: created-by
      - name: editor
        type: updated-by
  - name: notes
    fields:
      - name: body
        type: single-line-text
)";

using Rows = std::vector<std::vector<std::optional<std::string>>>;

std::int64_t Id(const std::string& id) {
  return static_cast<std::int64_t>(std::stoll(id));
}

// The settings of the purge: grace days and, when given, retention days.
std::function<void(TestAppOptions&)> PurgeSettings(int grace_days,
                                                   std::optional<int> retention_days = {}) {
  return [=](TestAppOptions& options) {
    auto base = options.tune_settings;
    options.tune_settings = [=](app::Settings& settings) {
      if (base) base(settings);
      settings.account_deletion_grace_days = grace_days;
      settings.eco_retention_purge_days = retention_days;
    };
  };
}

class ErasureTest : public ::testing::Test {
 protected:
  void Start(int grace_days, std::optional<int> retention_days = {}) {
    // Two-factor, email codes and organizations on, so their tables hold rows of the person
    // erased.
    app_ = std::make_unique<RecordsApp>(
        kTables, "    - type: emailOtp\n  twoFactor: true\n  organizations: true\n",
        PurgeSettings(grace_days, retention_days));
  }

  RecordsApp& app() { return *app_; }
  db::Database& database() { return app_->app().app().database(); }

  Rows Query(const std::string& sql, std::initializer_list<db::Value> params = {}) {
    app_->app().app().WaitForBackgroundWork();
    Rows rows;
    Status status =
        database().Transaction(db::Access::kRead, [&](db::Connection& connection) -> Status {
          CAIRN_ASSIGN_OR_RETURN(db::Rows result, connection.Query(sql, params));
          rows = std::move(result.rows);
          return {};
        });
    if (!status.ok()) throw std::runtime_error("query failed: " + status.error().detail);
    return rows;
  }
  std::int64_t Count(const std::string& sql, std::initializer_list<db::Value> params = {}) {
    return ToInt(Query(sql, params).at(0).at(0));
  }
  void Execute(const std::string& sql, std::initializer_list<db::Value> params) {
    Status status =
        database().Transaction(db::Access::kWrite, [&](db::Connection& connection) -> Status {
          CAIRN_TRY(connection.Execute(sql, params));
          return {};
        });
    ASSERT_TRUE(status.ok()) << sql;
  }

  jobs::PurgeReport Purge(std::int64_t now) {
    auto report = app_->app().app().RunPurgeJob(now);
    if (!report.ok()) throw std::runtime_error("purge failed: " + report.error().detail);
    return std::move(report).value();
  }

  HttpResult SignIn(const std::string& email) {
    return app_->app().Client().PostJson(
        "/api/auth/sign-in/email",
        R"({"email":")" + email + R"(","password":")" + kTestPassword + "\"}");
  }
  bool SessionIsLive(const Caller& caller) {
    const auto result = app_->Send(caller, "GET", "/api/auth/get-session");
    return result.status == 200 && result.Json().is_object();
  }
  std::string EmailOf(const Caller& caller) {
    return *Query(R"(SELECT "email" FROM "_cairn_auth_users" WHERE "id" = ?)",
                  {std::string_view(caller.user_id)})
                .at(0)
                .at(0);
  }
  std::string NewRecord(const Caller& caller, const std::string& table,
                        const std::string& fields = "{}") {
    const auto created = app_->Send(caller, "POST", "/api/tables/" + table + "/records",
                                    R"({"fields":)" + fields + "}");
    EXPECT_EQ(created.status, 201) << created.body;
    return std::string(created.Json().at("id").as_string());
  }
  // Activity entries with this action: user_id and metadata.
  Rows Entries(const std::string& action) {
    return Query(R"(SELECT "user_id", "metadata", "record_id" FROM "_cairn_activity" )"
                 R"(WHERE "action" = ? ORDER BY "id")",
                 {std::string_view(action)});
  }
  // Every `_cairn_auth_*` table, as the database's own catalog lists it.
  std::vector<std::string> AuthTables() {
    const std::string sql =
        IsPostgres() ? R"(SELECT table_name FROM information_schema.tables WHERE table_schema = )"
                       R"(current_schema() AND table_name LIKE '\_cairn\_auth\_%' ESCAPE '\')"
                     : R"(SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE )"
                       R"('\_cairn\_auth\_%' ESCAPE '\')";
    std::vector<std::string> tables;
    for (const auto& row : Query(sql)) tables.push_back(*row.at(0));
    return tables;
  }
  // Every cell of every auth table that contains one of `needles`, as "table: value".
  std::vector<std::string> AuthCellsMentioning(const std::vector<std::string>& needles) {
    std::vector<std::string> found;
    for (const std::string& table : AuthTables()) {
      for (const auto& row : Query("SELECT * FROM " + db::Identifier(table).quoted())) {
        for (const auto& cell : row) {
          for (const std::string& needle : needles) {
            if (cell && cell->find(needle) != std::string::npos)
              found.push_back(table + ": " + *cell);
          }
        }
      }
    }
    return found;
  }

  std::unique_ptr<RecordsApp> app_;
};

json::object Metadata(const std::optional<std::string>& cell) {
  return cell ? json::parse(*cell).as_object() : json::object{};
}

// --- delete-user → scheduled → purge ------------------------------------------------------------

TEST_F(ErasureTest, DeleteUserSchedulesAndThePurgeLeavesNothingOfThePerson) {
  Start(7);
  const Caller member = app().NewUser("member");
  const std::string email = EmailOf(member);
  const auto second = SignIn(email);
  ASSERT_EQ(second.status, 200) << second.body;
  const Caller second_session{member.user_id, std::string(second.Json().at("token").as_string())};
  const Caller other = app().NewUser("member");

  // What the member leaves behind: a record of its own, an edit of the admin's, a trashed note,
  // a comment, a pending reset link.
  const std::string own = NewRecord(member, "tasks", R"({"title":"mine"})");
  const std::string admins = NewRecord(app().admin(), "tasks", R"({"title":"theirs"})");
  ASSERT_EQ(app()
                .Send(member, "PATCH", "/api/tables/tasks/records/" + admins,
                      R"({"fields":{"title":"edited"}})")
                .status,
            200);
  const std::string trashed = NewRecord(member, "notes", R"({"body":"old"})");
  ASSERT_EQ(app().Send(member, "DELETE", "/api/tables/notes/records/" + trashed).status, 204);
  ASSERT_EQ(app()
                .Send(member, "POST", "/api/tables/tasks/records/" + own + "/comments",
                      R"({"content":"a thought"})")
                .status,
            201);
  ASSERT_EQ(app()
                .app()
                .Client()
                .PostJson("/api/auth/request-password-reset", R"({"email":")" + email + "\"}")
                .status,
            200);
  ASSERT_EQ(Count(R"(SELECT COUNT(*) FROM "_cairn_auth_verifications" WHERE "user_id" = ?)",
                  {std::string_view(member.user_id)}),
            1);
  // Two-factor set up, and an email code asked for (keyed by the address).
  const auto enabled = app().Send(member, "POST", "/api/auth/two-factor/enable",
                                  R"({"password":")" + std::string(kTestPassword) + "\"}");
  ASSERT_EQ(enabled.status, 200) << enabled.body;
  ASSERT_EQ(Count(R"(SELECT COUNT(*) FROM "_cairn_auth_two_factor" WHERE "user_id" = ?)",
                  {std::string_view(member.user_id)}),
            1);
  ASSERT_EQ(app()
                .app()
                .Client()
                .PostJson("/api/auth/email-otp/send-verification-otp",
                          R"({"email":")" + email + R"(","type":"email-verification"})")
                .status,
            200);
  app().app().app().WaitForBackgroundWork();
  ASSERT_EQ(Count(R"(SELECT COUNT(*) FROM "_cairn_auth_email_codes" WHERE "email" = ?)",
                  {std::string_view(email)}),
            1);
  // An organization of its own (where it invites the other user), and an invitation to the
  // admin's.
  const auto own_org = app().Send(member, "POST", "/api/auth/organization/create",
                                  R"({"name":"Mine","slug":"mine"})");
  ASSERT_EQ(own_org.status, 200) << own_org.body;
  const std::string own_org_id(own_org.Json().at("id").as_string());
  const std::string other_email = EmailOf(other);
  ASSERT_EQ(app()
                .Send(member, "POST", "/api/auth/organization/invite-member",
                      R"({"email":")" + other_email + R"(","role":"member","organizationId":")" +
                          own_org_id + "\"}")
                .status,
            200);
  const auto admins_org = app().Send(app().admin(), "POST", "/api/auth/organization/create",
                                     R"({"name":"Admins","slug":"admins"})");
  ASSERT_EQ(admins_org.status, 200) << admins_org.body;
  ASSERT_EQ(app()
                .Send(app().admin(), "POST", "/api/auth/organization/invite-member",
                      R"({"email":")" + email + R"(","role":"member","organizationId":")" +
                          std::string(admins_org.Json().at("id").as_string()) + "\"}")
                .status,
            200);
  ASSERT_EQ(Count(R"(SELECT COUNT(*) FROM "_cairn_auth_members" WHERE "user_id" = ?)",
                  {std::string_view(member.user_id)}),
            1);
  ASSERT_EQ(Count(R"(SELECT COUNT(*) FROM "_cairn_auth_invitations" WHERE "email" = ?)",
                  {std::string_view(email)}),
            1);

  // A fresh session needs no password (Better Auth's freshAge).
  const auto deleted = app().Send(member, "POST", "/api/auth/delete-user", "{}");
  ASSERT_EQ(deleted.status, 200) << deleted.body;
  EXPECT_EQ(deleted.Json(), json::parse(R"({"success":true,"message":"User deleted"})"));

  // Scheduled: the entry by the member, every session ended, sign-in refused, nothing erased.
  const Rows scheduled = Entries("account.deletion.scheduled");
  ASSERT_EQ(scheduled.size(), 1u);
  EXPECT_EQ(scheduled[0][0], member.user_id);
  EXPECT_EQ(Metadata(scheduled[0][1]), (json::object{{"sessionsRevoked", 2}, {"graceDays", 7}}));
  EXPECT_FALSE(SessionIsLive(member));
  EXPECT_FALSE(SessionIsLive(second_session));
  EXPECT_TRUE(SessionIsLive(other));
  const auto refused = SignIn(email);
  EXPECT_EQ(refused.status, 403) << refused.body;
  EXPECT_EQ(CodeOf(refused), "FORBIDDEN");
  EXPECT_NE(refused.body.find("ACCOUNT_DELETION_SCHEDULED"), std::string::npos) << refused.body;
  EXPECT_EQ(SignIn("nobody@example.com").status, 401);  // unknown addresses learn nothing
  EXPECT_EQ(Count(R"(SELECT COUNT(*) FROM "_cairn_auth_users" WHERE "id" = ?)",
                  {std::string_view(member.user_id)}),
            1);

  // Before the grace period is over the job leaves the account alone.
  const std::int64_t now = NowMillis();
  EXPECT_TRUE(Purge(now).erased_user_ids.empty());
  EXPECT_TRUE(Purge(now + 7 * kDay - 60'000).erased_user_ids.empty());
  EXPECT_TRUE(Entries("account.deletion.purged").empty());

  const jobs::PurgeReport report = Purge(now + 7 * kDay + 60'000);
  EXPECT_EQ(report.erased_user_ids, std::vector<std::string>{member.user_id});
  EXPECT_FALSE(report.skipped);

  // No auth table holds the id or the address any more; the catalog lists every such table.
  const std::vector<std::string> tables = AuthTables();
  for (const char* expected :
       {"_cairn_auth_users", "_cairn_auth_sessions", "_cairn_auth_accounts",
        "_cairn_auth_verifications", "_cairn_auth_deletions", "_cairn_auth_two_factor",
        "_cairn_auth_email_codes", "_cairn_auth_organizations", "_cairn_auth_members",
        "_cairn_auth_invitations"}) {
    EXPECT_NE(std::find(tables.begin(), tables.end(), expected), tables.end()) << expected;
  }
  EXPECT_EQ(AuthCellsMentioning({member.user_id, email}), std::vector<std::string>{});
  EXPECT_FALSE(AuthCellsMentioning({app().admin().user_id}).empty());  // the check can see

  // The records stay, without the member's stamps; the admin's stamps stay.
  const Rows own_row =
      Query(R"(SELECT "created_by", "updated_by" FROM "tasks" WHERE "id" = ?)", {Id(own)});
  ASSERT_EQ(own_row.size(), 1u);
  EXPECT_EQ(own_row[0], (std::vector<std::optional<std::string>>{std::nullopt, std::nullopt}));
  const Rows admins_row =
      Query(R"(SELECT "created_by", "updated_by" FROM "tasks" WHERE "id" = ?)", {Id(admins)});
  EXPECT_EQ(admins_row.at(0),
            (std::vector<std::optional<std::string>>{app().admin().user_id, std::nullopt}));
  const Rows trashed_row =
      Query(R"(SELECT "created_by", "deleted_by", "deleted_at" FROM "notes" WHERE "id" = ?)",
            {Id(trashed)});
  ASSERT_EQ(trashed_row.size(), 1u);
  EXPECT_FALSE(trashed_row[0][0].has_value());
  EXPECT_FALSE(trashed_row[0][1].has_value());
  EXPECT_TRUE(trashed_row[0][2].has_value());  // still in the trash
  const auto shown = app().Send(app().admin(), "GET", "/api/tables/tasks/records/" + own);
  ASSERT_EQ(shown.status, 200) << shown.body;
  EXPECT_TRUE(shown.Json().at("createdBy").is_null()) << shown.body;
  EXPECT_EQ(shown.Json().at("fields").at("title"), "mine");
  EXPECT_EQ(Count(R"(SELECT COUNT(*) FROM "_cairn_comments" WHERE "user_id" IS NULL)"), 1);

  // The activity log keeps its entries without the actor (nor where it acted from), and the
  // purge entry, by nobody, names the old id.
  EXPECT_EQ(Count(R"(SELECT COUNT(*) FROM "_cairn_activity" WHERE "user_id" = ?)",
                  {std::string_view(member.user_id)}),
            0);
  EXPECT_EQ(Entries("account.deletion.scheduled").size(), 1u);
  const Rows purged = Entries("account.deletion.purged");
  ASSERT_EQ(purged.size(), 1u);
  EXPECT_FALSE(purged[0][0].has_value());
  EXPECT_EQ(Metadata(purged[0][1]),
            (json::object{{"userId", member.user_id}, {"requestedBy", "user"}}));
  EXPECT_EQ(Count(R"(SELECT COUNT(*) FROM "_cairn_activity" WHERE "ip_address" IS NOT NULL )"
                  R"(AND "user_id" IS NULL AND "action" = 'sign_in')"),
            0);

  // A later run finds nothing more to do; the address may sign up again.
  EXPECT_TRUE(Purge(now + 30 * kDay).erased_user_ids.empty());
  EXPECT_EQ(Entries("account.deletion.purged").size(), 1u);
}

TEST_F(ErasureTest, DeleteUserNeedsThePasswordOrAFreshSession) {
  Start(7);
  const Caller member = app().NewUser("member");
  const auto wrong =
      app().Send(member, "POST", "/api/auth/delete-user", R"({"password":"not the password"})");
  EXPECT_EQ(wrong.status, 400) << wrong.body;
  EXPECT_NE(wrong.body.find("INVALID_PASSWORD"), std::string::npos) << wrong.body;
  const auto bad_type = app().Send(member, "POST", "/api/auth/delete-user", R"({"password":7})");
  EXPECT_EQ(bad_type.status, 400) << bad_type.body;

  // A session signed in more than a day ago needs the password.
  Execute(R"(UPDATE "_cairn_auth_sessions" SET "created_at" = ? WHERE "user_id" = ?)",
          {NowMillis() - 2 * kDay, std::string_view(member.user_id)});
  WaitOutSessionCache();
  const auto stale = app().Send(member, "POST", "/api/auth/delete-user", "{}");
  EXPECT_EQ(stale.status, 400) << stale.body;
  EXPECT_NE(stale.body.find("SESSION_EXPIRED"), std::string::npos) << stale.body;
  EXPECT_TRUE(Entries("account.deletion.scheduled").empty());
  EXPECT_EQ(Count(R"(SELECT COUNT(*) FROM "_cairn_auth_deletions")"), 0);
  EXPECT_TRUE(SessionIsLive(member));

  const auto ok = app().Send(member, "POST", "/api/auth/delete-user",
                             R"({"password":")" + std::string(kTestPassword) + "\"}");
  ASSERT_EQ(ok.status, 200) << ok.body;
  EXPECT_EQ(Count(R"(SELECT COUNT(*) FROM "_cairn_auth_deletions" WHERE "user_id" = ?)",
                  {std::string_view(member.user_id)}),
            1);
  EXPECT_FALSE(SessionIsLive(member));
  // The admin cannot open a session for it either.
  const auto impersonated = app().Send(app().admin(), "POST", "/api/auth/admin/impersonate-user",
                                       R"({"userId":")" + member.user_id + "\"}");
  EXPECT_EQ(impersonated.status, 403) << impersonated.body;
}

TEST_F(ErasureTest, AGraceOfZeroPurgesAtOnce) {
  Start(0);
  const Caller member = app().NewUser("member");
  const std::string email = EmailOf(member);
  const std::string own = NewRecord(member, "tasks", R"({"title":"mine"})");
  const auto deleted = app().Send(member, "POST", "/api/auth/delete-user", "{}");
  ASSERT_EQ(deleted.status, 200) << deleted.body;
  EXPECT_EQ(AuthCellsMentioning({member.user_id, email}), std::vector<std::string>{});
  EXPECT_EQ(Entries("account.deletion.scheduled").size(), 1u);
  EXPECT_FALSE(Entries("account.deletion.scheduled")[0][0].has_value());  // its actor is gone too
  ASSERT_EQ(Entries("account.deletion.purged").size(), 1u);
  EXPECT_EQ(
      Count(R"(SELECT COUNT(*) FROM "tasks" WHERE "id" = ? AND "created_by" IS NULL)", {Id(own)}),
      1);
  EXPECT_EQ(SignIn(email).status, 401);
}

// --- admin remove-user --------------------------------------------------------------------------

TEST_F(ErasureTest, AdminRemoveUserPurgesAtOnce) {
  Start(7);
  const Caller member = app().NewUser("member");
  const std::string email = EmailOf(member);
  const std::string own = NewRecord(member, "tasks", R"({"title":"mine"})");
  // A scheduled deletion is no obstacle: the admin purges now.
  ASSERT_EQ(app().Send(member, "POST", "/api/auth/delete-user", "{}").status, 200);
  const auto removed = app().Send(app().admin(), "POST", "/api/auth/admin/remove-user",
                                  R"({"userId":")" + member.user_id + "\"}");
  ASSERT_EQ(removed.status, 200) << removed.body;
  EXPECT_EQ(AuthCellsMentioning({member.user_id, email}), std::vector<std::string>{});
  EXPECT_EQ(Count(R"(SELECT COUNT(*) FROM "tasks" WHERE "id" = ? AND "created_by" IS NULL )"
                  R"(AND "updated_by" IS NULL)",
                  {Id(own)}),
            1);
  const Rows purged = Entries("account.deletion.purged");
  ASSERT_EQ(purged.size(), 1u);
  EXPECT_EQ(Metadata(purged[0][1]),
            (json::object{{"userId", member.user_id}, {"requestedBy", "admin"}}));
  const Rows by_admin = Entries("user.remove");
  ASSERT_EQ(by_admin.size(), 1u);
  EXPECT_EQ(by_admin[0][0], app().admin().user_id);
  // Nothing is left for the job.
  EXPECT_TRUE(Purge(NowMillis() + 8 * kDay).erased_user_ids.empty());
  EXPECT_EQ(Entries("account.deletion.purged").size(), 1u);
}

// --- retention ----------------------------------------------------------------------------------

TEST_F(ErasureTest, RetentionPurgesOnlyTrashOlderThanTheSetting) {
  Start(7, 30);
  const Caller& admin = app().admin();
  const std::string old_note = NewRecord(admin, "notes", R"({"body":"old"})");
  const std::string recent_note = NewRecord(admin, "notes", R"({"body":"recent"})");
  const std::string live_note = NewRecord(admin, "notes", R"({"body":"live"})");
  const std::string old_task = NewRecord(admin, "tasks", R"({"title":"old task"})");
  ASSERT_EQ(app()
                .Send(admin, "POST", "/api/tables/notes/records/" + old_note + "/comments",
                      R"({"content":"goes with it"})")
                .status,
            201);
  for (const auto& [table, id] : std::vector<std::pair<std::string, std::string>>{
           {"notes", old_note}, {"notes", recent_note}, {"tasks", old_task}}) {
    ASSERT_EQ(app().Send(admin, "DELETE", "/api/tables/" + table + "/records/" + id).status, 204);
  }
  const std::int64_t now = NowMillis();
  // Trashed 31 days ago; the recent one 29 days ago: just inside the horizon.
  Execute(R"(UPDATE "notes" SET "deleted_at" = ? WHERE "id" = ?)",
          {db::Timestamp{now - 31 * kDay}, Id(old_note)});
  Execute(R"(UPDATE "notes" SET "deleted_at" = ? WHERE "id" = ?)",
          {db::Timestamp{now - 29 * kDay}, Id(recent_note)});
  Execute(R"(UPDATE "tasks" SET "deleted_at" = ? WHERE "id" = ?)",
          {db::Timestamp{now - 40 * kDay}, Id(old_task)});

  const jobs::PurgeReport report = Purge(now);
  EXPECT_TRUE(report.retention_enabled);
  ASSERT_EQ(report.retention.size(), 2u);
  EXPECT_EQ(report.retention[0].table, "tasks");
  EXPECT_EQ(report.retention[0].purged, 1);
  EXPECT_EQ(report.retention[1].table, "notes");
  EXPECT_EQ(report.retention[1].purged, 1);

  EXPECT_EQ(Count(R"(SELECT COUNT(*) FROM "notes" WHERE "id" = ?)", {Id(old_note)}), 0);
  EXPECT_EQ(Count(R"(SELECT COUNT(*) FROM "tasks" WHERE "id" = ?)", {Id(old_task)}), 0);
  EXPECT_EQ(Count(R"(SELECT COUNT(*) FROM "notes" WHERE "id" = ? AND "deleted_at" IS NOT NULL)",
                  {Id(recent_note)}),
            1);
  EXPECT_EQ(Count(R"(SELECT COUNT(*) FROM "notes" WHERE "id" = ? AND "deleted_at" IS NULL)",
                  {Id(live_note)}),
            1);
  EXPECT_EQ(Count(R"(SELECT COUNT(*) FROM "_cairn_comments")"), 0);

  const Rows entries = Query(
      R"(SELECT "table_name", "record_id", "user_id", "metadata", "changes" FROM "_cairn_activity" )"
      R"(WHERE "action" = 'permanent_delete' ORDER BY "id")");
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0][0], "tasks");
  EXPECT_EQ(entries[0][1], old_task);
  EXPECT_EQ(entries[1][0], "notes");
  EXPECT_EQ(entries[1][1], old_note);
  for (const auto& entry : entries) {
    EXPECT_FALSE(entry[2].has_value());  // nobody acted
    EXPECT_EQ(Metadata(entry[3]), (json::object{{"reason", "retention"}}));
    ASSERT_TRUE(entry[4].has_value());
    EXPECT_TRUE(json::parse(*entry[4]).at("after").is_null());
  }
  EXPECT_EQ(json::parse(*entries[1][4]).at("before").at("body"), "old");

  // The next run has nothing left; a day later the recent one is past the horizon too.
  EXPECT_TRUE(Purge(now).retention.empty());
  const jobs::PurgeReport later = Purge(now + 2 * kDay);
  ASSERT_EQ(later.retention.size(), 1u);
  EXPECT_EQ(later.retention[0].purged, 1);
  EXPECT_EQ(Count(R"(SELECT COUNT(*) FROM "notes")"), 1);
}

TEST_F(ErasureTest, WithoutTheRetentionSettingTheTrashStays) {
  Start(7);
  const std::string note = NewRecord(app().admin(), "notes", R"({"body":"kept"})");
  ASSERT_EQ(app().Send(app().admin(), "DELETE", "/api/tables/notes/records/" + note).status, 204);
  const jobs::PurgeReport report = Purge(NowMillis() + 10'000 * kDay);
  EXPECT_FALSE(report.retention_enabled);
  EXPECT_EQ(Count(R"(SELECT COUNT(*) FROM "notes")"), 1);
}

// --- cairn admin purge-due ----------------------------------------------------------------------

TEST_F(ErasureTest, PurgeDueFromTheCommandLine) {
  Start(7);
  const Caller member = app().NewUser("member");
  const std::string email = EmailOf(member);
  ASSERT_EQ(app().Send(member, "POST", "/api/auth/delete-user", "{}").status, 200);
  const std::string note = NewRecord(app().admin(), "notes", R"({"body":"old"})");
  ASSERT_EQ(app().Send(app().admin(), "DELETE", "/api/tables/notes/records/" + note).status, 204);
  Execute(R"(UPDATE "notes" SET "deleted_at" = ? WHERE "id" = ?)",
          {db::Timestamp{NowMillis() - 3 * kDay}, Id(note)});

  const std::filesystem::path config = app().app().data_dir() / "erasure.yaml";
  std::ofstream(config) << "name: records-app\nversion: 1.0.0\n"
                        << kTables << "\nauth:\n  strategies:\n    - type: emailAndPassword\n";
  const auto run = [&](const std::string& settings) {
    std::string command = settings + " '" CAIRN_BINARY "' admin purge-due '" + config.string() +
                          "' --data-dir '" + app().app().data_dir().string() + "'";
    // The environment of this test names no database: the one of the app, or SQLite.
    command = app().app().database_url().empty()
                  ? "-u DATABASE_URL " + command
                  : "DATABASE_URL='" + app().app().database_url() + "' " + command;
    std::string output;
    FILE* pipe = popen(("env " + command + " 2>&1").c_str(), "r");
    char buffer[512];
    while (pipe != nullptr && fgets(buffer, sizeof buffer, pipe) != nullptr) output += buffer;
    const int status = pipe != nullptr ? pclose(pipe) : -1;
    return std::pair(status, output);
  };
  // The grace period is not over: nothing to erase, and without the setting no retention.
  const auto [early_status, early] = run("ACCOUNT_DELETION_GRACE_DAYS=7");
  EXPECT_EQ(early_status, 0) << early;
  EXPECT_NE(early.find("accounts erased: 0"), std::string::npos) << early;
  EXPECT_NE(early.find("retention: off"), std::string::npos) << early;

  // With a shorter grace and a retention horizon, while the server keeps serving.
  const auto [status, output] = run("ACCOUNT_DELETION_GRACE_DAYS=0 ECO_RETENTION_PURGE_DAYS=2");
  EXPECT_EQ(status, 0) << output;
  EXPECT_NE(output.find("accounts erased: 1"), std::string::npos) << output;
  EXPECT_NE(output.find("erased user " + member.user_id), std::string::npos) << output;
  EXPECT_NE(output.find("records purged from the trash: 1"), std::string::npos) << output;
  EXPECT_NE(output.find("notes: 1 purged"), std::string::npos) << output;
  EXPECT_EQ(AuthCellsMentioning({member.user_id, email}), std::vector<std::string>{});
  EXPECT_EQ(Count(R"(SELECT COUNT(*) FROM "notes")"), 0);
  EXPECT_EQ(Entries("account.deletion.purged").size(), 1u);
  EXPECT_EQ(app().Send(app().admin(), "GET", "/api/auth/get-session").status, 200);

  // The database's active schema version describes the tables, not the file: a file edited since
  // the last start (the next start publishes it) does not stop the job.
  std::ofstream(config) << "name: records-app\nversion: 1.0.0\n"
                        << kTables
                        << "  - name: extra\n    fields:\n      - name: x\n        type: "
                           "single-line-text\n"
                        << "\nauth:\n  strategies:\n    - type: emailAndPassword\n";
  const auto [edited_status, edited] = run("ACCOUNT_DELETION_GRACE_DAYS=0");
  EXPECT_EQ(edited_status, 0) << edited;
  EXPECT_NE(edited.find("accounts erased: 0"), std::string::npos) << edited;
}

// --- concurrent runs ----------------------------------------------------------------------------

TEST_F(ErasureTest, ConcurrentRunsNeverPurgeTwice) {
  Start(7, 1);
  std::vector<Caller> members;
  for (int i = 0; i < 6; ++i) {
    members.push_back(app().NewUser("member"));
    ASSERT_EQ(app().Send(members.back(), "POST", "/api/auth/delete-user", "{}").status, 200);
  }
  for (int i = 0; i < 5; ++i) {
    const std::string note = NewRecord(app().admin(), "notes", R"({"body":"x"})");
    ASSERT_EQ(app().Send(app().admin(), "DELETE", "/api/tables/notes/records/" + note).status, 204);
  }
  const std::int64_t later = NowMillis() + 8 * kDay;

  if (IsPostgres()) {
    // While another node holds the job's lock, a run stops without touching anything.
    std::promise<void> locked;
    std::promise<void> release;
    auto holder = std::async(std::launch::async, [&] {
      return database().Transaction(db::Access::kWrite, [&](db::Connection& connection) -> Status {
        CAIRN_TRY(connection.Execute(*connection.dialect().TryJobLockSql(),
                                     {std::string_view(jobs::kPurgeJobName)}));
        locked.set_value();
        release.get_future().wait();
        return {};
      });
    });
    locked.get_future().wait();
    const jobs::PurgeReport blocked = Purge(later);
    release.set_value();
    ASSERT_TRUE(holder.get().ok());
    EXPECT_TRUE(blocked.skipped);
    EXPECT_TRUE(blocked.erased_user_ids.empty());
    EXPECT_TRUE(Entries("account.deletion.purged").empty());
  }

  auto first = std::async(std::launch::async, [&] { return Purge(later); });
  auto second = std::async(std::launch::async, [&] { return Purge(later); });
  const jobs::PurgeReport a = first.get();
  const jobs::PurgeReport b = second.get();
  std::multiset<std::string> erased(a.erased_user_ids.begin(), a.erased_user_ids.end());
  erased.insert(b.erased_user_ids.begin(), b.erased_user_ids.end());
  // Whatever one run left (the other held the lock), a third finishes.
  const jobs::PurgeReport c = Purge(later);
  erased.insert(c.erased_user_ids.begin(), c.erased_user_ids.end());
  std::multiset<std::string> expected;
  for (const Caller& member : members) expected.insert(member.user_id);
  EXPECT_EQ(erased, expected);
  EXPECT_EQ(Entries("account.deletion.purged").size(), members.size());
  EXPECT_EQ(Entries("permanent_delete").size(), 5u);
  EXPECT_EQ(Count(R"(SELECT COUNT(*) FROM "notes")"), 0);
  std::set<std::string> purged_ids;
  for (const auto& entry : Entries("account.deletion.purged")) {
    purged_ids.insert(std::string(Metadata(entry[1]).at("userId").as_string()));
  }
  EXPECT_EQ(purged_ids.size(), members.size());
}

}  // namespace
}  // namespace cairn::test
