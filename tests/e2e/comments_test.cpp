// Comments on records over HTTP on the backend of this run (interface.md "Records", D20, D21,
// D36): every route, the comment shape and its user, who may read, post, edit and delete,
// record visibility, content validation, pagination, the activity entries, and the hook that
// removes a record's comments when the record is deleted for good.
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "e2e/records_support.hpp"
#include "records/comment_service.hpp"

namespace cairn::test {
namespace {

constexpr const char* kTables = R"(tables:
  - id: 1
    name: tasks
    fields:
      - { id: 1, name: title, type: single-line-text }
  - id: 2
    name: secrets
    fields:
      - { id: 1, name: code, type: single-line-text }
    permissions:
      read: [admin]
  - id: 3
    name: announcements
    fields:
      - { id: 1, name: title, type: single-line-text }
    permissions:
      comment: [admin]
)";

std::string Body(const boost::json::value& content) {
  return boost::json::serialize(boost::json::object{{"content", content}});
}

std::string CommentsPath(const std::string& table, const std::string& record_id) {
  return "/api/tables/" + table + "/records/" + record_id + "/comments";
}

class CommentsTest : public ::testing::Test {
 protected:
  CommentsTest()
      : app_(kTables, "", [](TestAppOptions& options) {
          // delete-user erases at once (D19a), so the comments lose their author now.
          options.tune_settings = [base = options.tune_settings](app::Settings& settings) {
            base(settings);
            settings.account_deletion_grace_days = 0;
          };
        }) {}

  // A record of `table` made by the admin; its id.
  std::string NewRecord(const std::string& table = "tasks") {
    const auto created =
        app_.Send(app_.admin(), "POST", "/api/tables/" + table + "/records", R"({"fields":{}})");
    EXPECT_EQ(created.status, 201) << created.body;
    return std::string(created.Json().at("id").as_string());
  }

  // Posts a comment that must be accepted; the comment object.
  boost::json::object Post(const Caller& caller, const std::string& record_id,
                           const std::string& content, const std::string& table = "tasks") {
    const auto posted = app_.Send(caller, "POST", CommentsPath(table, record_id),
                                  Body(boost::json::string(content)));
    EXPECT_EQ(posted.status, 201) << posted.body;
    const auto json = posted.Json();
    if (!json.is_object() || !json.as_object().contains("comment")) return {};
    return json.at("comment").as_object();
  }

  static std::string IdOf(const boost::json::object& comment) {
    return comment.contains("id") ? std::string(comment.at("id").as_string()) : "";
  }

  // Rows of `_cairn_comments` for one record, straight from the database.
  std::size_t StoredComments(const std::string& table, const std::string& record_id) {
    std::size_t count = 0;
    const Status status = app_.app().app().database().Transaction(
        db::Access::kRead, [&](db::Connection& connection) -> Status {
          CAIRN_ASSIGN_OR_RETURN(
              auto rows, connection.Query(R"(SELECT "id" FROM "_cairn_comments" )"
                                          R"(WHERE "table_name" = ? AND "record_id" = ?)",
                                          {std::string_view(table), std::stoll(record_id)}));
          count = rows.rows.size();
          return {};
        });
    EXPECT_TRUE(status.ok()) << status.error().detail;
    return count;
  }

