// Route × role × access on the backend of this run (D17, D20, D21, D50): for every records
// route, each of admin, member, viewer and no session gets exactly the status the rules give,
// on a table with the default rules, one only admins may read, one everyone reads but only
// admins write, and one with field rules. Every write that succeeds leaves its activity entry
// (action, table, record, user); every refused one leaves none.
#include <gtest/gtest.h>

#include <map>

#include "e2e/records_support.hpp"

namespace cairn::test {
namespace {

constexpr const char* kTables = R"(tables:
  - id: 1
    name: notes
    fields:
      - { id: 1, name: title, type: single-line-text }
  - id: 2
    name: vault
    fields:
      - { id: 1, name: title, type: single-line-text }
    permissions:
      read: [admin]
  - id: 3
    name: catalog
    fields:
      - { id: 1, name: title, type: single-line-text }
    permissions:
      create: [admin]
      update: [admin]
      delete: [admin]
      restore: [admin]
      comment: [admin]
  - id: 4
    name: people
    fields:
      - { id: 1, name: title, type: single-line-text }
      - { id: 2, name: salary, type: integer }
      - { id: 3, name: stage, type: single-line-text }
    permissions:
      permanentDelete: [admin, member]
      restore: [admin]
      fields:
        - { field: salary, read: [admin], write: [admin] }
        - { field: stage, write: [admin] }
)";

enum Role { kAdmin, kMember, kViewer, kAnonymous };
constexpr const char* kRoleNames[] = {"admin", "member", "viewer", "no session"};

// One route: how to call it, and the activity entry a success leaves ("" = none).
struct Route {
  const char* name;
  const char* method;
  const char* path;  // after /api/tables/{table}; {id} is a fresh record
  const char* body;  // {role}: the caller's role, so each one's upsert creates
  bool in_trash;     // {id} is soft-deleted first
  const char* action;
};

const Route kRoutes[] = {
    {"list", "GET", "/records", "", false, ""},
    {"get", "GET", "/records/{id}", "", false, ""},
    {"create", "POST", "/records", R"({"fields":{"title":"new"}})", false, "create"},
    {"patch", "PATCH", "/records/{id}", R"({"fields":{"title":"changed"}})", false, "update"},
    {"delete", "DELETE", "/records/{id}", "", false, "delete"},
    {"purge", "DELETE", "/records/{id}?permanent=true", "", false, "permanent_delete"},
    {"restore", "POST", "/records/{id}/restore", "", true, "restore"},
    {"history", "GET", "/records/{id}/history", "", false, ""},
    {"trash", "GET", "/trash", "", false, ""},
    {"batch", "POST", "/records/batch", R"({"records":[{"fields":{"title":"b"}}]})", false,
     "create"},
    {"upsert", "POST", "/records/upsert",
     R"({"fields":{"title":"u-{role}"},"fieldsToMergeOn":["title"]})", false, "create"},
    {"comment", "POST", "/records/{id}/comments", R"({"content":"hi"})", false, "comment.create"},
    {"table", "GET", "", "", false, ""},
    {"permissions", "GET", "/permissions", "", false, ""},
};

// Expected statuses by route (in kRoutes order), for admin, member, viewer, no session.
using Grid = std::map<std::string, std::array<int, 4>>;

const Grid kDefaultRules = {
    {"list", {200, 200, 200, 401}},    {"get", {200, 200, 200, 401}},
    {"create", {201, 201, 403, 401}},  {"patch", {200, 200, 403, 401}},
    {"delete", {204, 204, 403, 401}},  {"purge", {204, 403, 403, 401}},
    {"restore", {200, 200, 403, 401}}, {"history", {200, 200, 200, 401}},
    {"trash", {200, 200, 200, 401}},   {"batch", {201, 201, 403, 401}},
    {"upsert", {200, 200, 403, 401}},  {"comment", {201, 201, 403, 401}},
    {"table", {200, 200, 200, 401}},   {"permissions", {200, 200, 200, 401}},
};
// Not readable: 404 for every route, writes included (D21).
const Grid kAdminOnly = {
    {"list", {200, 404, 404, 401}},    {"get", {200, 404, 404, 401}},
    {"create", {201, 404, 404, 401}},  {"patch", {200, 404, 404, 401}},
    {"delete", {204, 404, 404, 401}},  {"purge", {204, 404, 404, 401}},
    {"restore", {200, 404, 404, 401}}, {"history", {200, 404, 404, 401}},
    {"trash", {200, 404, 404, 401}},   {"batch", {201, 404, 404, 401}},
    {"upsert", {200, 404, 404, 401}},  {"comment", {201, 404, 404, 401}},
    {"table", {200, 404, 404, 401}},   {"permissions", {200, 404, 404, 401}},
};
const Grid kReadOnlyForOthers = {
    {"list", {200, 200, 200, 401}},    {"get", {200, 200, 200, 401}},
    {"create", {201, 403, 403, 401}},  {"patch", {200, 403, 403, 401}},
    {"delete", {204, 403, 403, 401}},  {"purge", {204, 403, 403, 401}},
    {"restore", {200, 403, 403, 401}}, {"history", {200, 200, 200, 401}},
    {"trash", {200, 200, 200, 401}},   {"batch", {201, 403, 403, 401}},
    {"upsert", {200, 403, 403, 401}},  {"comment", {201, 403, 403, 401}},
    {"table", {200, 200, 200, 401}},   {"permissions", {200, 200, 200, 401}},
};
const Grid kPeopleRules = {
    {"list", {200, 200, 200, 401}},    {"get", {200, 200, 200, 401}},
    {"create", {201, 201, 403, 401}},  {"patch", {200, 200, 403, 401}},
    {"delete", {204, 204, 403, 401}},  {"purge", {204, 204, 403, 401}},
    {"restore", {200, 403, 403, 401}}, {"history", {200, 200, 200, 401}},
    {"trash", {200, 200, 200, 401}},   {"batch", {201, 201, 403, 401}},
    {"upsert", {200, 200, 403, 401}},  {"comment", {201, 201, 403, 401}},
    {"table", {200, 200, 200, 401}},   {"permissions", {200, 200, 200, 401}},
};

std::string ExpectedCode(int status) {
  switch (status) {
    case 401:
      return "UNAUTHORIZED";
    case 403:
      return "FORBIDDEN";
    case 404:
      return "NOT_FOUND";
    default:
      return "";
  }
}

class RecordsAccessMatrix : public ::testing::Test {
 protected:
  void SetUp() override {
    callers_[kAdmin] = app_.admin();
    callers_[kMember] = app_.NewUser("member");
    callers_[kViewer] = app_.NewUser("viewer");
    callers_[kAnonymous] = Caller{};
  }

  std::string NewRecord(const std::string& table, bool in_trash) {
    const std::string base = "/api/tables/" + table + "/records";
    const auto created = app_.Send(app_.admin(), "POST", base, R"({"fields":{"title":"x"}})");
    EXPECT_EQ(created.status, 201) << created.body;
    const std::string id(created.Json().at("id").as_string());
    if (in_trash) {
      EXPECT_EQ(app_.Send(app_.admin(), "DELETE", base + "/" + id).status, 204);
    }
    return id;
  }

  // The newest activity entry and the total.
  std::pair<boost::json::value, std::int64_t> LatestActivity() {
    const auto list = app_.Send(app_.admin(), "GET", "/api/activity?pageSize=1");
    EXPECT_EQ(list.status, 200) << list.body;
    const boost::json::value json = list.Json();
    const auto& entries = json.at("activities").as_array();
    return {entries.empty() ? boost::json::value() : entries.at(0),
            json.at("pagination").at("total").as_int64()};
  }

  void Check(const std::string& table, const Grid& grid) {
    for (const Route& route : kRoutes) {
      for (const Role role : {kAdmin, kMember, kViewer, kAnonymous}) {
        const int expected = grid.at(route.name).at(role);
        SCOPED_TRACE(table + " " + route.name + " as " + kRoleNames[role]);
        std::string path = route.path;
        std::string id;
        if (const auto at = path.find("{id}"); at != std::string::npos) {
          id = NewRecord(table, route.in_trash);
          path.replace(at, 4, id);
        }
        const auto [_, before] = LatestActivity();
        std::string body = route.body;
        if (const auto at = body.find("{role}"); at != std::string::npos) {
          body.replace(at, 6, std::to_string(role));
        }
        const auto answer =
            app_.Send(callers_[role], route.method, "/api/tables/" + table + path, body);
        EXPECT_EQ(answer.status, expected) << answer.body;
        if (expected >= 400) {
          EXPECT_EQ(CodeOf(answer), ExpectedCode(expected)) << answer.body;
        }
        const auto [latest, after] = LatestActivity();
        const bool logs = expected < 300 && route.action[0] != '\0';
        EXPECT_EQ(after, before + (logs ? 1 : 0));
        if (!logs || answer.status >= 300) continue;
        EXPECT_EQ(latest.at("action"), boost::json::value(route.action)) << answer.body;
        EXPECT_EQ(latest.at("tableName"), boost::json::value(table));
        EXPECT_EQ(latest.at("user").at("id"), boost::json::value(callers_[role].user_id));
        if (!id.empty()) {
          EXPECT_EQ(latest.at("recordId"), std::stoll(id));
        }
      }
    }
  }