  RecordsApp app_;
};

// --- Every route ------------------------------------------------------------------------------

TEST_F(CommentsTest, LifecycleOverEveryRoute) {
  const Caller member = app_.NewUser("member");  // "User 1", member1@example.com
  const std::string record = NewRecord();
  const std::string path = CommentsPath("tasks", record);

  const auto posted = app_.Send(member, "POST", path, Body("First thought"));
  ASSERT_EQ(posted.status, 201) << posted.body;
  const auto comment = posted.Json().at("comment").as_object();
  const std::string id = IdOf(comment);
  EXPECT_FALSE(id.empty());
  EXPECT_EQ(comment.at("recordId"), boost::json::value(record));
  EXPECT_EQ(comment.at("tableId"), "1");  // the table's id, as a string
  EXPECT_EQ(comment.at("userId"), boost::json::value(member.user_id));
  EXPECT_EQ(comment.at("content"), "First thought");
  EXPECT_TRUE(comment.at("createdAt").is_string());
  EXPECT_EQ(comment.at("createdAt"), comment.at("updatedAt"));
  const boost::json::value user = {
      {"id", member.user_id}, {"name", "User 1"}, {"email", "member1@example.com"}};
  EXPECT_EQ(comment.at("user"), user);
  EXPECT_EQ(comment.size(), 8u) << posted.body;

  const auto listed = app_.Send(member, "GET", path);
  ASSERT_EQ(listed.status, 200) << listed.body;
  const boost::json::value expected_list = {
      {"comments", boost::json::array{comment}},
      {"pagination", {{"total", 1}, {"limit", 100}, {"offset", 0}}}};
  EXPECT_EQ(listed.Json(), expected_list);

  const auto read = app_.Send(member, "GET", path + "/" + id);
  ASSERT_EQ(read.status, 200) << read.body;
  EXPECT_EQ(read.Json(), boost::json::value({{"comment", comment}}));
  // The table by name, slug or id: the same comment.
  EXPECT_EQ(app_.Send(member, "GET", CommentsPath("1", record) + "/" + id).Json(), read.Json());

  const auto patched = app_.Send(member, "PATCH", path + "/" + id, Body("Second thought"));
  ASSERT_EQ(patched.status, 200) << patched.body;
  const auto edited = patched.Json().at("comment").as_object();
  EXPECT_EQ(edited.at("id"), comment.at("id"));
  EXPECT_EQ(edited.at("content"), "Second thought");
  EXPECT_EQ(edited.at("createdAt"), comment.at("createdAt"));
  EXPECT_GT(edited.at("updatedAt").as_string(), comment.at("updatedAt").as_string());
  EXPECT_EQ(edited.at("user"), user);
  EXPECT_EQ(app_.Send(member, "GET", path + "/" + id).Json().at("comment"),
            boost::json::value(edited));

  const auto deleted = app_.Send(member, "DELETE", path + "/" + id);
  EXPECT_EQ(deleted.status, 204) << deleted.body;
  EXPECT_TRUE(deleted.body.empty());
  EXPECT_EQ(app_.Send(member, "GET", path + "/" + id).status, 404);
  EXPECT_EQ(app_.Send(member, "PATCH", path + "/" + id, Body("x")).status, 404);
  EXPECT_EQ(app_.Send(member, "DELETE", path + "/" + id).status, 404);
  EXPECT_EQ(app_.Send(member, "GET", path).Json().at("pagination").at("total"), 0);
}

TEST_F(CommentsTest, ContentIsStoredAsSent) {
  const std::string record = NewRecord();
  const std::string text = "  Line one\n\tLine two: caf\xC3\xA9 \xF0\x9F\x8E\x89 \"quoted\" \\  ";
  const auto comment = Post(app_.admin(), record, text);
  EXPECT_EQ(comment.at("content"), boost::json::value(text));
  EXPECT_EQ(app_.Send(app_.admin(), "GET", CommentsPath("tasks", record) + "/" + IdOf(comment))
                .Json()
                .at("comment")
                .at("content"),
            boost::json::value(text));
}

// --- Who may do what (D20, D21, D36) ----------------------------------------------------------

TEST_F(CommentsTest, NoSessionIs401OnEveryRoute) {
  const std::string record = NewRecord();
  const std::string id = IdOf(Post(app_.admin(), record, "hello"));
  const std::string path = CommentsPath("tasks", record);
  const Caller nobody;
  const Caller forged{"", "not-a-session-token"};
  for (const Caller& caller : {nobody, forged}) {
    EXPECT_EQ(app_.Send(caller, "POST", path, Body("x")).status, 401);
    EXPECT_EQ(app_.Send(caller, "GET", path).status, 401);
    EXPECT_EQ(app_.Send(caller, "GET", path + "/" + id).status, 401);
    EXPECT_EQ(app_.Send(caller, "PATCH", path + "/" + id, Body("x")).status, 401);
    EXPECT_EQ(app_.Send(caller, "DELETE", path + "/" + id).status, 401);
  }
  // 401 before anything else is looked at (D17): bad bodies, bad queries, missing things.
  EXPECT_EQ(app_.Send(nobody, "POST", path, "not json at all").status, 401);
  EXPECT_EQ(app_.Send(nobody, "GET", path + "?limit=0").status, 401);
  EXPECT_EQ(app_.Send(nobody, "GET", CommentsPath("nope", "999")).status, 401);
  const auto answer = app_.Send(nobody, "GET", path);
  EXPECT_EQ(CodeOf(answer), "UNAUTHORIZED");
  // Nothing changed.
  EXPECT_EQ(app_.Send(app_.admin(), "GET", path + "/" + id).Json().at("comment").at("content"),
            "hello");
}

TEST_F(CommentsTest, MembersPostAndChangeOnlyTheirOwn) {
  const Caller ann = app_.NewUser("member");
  const Caller bob = app_.NewUser("member");
  const std::string record = NewRecord();
  const std::string path = CommentsPath("tasks", record);
  const std::string anns = IdOf(Post(ann, record, "Ann's"));

  // Bob reads Ann's comment but may not change it: a 404, as if it did not exist (D36).
  EXPECT_EQ(app_.Send(bob, "GET", path + "/" + anns).status, 200);
  const auto patch = app_.Send(bob, "PATCH", path + "/" + anns, Body("Bob was here"));
  EXPECT_EQ(patch.status, 404) << patch.body;
  EXPECT_EQ(CodeOf(patch), "NOT_FOUND");
  EXPECT_EQ(app_.Send(bob, "DELETE", path + "/" + anns).status, 404);
  // Even with a bad body, another's comment is a 404 (not a 400).
  EXPECT_EQ(app_.Send(bob, "PATCH", path + "/" + anns, R"({"content":""})").status, 404);
  EXPECT_EQ(app_.Send(ann, "GET", path + "/" + anns).Json().at("comment").at("content"), "Ann's");

  // Bob's own are his to change.
  const std::string bobs = IdOf(Post(bob, record, "Bob's"));
  EXPECT_EQ(app_.Send(bob, "PATCH", path + "/" + bobs, Body("Bob's, edited")).status, 200);
  EXPECT_EQ(app_.Send(ann, "DELETE", path + "/" + bobs).status, 404);
  EXPECT_EQ(app_.Send(bob, "DELETE", path + "/" + bobs).status, 204);
  EXPECT_EQ(app_.Send(ann, "GET", path).Json().at("pagination").at("total"), 1);
}

TEST_F(CommentsTest, AdminsMayChangeAnyComment) {
  const Caller member = app_.NewUser("member");
  const std::string record = NewRecord();
  const std::string path = CommentsPath("tasks", record);
  const std::string id = IdOf(Post(member, record, "mine"));

  const auto patched = app_.Send(app_.admin(), "PATCH", path + "/" + id, Body("moderated"));
  ASSERT_EQ(patched.status, 200) << patched.body;
  // The author stays the author.
  EXPECT_EQ(patched.Json().at("comment").at("userId"), boost::json::value(member.user_id));
  EXPECT_EQ(patched.Json().at("comment").at("user").at("id"), boost::json::value(member.user_id));
  EXPECT_EQ(patched.Json().at("comment").at("content"), "moderated");
  EXPECT_EQ(app_.Send(app_.admin(), "DELETE", path + "/" + id).status, 204);
  EXPECT_EQ(app_.Send(member, "GET", path + "/" + id).status, 404);
}

TEST_F(CommentsTest, ViewersReadButMayNotComment) {
  const Caller viewer = app_.NewUser("viewer");
  const Caller member = app_.NewUser("member");
  const std::string record = NewRecord();
  const std::string path = CommentsPath("tasks", record);
  const std::string id = IdOf(Post(member, record, "by a member"));

  EXPECT_EQ(app_.Send(viewer, "GET", path).status, 200);
  EXPECT_EQ(app_.Send(viewer, "GET", path + "/" + id).status, 200);
  const auto posted = app_.Send(viewer, "POST", path, Body("by a viewer"));
  EXPECT_EQ(posted.status, 403) << posted.body;
  EXPECT_EQ(CodeOf(posted), "FORBIDDEN");
  // The permission is answered before the content is looked at (D21: 403, then 400).
  EXPECT_EQ(app_.Send(viewer, "POST", path, R"({})").status, 403);
  // Someone else's comment: 404 on write, whatever the permission (D36).
  EXPECT_EQ(app_.Send(viewer, "PATCH", path + "/" + id, Body("x")).status, 404);
  EXPECT_EQ(app_.Send(viewer, "DELETE", path + "/" + id).status, 404);
  EXPECT_EQ(app_.Send(viewer, "GET", path).Json().at("pagination").at("total"), 1);
}

TEST_F(CommentsTest, LosingTheCommentPermissionStopsEditingOwnComments) {
  const Caller member = app_.NewUser("member");
  const std::string record = NewRecord();
  const std::string path = CommentsPath("tasks", record);
  const std::string id = IdOf(Post(member, record, "before the demotion"));
  ASSERT_EQ(app_.Send(app_.admin(), "POST", "/api/auth/admin/set-role",
                      R"({"userId":")" + member.user_id + R"(","role":"viewer"})")
                .status,
            200);
  EXPECT_EQ(app_.Send(member, "GET", path + "/" + id).status, 200);
  EXPECT_EQ(app_.Send(member, "PATCH", path + "/" + id, Body("after")).status, 403);
  EXPECT_EQ(app_.Send(member, "DELETE", path + "/" + id).status, 403);
  EXPECT_EQ(app_.Send(member, "POST", path, Body("new")).status, 403);
  EXPECT_EQ(app_.Send(member, "GET", path + "/" + id).Json().at("comment").at("content"),
            "before the demotion");
}

TEST_F(CommentsTest, TheTablesCommentRuleDecidesWhoPosts) {
  // announcements: comment: [admin]; members still read it.
  const Caller member = app_.NewUser("member");
  const std::string record = NewRecord("announcements");
  const std::string path = CommentsPath("announcements", record);
  const auto denied = app_.Send(member, "POST", path, Body("may I?"));
  EXPECT_EQ(denied.status, 403) << denied.body;
  const auto comment = Post(app_.admin(), record, "admins only", "announcements");
  EXPECT_EQ(comment.at("tableId"), "3");
  EXPECT_EQ(app_.Send(member, "GET", path).Json().at("pagination").at("total"), 1);
  EXPECT_EQ(app_.Send(member, "GET", path + "/" + IdOf(comment)).status, 200);
  EXPECT_EQ(app_.Send(member, "PATCH", path + "/" + IdOf(comment), Body("x")).status, 404);
}

TEST_F(CommentsTest, NoReadAccessToTheTableIs404ForEverything) {
  // secrets: read: [admin]. Members and viewers get the same 404 as for a missing table.
  const std::string record = NewRecord("secrets");
  const std::string path = CommentsPath("secrets", record);
  const std::string id = IdOf(Post(app_.admin(), record, "classified", "secrets"));
  for (const Caller& caller : {app_.NewUser("member"), app_.NewUser("viewer")}) {
    for (const auto& [method, target, body] :
         std::vector<std::tuple<std::string, std::string, std::string>>{
             {"POST", path, Body("x")},
             {"POST", path, R"({})"},
             {"GET", path, ""},
             {"GET", path + "/" + id, ""},
             {"PATCH", path + "/" + id, Body("x")},
             {"DELETE", path + "/" + id, ""},
             {"GET", CommentsPath("secrets", "999"), ""},
         }) {
      const auto answer = app_.Send(caller, method, target, body);
      EXPECT_EQ(answer.status, 404) << method << " " << target << ": " << answer.body;
      EXPECT_EQ(CodeOf(answer), "NOT_FOUND");
    }
  }
  EXPECT_EQ(app_.Send(app_.admin(), "GET", path + "/" + id).status, 200);
  EXPECT_EQ(app_.Send(app_.admin(), "GET", CommentsPath("nope", record)).status, 404);
}

// --- Record visibility ------------------------------------------------------------------------

TEST_F(CommentsTest, MissingOrDeletedRecordsHaveNoComments) {
  const Caller member = app_.NewUser("member");
  const std::string record = NewRecord();
  const std::string other = NewRecord();
  const std::string path = CommentsPath("tasks", record);
  const std::string id = IdOf(Post(member, record, "on the record"));

  // Ids that name no record, and a comment asked for under another record.
  for (const std::string& missing : {std::string("999"), std::string("0"), std::string("-1"),
                                     std::string("abc"), std::string("1x")}) {
    EXPECT_EQ(app_.Send(member, "GET", CommentsPath("tasks", missing)).status, 404) << missing;
    EXPECT_EQ(app_.Send(member, "POST", CommentsPath("tasks", missing), Body("x")).status, 404)
        << missing;
    EXPECT_EQ(app_.Send(member, "GET", CommentsPath("tasks", missing) + "/" + id).status, 404)
        << missing;
  }
  const std::string elsewhere = CommentsPath("tasks", other) + "/" + id;
  EXPECT_EQ(app_.Send(member, "GET", elsewhere).status, 404);
  EXPECT_EQ(app_.Send(member, "PATCH", elsewhere, Body("x")).status, 404);
  EXPECT_EQ(app_.Send(member, "DELETE", elsewhere).status, 404);
  EXPECT_EQ(app_.Send(app_.admin(), "DELETE", elsewhere).status, 404);
  for (const std::string& missing : {std::string("999999"), std::string("0"), std::string("x")}) {
    EXPECT_EQ(app_.Send(member, "GET", path + "/" + missing).status, 404) << missing;
    EXPECT_EQ(app_.Send(app_.admin(), "PATCH", path + "/" + missing, Body("x")).status, 404)
        << missing;
    EXPECT_EQ(app_.Send(app_.admin(), "DELETE", path + "/" + missing).status, 404) << missing;
  }
  // A missing record is a 404 before the content is looked at.
  EXPECT_EQ(app_.Send(member, "POST", CommentsPath("tasks", "999"), R"({})").status, 404);

  // Soft-deleted: every route is a 404, for admins too; restored, the comments are back.
  ASSERT_EQ(app_.Send(app_.admin(), "DELETE", "/api/tables/tasks/records/" + record).status, 204);
  for (const Caller& caller : {member, app_.admin()}) {
    EXPECT_EQ(app_.Send(caller, "GET", path).status, 404);
    EXPECT_EQ(app_.Send(caller, "GET", path + "/" + id).status, 404);
    EXPECT_EQ(app_.Send(caller, "POST", path, Body("x")).status, 404);
    EXPECT_EQ(app_.Send(caller, "PATCH", path + "/" + id, Body("x")).status, 404);
    EXPECT_EQ(app_.Send(caller, "DELETE", path + "/" + id).status, 404);
  }
  ASSERT_EQ(
      app_.Send(app_.admin(), "POST", "/api/tables/tasks/records/" + record + "/restore").status,
      200);
  const auto back = app_.Send(member, "GET", path);
  ASSERT_EQ(back.status, 200);
  ASSERT_EQ(back.Json().at("comments").as_array().size(), 1u);
  EXPECT_EQ(back.Json().at("comments").at(0).at("content"), "on the record");
}

TEST_F(CommentsTest, DeleteCommentsOfRemovesOneRecordsComments) {
  const std::string record = NewRecord();
  const std::string other = NewRecord();
  Post(app_.admin(), record, "one");
  Post(app_.admin(), record, "two");
  Post(app_.admin(), other, "kept");
  ASSERT_EQ(StoredComments("tasks", record), 2u);
  const Status status =
      app_.app().app().database().Transaction(db::Access::kWrite, [&](db::Connection& connection) {
        return records::DeleteCommentsOf(connection, "tasks", std::stoll(record));
      });
  ASSERT_TRUE(status.ok()) << status.error().detail;
  EXPECT_EQ(StoredComments("tasks", record), 0u);
  EXPECT_EQ(StoredComments("tasks", other), 1u);
  EXPECT_EQ(app_.Send(app_.admin(), "GET", CommentsPath("tasks", record))
                .Json()
                .at("pagination")
                .at("total"),
            0);
}

// --- Content ----------------------------------------------------------------------------------

TEST_F(CommentsTest, ContentMustBeOneToTenThousandCharacters) {
  const Caller member = app_.NewUser("member");
  const std::string record = NewRecord();
  const std::string path = CommentsPath("tasks", record);
  const std::string id = IdOf(Post(member, record, "original"));

  const std::vector<std::string> bad = {
      R"({})",
      R"({"text":"hello"})",
      Body(""),
      Body(boost::json::string(std::string(10'001, 'a'))),
      // 10 001 characters in 20 002 bytes: characters are counted, not bytes.
      Body([] {
        boost::json::string text;
        for (int i = 0; i < 10'001; ++i) text += "\xC3\xA9";
        return text;
      }()),
      Body(nullptr),
      Body(42),
      Body(true),
      Body(boost::json::array{"a"}),
      Body(boost::json::object{{"text", "a"}}),
      R"({"content":"nul \u0000 inside"})",
      R"({"content":"bell \u0007"})",
  };
  for (const std::string& body : bad) {
    for (const auto& [method, target] :
         {std::pair<std::string, std::string>{"POST", path}, {"PATCH", path + "/" + id}}) {
      const auto answer = app_.Send(member, method, target, body);
      EXPECT_EQ(answer.status, 400) << method << " " << body.substr(0, 60) << ": " << answer.body;
      EXPECT_EQ(CodeOf(answer), "VALIDATION_ERROR") << answer.body;
      EXPECT_EQ(ErrorFields(answer), std::vector<std::string>{"content"})
          << body.substr(0, 60) << ": " << answer.body;
    }
  }
  // Bodies that are not JSON objects are refused before the handler (400 as well).
  EXPECT_EQ(app_.Send(member, "POST", path, R"(["content"])").status, 400);
  EXPECT_EQ(app_.Send(member, "POST", path, R"("content")").status, 400);
  EXPECT_EQ(app_.Send(member, "POST", path, R"({"content":)").status, 400);
  // Nothing was written or changed.
  const auto list = app_.Send(member, "GET", path).Json();
  EXPECT_EQ(list.at("pagination").at("total"), 1);
  EXPECT_EQ(list.at("comments").at(0).at("content"), "original");

  // The bounds themselves are fine: one character, and 10 000 (in bytes, 10 000 to 40 000).
  Post(member, record, "a");
  Post(member, record, std::string(10'000, 'a'));
  std::string wide;
  for (int i = 0; i < 10'000; ++i) wide += "\xF0\x9F\x8E\x89";  // U+1F389, four bytes
  const auto longest = Post(member, record, wide);
  EXPECT_EQ(longest.at("content"), boost::json::value(wide));
  const auto edited = app_.Send(member, "PATCH", path + "/" + id,
                                Body(boost::json::string(std::string(10'000, 'b'))));
  EXPECT_EQ(edited.status, 200) << edited.body.substr(0, 200);
}

// --- Lists ------------------------------------------------------------------------------------

TEST_F(CommentsTest, ListsPageOldestFirst) {
  const Caller member = app_.NewUser("member");
  const std::string record = NewRecord();
  const std::string other = NewRecord();
  const std::string path = CommentsPath("tasks", record);
  std::vector<std::string> ids;
  for (int i = 1; i <= 5; ++i) {
    // Alternate authors: the order is by creation, not by author.
    ids.push_back(
        IdOf(Post(i % 2 == 0 ? app_.admin() : member, record, "comment " + std::to_string(i))));
  }
  Post(member, other, "on another record");

  const auto contents = [&](const std::string& query) {
    const auto answer = app_.Send(member, "GET", path + query);
    EXPECT_EQ(answer.status, 200) << query << ": " << answer.body;
    std::vector<std::string> out;
    const auto json = answer.Json();
    for (const auto& comment : json.at("comments").as_array()) {
      out.emplace_back(comment.at("content").as_string());
    }
    return out;
  };
  const auto pagination = [&](const std::string& query) {
    return app_.Send(member, "GET", path + query).Json().at("pagination");
  };

  EXPECT_EQ(contents(""), (std::vector<std::string>{"comment 1", "comment 2", "comment 3",
                                                    "comment 4", "comment 5"}));
  EXPECT_EQ(contents("?limit=2"), (std::vector<std::string>{"comment 1", "comment 2"}));
  EXPECT_EQ(pagination("?limit=2"),
            boost::json::value({{"total", 5}, {"limit", 2}, {"offset", 0}}));
  EXPECT_EQ(contents("?limit=2&offset=2"), (std::vector<std::string>{"comment 3", "comment 4"}));
  EXPECT_EQ(contents("?offset=4"), (std::vector<std::string>{"comment 5"}));
  EXPECT_EQ(pagination("?offset=4"),
            boost::json::value({{"total", 5}, {"limit", 100}, {"offset", 4}}));
  EXPECT_TRUE(contents("?offset=10").empty());
  EXPECT_EQ(pagination("?offset=10"),
            boost::json::value({{"total", 5}, {"limit", 100}, {"offset", 10}}));
  EXPECT_EQ(contents("?limit=1000").size(), 5u);

  // Each comment in a list is the one GET answers.
  const auto first_page = app_.Send(member, "GET", path + "?limit=1").Json();
  EXPECT_EQ(first_page.at("comments").at(0),
            app_.Send(member, "GET", path + "/" + ids[0]).Json().at("comment"));

  for (const auto& [query, parameter] : std::vector<std::pair<std::string, std::string>>{
           {"?limit=0", "limit"},
           {"?limit=1001", "limit"},
           {"?limit=-1", "limit"},
           {"?limit=abc", "limit"},
           {"?limit=", "limit"},
           {"?offset=-1", "offset"},
           {"?offset=1.5", "offset"},
       }) {
    const auto answer = app_.Send(member, "GET", path + query);
    EXPECT_EQ(answer.status, 400) << query << ": " << answer.body;
    EXPECT_EQ(ErrorFields(answer), std::vector<std::string>{parameter}) << query;
  }
}

// --- The author ------------------------------------------------------------------------------

TEST_F(CommentsTest, TheUserIsTheAuthorAndNullOnceErased) {
  const Caller member = app_.NewUser("member");  // "User 1"
  const std::string record = NewRecord();
  const std::string path = CommentsPath("tasks", record);
  const auto by_admin = Post(app_.admin(), record, "from the admin");
  EXPECT_EQ(by_admin.at("userId"), boost::json::value(app_.admin().user_id));
  EXPECT_EQ(by_admin.at("user").at("id"), boost::json::value(app_.admin().user_id));
  EXPECT_EQ(by_admin.at("user").at("email"), "admin@example.com");
  EXPECT_TRUE(by_admin.at("user").at("name").is_string());
  const std::string id = IdOf(Post(member, record, "from a member"));

  // A new name shows on every comment at once.
  ASSERT_EQ(app_.Send(member, "POST", "/api/auth/update-user", R"({"name":"Renamed"})").status,
            200);
  EXPECT_EQ(
      app_.Send(app_.admin(), "GET", path + "/" + id).Json().at("comment").at("user").at("name"),
      "Renamed");

  // An erased account leaves its comments with no author at all: userId and user null.
  ASSERT_EQ(app_.Send(app_.admin(), "POST", "/api/auth/admin/remove-user",
                      R"({"userId":")" + member.user_id + "\"}")
                .status,
            200);
  const auto orphan = app_.Send(app_.admin(), "GET", path + "/" + id);
  ASSERT_EQ(orphan.status, 200) << orphan.body;
  EXPECT_TRUE(orphan.Json().at("comment").at("userId").is_null()) << orphan.body;
  EXPECT_TRUE(orphan.Json().at("comment").at("user").is_null()) << orphan.body;
  EXPECT_EQ(orphan.Json().at("comment").at("content"), "from a member");
  const auto list = app_.Send(app_.admin(), "GET", path).Json();
  EXPECT_EQ(list.at("comments").at(0).at("userId"), boost::json::value(app_.admin().user_id));
  EXPECT_FALSE(list.at("comments").at(0).at("user").is_null());
  EXPECT_TRUE(list.at("comments").at(1).at("userId").is_null());
  EXPECT_EQ(app_.Send(app_.admin(), "GET", path + "/" + by_admin.at("id").as_string().c_str())
                .Json()
                .at("comment")
                .at("userId"),
            boost::json::value(app_.admin().user_id));
  // So does an account its owner deletes.
  const Caller leaving = app_.NewUser("member");
  const std::string left_behind = IdOf(Post(leaving, record, "before I go"));
  ASSERT_EQ(app_.Send(leaving, "POST", "/api/auth/delete-user",
                      R"({"password":")" + std::string(kTestPassword) + "\"}")
                .status,
            200);
  const auto after_leaving = app_.Send(app_.admin(), "GET", path + "/" + left_behind).Json();
  EXPECT_TRUE(after_leaving.at("comment").at("userId").is_null());
  EXPECT_TRUE(after_leaving.at("comment").at("user").is_null());
  EXPECT_EQ(after_leaving.at("comment").at("content"), "before I go");
  // Nobody owns it now: members may not change it; an admin may still tidy it up.
  const Caller other = app_.NewUser("member");
  EXPECT_EQ(app_.Send(other, "PATCH", path + "/" + id, Body("mine now?")).status, 404);
  EXPECT_EQ(app_.Send(other, "DELETE", path + "/" + id).status, 404);
  EXPECT_EQ(app_.Send(app_.admin(), "DELETE", path + "/" + id).status, 204);
}

// --- The activity log -------------------------------------------------------------------------

TEST_F(CommentsTest, EveryWriteIsInTheActivityLogButNotTheHistory) {
  const Caller member = app_.NewUser("member");
  const std::string record = NewRecord();
  const std::string path = CommentsPath("tasks", record);
  const std::string id = IdOf(Post(member, record, "logged"));
  ASSERT_EQ(app_.Send(member, "PATCH", path + "/" + id, Body("logged again")).status, 200);
  ASSERT_EQ(app_.Send(member, "DELETE", path + "/" + id).status, 204);
  // Refused writes leave nothing.
  ASSERT_EQ(app_.Send(member, "POST", path, Body("")).status, 400);
  ASSERT_EQ(app_.Send(app_.NewUser("viewer"), "POST", path, Body("x")).status, 403);

  for (const auto& [action, before, after] :
       std::vector<std::tuple<std::string, boost::json::value, boost::json::value>>{
           {"comment.create", nullptr, {{"content", "logged"}}},
           {"comment.update", {{"content", "logged"}}, {{"content", "logged again"}}},
           {"comment.delete", {{"content", "logged again"}}, nullptr},
       }) {
    const auto list = app_.Send(app_.admin(), "GET", "/api/activity?action=" + action);
    ASSERT_EQ(list.status, 200) << list.body;
    const auto json = list.Json();
    const auto& entries = json.at("activities").as_array();
    ASSERT_EQ(entries.size(), 1u) << action << ": " << list.body;
    EXPECT_EQ(entries.at(0).at("tableName"), "tasks");
    EXPECT_EQ(entries.at(0).at("recordId"), std::stoll(record));
    EXPECT_EQ(entries.at(0).at("user").at("id"), boost::json::value(member.user_id));
    const auto detail = app_.Send(
        app_.admin(), "GET", "/api/activity/" + std::string(entries.at(0).at("id").as_string()));
    ASSERT_EQ(detail.status, 200) << detail.body;
    const boost::json::value changes = {{"before", before}, {"after", after}};
    EXPECT_EQ(detail.Json().at("changes"), changes) << detail.body;
    EXPECT_EQ(detail.Json().at("metadata"), boost::json::value({{"commentId", id}})) << detail.body;
  }
  // The record's history holds record events only (D35).
  const auto history =
      app_.Send(member, "GET", "/api/tables/tasks/records/" + record + "/history").Json();
  EXPECT_EQ(history.at("pagination").at("total"), 1);
  EXPECT_EQ(history.at("history").at(0).at("action"), "create");
}

}  // namespace
}  // namespace cairn::test