  RecordsApp app_{kTables};
  std::array<Caller, 4> callers_;
};

TEST_F(RecordsAccessMatrix, DefaultRules) {
  Check("notes", kDefaultRules);
}
TEST_F(RecordsAccessMatrix, TableOnlyAdminsRead) {
  Check("vault", kAdminOnly);
}
TEST_F(RecordsAccessMatrix, TableOnlyAdminsWrite) {
  Check("catalog", kReadOnlyForOthers);
}
TEST_F(RecordsAccessMatrix, FieldRulesAndCustomDeleteRights) {
  Check("people", kPeopleRules);
}

TEST_F(RecordsAccessMatrix, HiddenTablesAreAbsentFromTheTableList) {
  for (const Role role : {kMember, kViewer}) {
    const auto tables = app_.Send(callers_[role], "GET", "/api/tables");
    ASSERT_EQ(tables.status, 200);
    EXPECT_EQ(tables.body.find("\"vault\""), std::string::npos) << tables.body;
    EXPECT_NE(tables.body.find("\"catalog\""), std::string::npos);
  }
  EXPECT_NE(app_.Send(app_.admin(), "GET", "/api/tables").body.find("\"vault\""),
            std::string::npos);
  EXPECT_EQ(app_.Send(Caller{}, "GET", "/api/tables").status, 401);
  EXPECT_EQ(app_.Send(callers_[kMember], "GET", "/api/activity").status, 403);
  EXPECT_EQ(app_.Send(callers_[kViewer], "GET", "/api/activity/1").status, 403);
}

TEST_F(RecordsAccessMatrix, FieldRulesStripAndGuardEveryRoute) {
  const std::string base = "/api/tables/people/records";
  const auto created = app_.Send(app_.admin(), "POST", base,
                                 R"({"fields":{"title":"Ada","salary":100,"stage":"lead"}})");
  ASSERT_EQ(created.status, 201);
  const std::string id(created.Json().at("id").as_string());
  const Caller& member = callers_[kMember];
  // Stripped from every answer the member gets.
  for (const std::string& target : {base + "/" + id, base, base + "/" + id + "/history",
                                    std::string("/api/tables/people/records/" + id)}) {
    const auto answer = app_.Send(member, "GET", target);
    ASSERT_EQ(answer.status, 200) << target;
    EXPECT_EQ(answer.body.find("salary"), std::string::npos) << target << ": " << answer.body;
    EXPECT_NE(answer.body.find("Ada"), std::string::npos) << target;
  }
  const auto patched = app_.Send(member, "PATCH", base + "/" + id, R"({"fields":{"title":"B"}})");
  ASSERT_EQ(patched.status, 200);
  EXPECT_EQ(patched.body.find("salary"), std::string::npos) << patched.body;
  // Unreadable: "unknown field", exactly as a missing one; readable but not writable: named.
  const auto hidden = app_.Send(member, "PATCH", base + "/" + id, R"({"fields":{"salary":1}})");
  const auto missing = app_.Send(member, "PATCH", base + "/" + id, R"({"fields":{"nosuch":1}})");
  EXPECT_EQ(hidden.status, 400);
  EXPECT_EQ(hidden.Json().at("errors").at(0).at("message"),
            missing.Json().at("errors").at(0).at("message"));
  const auto guarded = app_.Send(member, "PATCH", base + "/" + id, R"({"fields":{"stage":"won"}})");
  EXPECT_EQ(guarded.status, 400);
  EXPECT_EQ(ErrorFields(guarded), std::vector<std::string>{"fields.stage"});
  const auto batch = app_.Send(member, "POST", base + "/batch",
                               R"({"records":[{"fields":{"title":"c","salary":5}}]})");
  EXPECT_EQ(ErrorFields(batch), std::vector<std::string>{"records[0].fields.salary"});
  // The admin still sees and writes it.
  EXPECT_NE(app_.Send(app_.admin(), "GET", base + "/" + id).body.find("\"salary\":100"),
            std::string::npos);
}

}  // namespace
}  // namespace cairn::test
