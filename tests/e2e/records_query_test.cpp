// List queries over HTTP on the backend of this run (D37, D21): filters (flat and and/or trees,
// every operator on the types that take it, 400 on the others), sort, fields, q, includeDeleted,
// pagination edges, limits, and field-permission probes that must look like missing fields.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <vector>

#include "e2e/records_support.hpp"

namespace cairn::test {
namespace {

constexpr const char* kTables = R"(tables:
  - id: 1
    name: tasks
    fields:
      - { id: 1, name: title, type: single-line-text }
      - { id: 2, name: notes, type: long-text }
      - { id: 3, name: points, type: integer }
      - { id: 4, name: cost, type: currency, currency: USD, precision: 2 }
      - { id: 5, name: due, type: date }
      - { id: 6, name: done, type: checkbox }
      - { id: 7, name: stage, type: single-select, options: [todo, doing, done] }
      - { id: 8, name: labels, type: multi-select, options: [red, green, blue] }
      - { id: 9, name: secret, type: single-line-text }
      - { id: 10, name: extra, type: json }
    permissions:
      fields:
        - { field: secret, read: [admin] }
    views:
      - id: open
        name: Open tasks
        filters: { and: [ { field: done, operator: isFalse } ] }
        sorts: [ { field: points, direction: desc } ]
      - id: 2
        name: With secrets
        filters: { and: [ { field: secret, operator: isNotNull } ] }
      - id: mixed
        name: Mixed
        filters:
          or:
            - { field: secret, operator: equals, value: s1 }
            - and: [ { field: points, operator: greaterThan, value: 4 }, { field: secret, operator: isNull } ]
        sorts: [ { field: secret, direction: asc }, { field: points, direction: desc } ]
)";

const std::string kTasks = "/api/tables/tasks/records";

std::string Encode(std::string_view text) {
  std::string out;
  for (const unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      char buffer[4];
      std::snprintf(buffer, sizeof buffer, "%%%02X", c);
      out += buffer;
    }
  }
  return out;
}

class RecordsQuery : public ::testing::Test {
 protected:
  void SetUp() override {
    member_ = app_.NewUser("member");
    // title, notes, points, cost, due, done, stage, labels, secret
    Add(R"({"title":"Write docs","notes":"50% done","points":3,"cost":"10.50","due":"2026-01-10",)"
        R"("done":true,"stage":"done","labels":["red","blue"],"secret":"s1"})");
    Add(R"({"title":"Fix bug_42","points":8,"cost":"99.99","due":"2026-02-01","done":false,)"
        R"("stage":"doing","labels":["green"],"secret":"s2"})");
    Add(R"({"title":"write tests","notes":"","points":5,"cost":"0.10","stage":"todo",)"
        R"("labels":[],"secret":"s3"})");
    Add(R"({"title":"Ship","points":null,"due":"2026-03-15","done":true,"labels":["red"]})");
    Add(R"({"title":"Trashed task","points":1})");
    ASSERT_EQ(app_.Send(app_.admin(), "DELETE", kTasks + "/" + ids_.back()).status, 204);
    ids_.pop_back();
  }

  void Add(const std::string& fields) {
    const auto created = app_.Send(app_.admin(), "POST", kTasks, "{\"fields\":" + fields + "}");
    ASSERT_EQ(created.status, 201) << created.body;
    ids_.push_back(std::string(created.Json().at("id").as_string()));
  }

  HttpResult List(const std::string& query, const Caller* caller = nullptr) {
    return app_.Send(caller ? *caller : app_.admin(), "GET", kTasks + "?" + query);
  }

  // The titles a list answers with, in order (fails the test on a non-200).
  std::vector<std::string> Titles(const std::string& query, const Caller* caller = nullptr) {
    const auto result = List(query, caller);
    EXPECT_EQ(result.status, 200) << query << ": " << result.body;
    std::vector<std::string> titles;
    if (result.status != 200) return titles;
    const boost::json::value json = result.Json();
    for (const auto& record : json.at("records").as_array()) {
      titles.emplace_back(record.at("fields").at("title").as_string());
    }
    return titles;
  }

  std::vector<std::string> Where(const std::string& field, const std::string& op,
                                 const std::string& value = "") {
    std::string leaf = R"({"field":")" + field + R"(","operator":")" + op + "\"";
    if (!value.empty()) leaf += ",\"value\":" + value;
    leaf += "}";
    return Titles("filter=" + Encode(R"({"and":[)" + leaf + "]}") + "&sort=title");
  }

  // A filter that must be refused: 400 naming `filter`, with `message` in the error.
  void ExpectRefused(const std::string& filter, const std::string& message,
                     const Caller* caller = nullptr) {
    const auto result = List("filter=" + Encode(filter), caller);
    EXPECT_EQ(result.status, 400) << filter << ": " << result.body;
    EXPECT_EQ(ErrorFields(result), std::vector<std::string>{"filter"}) << filter;
    EXPECT_NE(result.body.find(message), std::string::npos) << filter << ": " << result.body;
  }

  RecordsApp app_{kTables};
  Caller member_;
  std::vector<std::string> ids_;
};

using Names = std::vector<std::string>;

TEST_F(RecordsQuery, FlatFiltersAreAnAndOfEquals) {
  EXPECT_EQ(Titles("filter=" + Encode(R"({"done":true})") + "&sort=title"),
            (Names{"Ship", "Write docs"}));
  EXPECT_EQ(Titles("filter=" + Encode(R"({"done":true,"stage":"done"})")), Names{"Write docs"});
  EXPECT_EQ(Titles("filter=" + Encode(R"({"stage":null})")), Names{"Ship"});
  EXPECT_EQ(Titles("filter=" + Encode(R"({"labels":"red"})") + "&sort=title"),
            (Names{"Ship", "Write docs"}));
  EXPECT_EQ(Titles("filter=" + Encode(R"({"cost":"99.99"})")), Names{"Fix bug_42"});
  EXPECT_EQ(Titles("filter=" + Encode("{}")).size(), 4u);
}

TEST_F(RecordsQuery, TextOperators) {
  EXPECT_EQ(Where("title", "equals", R"("Ship")"), Names{"Ship"});
  EXPECT_EQ(Where("title", "notEquals", R"("Ship")"),
            (Names{"Fix bug_42", "Write docs", "write tests"}));
  EXPECT_EQ(Where("title", "in", R"(["Ship","nope","Write docs"])"), (Names{"Ship", "Write docs"}));
  EXPECT_EQ(Where("title", "notIn", R"(["Ship"])"),
            (Names{"Fix bug_42", "Write docs", "write tests"}));
  EXPECT_EQ(Where("title", "contains", R"("WRITE")"), (Names{"Write docs", "write tests"}));
  EXPECT_EQ(Where("title", "notContains", R"("write")"), (Names{"Fix bug_42", "Ship"}));
  EXPECT_EQ(Where("title", "startsWith", R"("wr")"), (Names{"Write docs", "write tests"}));
  EXPECT_EQ(Where("title", "endsWith", R"("DOCS")"), Names{"Write docs"});
  // LIKE wildcards in values are literal characters.
  EXPECT_EQ(Where("title", "contains", R"("_4")"), Names{"Fix bug_42"});
  EXPECT_EQ(Where("notes", "contains", R"("50%")"), Names{"Write docs"});
  EXPECT_EQ(Where("notes", "contains", R"("%")"), Names{"Write docs"});
  EXPECT_EQ(Where("notes", "isEmpty"), (Names{"Fix bug_42", "Ship", "write tests"}));
  EXPECT_EQ(Where("notes", "isNotEmpty"), Names{"Write docs"});
  EXPECT_EQ(Where("notes", "isNull"), (Names{"Fix bug_42", "Ship"}));
  EXPECT_EQ(Where("notes", "isNotNull"), (Names{"Write docs", "write tests"}));
}

TEST_F(RecordsQuery, NumberDateAndCheckboxOperators) {
  EXPECT_EQ(Where("points", "greaterThan", "3"), (Names{"Fix bug_42", "write tests"}));
  EXPECT_EQ(Where("points", "greaterThanOrEqual", "3"),
            (Names{"Fix bug_42", "Write docs", "write tests"}));
  EXPECT_EQ(Where("points", "lessThan", "5"), Names{"Write docs"});
  EXPECT_EQ(Where("points", "lessThanOrEqual", "5"), (Names{"Write docs", "write tests"}));
  EXPECT_EQ(Where("points", "notEquals", "3"), (Names{"Fix bug_42", "Ship", "write tests"}));
  EXPECT_EQ(Where("points", "in", "[3,8]"), (Names{"Fix bug_42", "Write docs"}));
  EXPECT_EQ(Where("points", "in", "[]"), Names{});
  EXPECT_EQ(Where("points", "isNull"), Names{"Ship"});
  // Exact decimals: 10.50 > 10.5 is false, 0.10 < 0.11.
  EXPECT_EQ(Where("cost", "greaterThan", R"("10.5")"), Names{"Fix bug_42"});
  EXPECT_EQ(Where("cost", "lessThan", "0.11"), Names{"write tests"});
  EXPECT_EQ(Where("cost", "equals", "10.5"), Names{"Write docs"});
  EXPECT_EQ(Where("due", "lessThan", R"("2026-02-01")"), Names{"Write docs"});
  EXPECT_EQ(Where("due", "greaterThanOrEqual", R"("2026-02-01")"), (Names{"Fix bug_42", "Ship"}));
  EXPECT_EQ(Where("done", "isTrue"), (Names{"Ship", "Write docs"}));
  EXPECT_EQ(Where("done", "isFalse"), (Names{"Fix bug_42", "write tests"}));
  EXPECT_EQ(Where("done", "equals", "false"), Names{"Fix bug_42"});
  // System keys.
  EXPECT_EQ(Where("id", "equals", "\"" + ids_[1] + "\""), Names{"Fix bug_42"});
  EXPECT_EQ(Where("createdAt", "greaterThan", R"("2000-01-01T00:00:00Z")").size(), 4u);
  EXPECT_EQ(Where("createdBy", "equals", "\"" + app_.admin().user_id + "\"").size(), 4u);
}

TEST_F(RecordsQuery, SelectOperators) {
  EXPECT_EQ(Where("stage", "in", R"(["todo","doing"])"), (Names{"Fix bug_42", "write tests"}));
  EXPECT_EQ(Where("stage", "isEmpty"), Names{"Ship"});
  EXPECT_EQ(Where("labels", "containsAny", R"(["green","blue"])"),
            (Names{"Fix bug_42", "Write docs"}));
  EXPECT_EQ(Where("labels", "containsAll", R"(["red","blue"])"), Names{"Write docs"});
  EXPECT_EQ(Where("labels", "isEmpty"), Names{"write tests"});
  EXPECT_EQ(Where("labels", "isNotEmpty"), (Names{"Fix bug_42", "Ship", "Write docs"}));
}

TEST_F(RecordsQuery, NestedTreesCombineGroups) {
  const std::string tree = R"({"or":[{"and":[{"field":"done","operator":"isTrue"},)"
                           R"({"field":"points","operator":"isNotNull"}]},)"
                           R"({"field":"stage","operator":"equals","value":"todo"}]})";
  EXPECT_EQ(Titles("filter=" + Encode(tree) + "&sort=title"), (Names{"Write docs", "write tests"}));
}

TEST_F(RecordsQuery, OperatorsAreCheckedPerType) {
  ExpectRefused(R"({"and":[{"field":"points","operator":"contains","value":"3"}]})",
                "contains does not apply to number field");
  ExpectRefused(R"({"and":[{"field":"title","operator":"greaterThan","value":"a"}]})",
                "greaterThan does not apply to text field");
  ExpectRefused(R"({"and":[{"field":"done","operator":"in","value":[true]}]})",
                "in does not apply to checkbox field");
  ExpectRefused(R"({"and":[{"field":"labels","operator":"equals","value":"red"}]})",
                "equals does not apply to multi-select field");
  ExpectRefused(R"({"and":[{"field":"extra","operator":"equals","value":1}]})",
                "equals does not apply to json and attachment field");
  ExpectRefused(R"({"and":[{"field":"stage","operator":"isTrue"}]})",
                "isTrue does not apply to single-select field");
  ExpectRefused(R"({"and":[{"field":"title","operator":"like","value":"a"}]})", "unknown operator");
  ExpectRefused(R"({"and":[{"field":"points","operator":"equals","value":"many"}]})",
                "filter.and[0].value");
  ExpectRefused(R"({"and":[{"field":"stage","operator":"equals","value":"later"}]})",
                "filter.and[0].value");
  ExpectRefused(R"({"and":[{"field":"labels","operator":"containsAny","value":["pink"]}]})",
                "must be one of the options");
  ExpectRefused(R"({"and":[{"field":"points","operator":"greaterThan"}]})", "is required");
  ExpectRefused(R"({"and":[]})", "non-empty array");
  ExpectRefused("[1,2]", "must be an object");
  ExpectRefused("{not json", "must be JSON");
}

TEST_F(RecordsQuery, HiddenFieldsLookExactlyLikeMissingOnes) {
  // The member cannot read `secret`: every probe answers as for a field that does not exist.
  for (const std::string name : {"secret", "nosuch"}) {
    SCOPED_TRACE(name);
    const auto filter = List("filter=" + Encode(R"({"and":[{"field":")" + name +
                                                R"(","operator":"equals","value":"s1"}]})"),
                             &member_);
    EXPECT_EQ(filter.status, 400);
    EXPECT_NE(filter.body.find("unknown field \\\"" + name + "\\\""), std::string::npos)
        << filter.body;
    const auto flat = List("filter=" + Encode(R"({")" + name + R"(":"s1"})"), &member_);
    EXPECT_EQ(flat.status, 400);
    const auto sort = List("sort=" + name, &member_);
    EXPECT_EQ(sort.status, 400);
    EXPECT_EQ(ErrorFields(sort), std::vector<std::string>{"sort"});
    // In fields= it is silently left out.
    const auto fields = List("fields=title," + name, &member_);
    ASSERT_EQ(fields.status, 200);
    const boost::json::value json = fields.Json();
    EXPECT_EQ(json.at("records").at(0).at("fields").as_object().size(), 1u) << fields.body;
  }
  // q does not search hidden fields, through the index (3+ characters) or without it.
  Add(R"({"title":"Zed","secret":"zebra-code"})");
  EXPECT_EQ(Titles("q=zebra", &member_), Names{});
  EXPECT_EQ(Titles("q=zebra"), Names{"Zed"});
  // "s1" is only in `secret`.
  EXPECT_EQ(Titles("q=s1", &member_), Names{});
  EXPECT_EQ(Titles("q=s1"), Names{"Write docs"});  // the admin can read it
  // The admin may filter and sort on it.
  EXPECT_EQ(Titles("filter=" + Encode(R"({"secret":"s2"})")), Names{"Fix bug_42"});
}

TEST_F(RecordsQuery, SortTakesSeveralKeysAndKeepsNullsLast) {
  EXPECT_EQ(Titles("sort=points:desc"), (Names{"Ship", "Fix bug_42", "write tests", "Write docs"}));
  EXPECT_EQ(Titles("sort=points&order=asc"),
            (Names{"Write docs", "write tests", "Fix bug_42", "Ship"}));
  EXPECT_EQ(Titles("sort=done:desc,title:asc"),
            (Names{"write tests", "Ship", "Write docs", "Fix bug_42"}));  // NULL is the largest
  EXPECT_EQ(Titles("order=desc"), (Names{"Ship", "write tests", "Fix bug_42", "Write docs"}));
  for (const std::string bad :
       {"sort=points:up", "sort=labels", "sort=extra", "sort=,title", "sort=a:asc,b:asc&order=desc",
        "order=sideways",
        "sort=title,points,id,cost,due,done,stage,notes,createdAt,updatedAt,"
        "createdBy"}) {
    SCOPED_TRACE(bad);
    EXPECT_EQ(List(bad).status, 400);
  }
}

TEST_F(RecordsQuery, SearchMatchesTextLikeFieldsIgnoringCase) {
  EXPECT_EQ(Titles("q=WRITE&sort=title"), (Names{"Write docs", "write tests"}));
  EXPECT_EQ(Titles("q=green"), Names{"Fix bug_42"});  // multi-select
  EXPECT_EQ(Titles("q=doing"), Names{"Fix bug_42"});  // single-select
  EXPECT_EQ(Titles("q=50%25"), Names{"Write docs"});  // a literal %
  EXPECT_EQ(Titles("q=zzz"), Names{});
  EXPECT_EQ(List("q=" + std::string(201, 'a')).status, 400);
  EXPECT_EQ(Titles("q=" + std::string(200, 'a')), Names{});
}

TEST_F(RecordsQuery, PaginationTotalsFollowTheFilter) {
  const auto page = List("limit=1&page=2&sort=title&filter=" + Encode(R"({"done":true})"));
  ASSERT_EQ(page.status, 200) << page.body;
  const boost::json::value json = page.Json();
  EXPECT_EQ(json.at("records").as_array().size(), 1u);
  EXPECT_EQ(json.at("records").at(0).at("fields").at("title"), "Write docs");
  EXPECT_EQ(json.at("pagination").at("total"), 2);
  EXPECT_EQ(json.at("pagination").at("totalPages"), 2);
  EXPECT_EQ(json.at("pagination").at("page"), 2);
  const auto past = List("limit=2&page=9");
  ASSERT_EQ(past.status, 200);
  const boost::json::value past_json = past.Json();
  EXPECT_TRUE(past_json.at("records").as_array().empty());
  EXPECT_EQ(past_json.at("pagination").at("total"), 4);
  EXPECT_EQ(List("limit=1001").status, 400);
  EXPECT_EQ(List("limit=0").status, 400);
  EXPECT_EQ(List("page=1&offset=1").status, 400);
}

TEST_F(RecordsQuery, UnfilteredTotalsStayExactThroughEveryWrite) {
  const auto total = [&](const std::string& query) -> std::int64_t {
    const auto result = List(query);
    EXPECT_EQ(result.status, 200) << result.body;
    return result.status == 200 ? result.Json().at("pagination").at("total").as_int64() : -1;
  };
  // An unfiltered total (PostgreSQL reads it from counters) against one that counts the rows.
  const std::string counted = "filter=" + Encode(R"({"or":[{"field":"points","operator":"isNull"},)"
                                                 R"({"field":"points","operator":"isNotNull"}]})");
  const auto expect_total = [&](std::int64_t expected) {
    EXPECT_EQ(total("limit=1"), expected);
    EXPECT_EQ(total("limit=1&" + counted), expected);
  };
  expect_total(4);
  std::string batch = R"({"records":[)";
  for (int i = 0; i < 10; ++i) batch += std::string(i ? "," : "") + R"({"fields":{"title":"b"}})";
  const auto created = app_.Send(app_.admin(), "POST", kTasks + "/batch", batch + "]}");
  ASSERT_EQ(created.status, 201) << created.body;
  expect_total(14);
  ASSERT_EQ(app_.Send(app_.admin(), "DELETE", kTasks + "/" + ids_[0]).status, 204);
  ASSERT_EQ(app_.Send(app_.admin(), "DELETE", kTasks + "/" + ids_[1]).status, 204);
  expect_total(12);
  ASSERT_EQ(app_.Send(app_.admin(), "POST", kTasks + "/" + ids_[0] + "/restore").status, 200);
  expect_total(13);
  // Permanently deleting a trashed record leaves the live total alone; a live one lowers it.
  ASSERT_EQ(app_.Send(app_.admin(), "DELETE", kTasks + "/" + ids_[1] + "?permanent=true").status,
            204);
  expect_total(13);
  ASSERT_EQ(app_.Send(app_.admin(), "DELETE", kTasks + "/" + ids_[2] + "?permanent=true").status,
            204);
  expect_total(12);
  EXPECT_EQ(total("includeDeleted=only"), 1);  // the task trashed in SetUp
}

TEST_F(RecordsQuery, IncludeDeletedAddsOrIsolatesTheTrash) {
  EXPECT_EQ(Titles("includeDeleted=true").size(), 5u);
  EXPECT_EQ(Titles("includeDeleted=only"), Names{"Trashed task"});
  EXPECT_EQ(Titles("includeDeleted=only&filter=" + Encode(R"({"points":2})")), Names{});
  const auto trash =
      app_.Send(app_.admin(), "GET", "/api/tables/tasks/trash?filter=" + Encode(R"({"points":1})"));
  ASSERT_EQ(trash.status, 200) << trash.body;
  EXPECT_EQ(trash.Json().at("pagination").at("total"), 1);
}

TEST_F(RecordsQuery, FilterLimitsAnswer400) {
  std::string deep = R"({"field":"points","operator":"isNull"})";
  for (int i = 0; i < 9; ++i) deep = R"({"and":[)" + deep + "]}";
  ExpectRefused(deep, "groups nest at most 8 deep");
  std::string deeper = "1";
  for (int i = 0; i < 100; ++i) deeper = "[" + deeper + "]";
  ExpectRefused(deeper, "must be JSON");
  std::string wide = R"({"or":[)";
  for (int i = 0; i < 101; ++i) {
    wide += std::string(i ? "," : "") + R"({"field":"points","operator":"equals","value":1})";
  }
  ExpectRefused(wide + "]}", "at most 100 conditions");
  std::string many = "[";
  for (int i = 0; i < 1001; ++i) many += std::string(i ? "," : "") + std::to_string(i);
  ExpectRefused(R"({"and":[{"field":"points","operator":"in","value":)" + many + "]}]}",
                "at most 1000 values");
}

TEST_F(RecordsQuery, ViewsLayerTheirFilterAndSortUnderTheRequest) {
  const auto views = app_.Send(member_, "GET", "/api/tables/tasks/views");
  ASSERT_EQ(views.status, 200) << views.body;
  const boost::json::value views_json = views.Json();
  EXPECT_EQ(views_json.at("views").as_array().size(), 3u);
  EXPECT_EQ(views_json.at("views").at(0).at("sorts").at(0).at("direction"), "desc");
  const auto view = app_.Send(member_, "GET", "/api/tables/tasks/views/open");
  ASSERT_EQ(view.status, 200);
  EXPECT_EQ(view.Json().at("name"), "Open tasks");
  EXPECT_EQ(app_.Send(member_, "GET", "/api/tables/tasks/views/nope").status, 404);

  const std::string through = "/api/tables/tasks/views/open/records";
  const auto records = app_.Send(member_, "GET", through);
  ASSERT_EQ(records.status, 200) << records.body;
  const boost::json::value json = records.Json();
  ASSERT_EQ(json.at("records").as_array().size(), 2u);
  EXPECT_EQ(json.at("records").at(0).at("fields").at("title"), "Fix bug_42");  // points desc
  EXPECT_EQ(json.at("records").at(1).at("fields").at("title"), "write tests");
  // The request's filter is ANDed with the view's; an explicit sort replaces the view's.
  EXPECT_EQ(Titles("view=open&filter=" + Encode(R"({"stage":"todo"})")), Names{"write tests"});
  EXPECT_EQ(Titles("view=Open%20tasks&sort=points:asc"), (Names{"write tests", "Fix bug_42"}));
  EXPECT_EQ(List("view=nope").status, 400);
  EXPECT_EQ(app_.Send(member_, "GET", "/api/tables/tasks/views/nope/records").status, 404);
  // A view may filter on a field the caller cannot read: the caller cannot change it, so it
  // probes nothing; the field stays out of the answer.
  const auto secret = app_.Send(member_, "GET", "/api/tables/tasks/views/2/records");
  ASSERT_EQ(secret.status, 200) << secret.body;
  const boost::json::value secret_json = secret.Json();
  EXPECT_EQ(secret_json.at("pagination").at("total"), 3);
  EXPECT_FALSE(secret_json.at("records").at(0).at("fields").as_object().contains("secret"));
}

TEST_F(RecordsQuery, ViewsShowCallersOnlyTheConditionsAndSortsOnFieldsTheyMayRead) {
  // The member cannot read `secret`: its conditions and sorts are left out of the description,
  // as if the field did not exist; the admin sees the view as written.
  const auto mixed = app_.Send(member_, "GET", "/api/tables/tasks/views/mixed");
  ASSERT_EQ(mixed.status, 200) << mixed.body;
  EXPECT_EQ(mixed.Json().at("filters"),
            boost::json::parse(
                R"({"or":[{"and":[{"field":"points","operator":"greaterThan","value":4}]}]})"));
  EXPECT_EQ(mixed.Json().at("sorts"),
            boost::json::parse(R"([{"field":"points","direction":"desc"}])"));
  const auto secret_only = app_.Send(member_, "GET", "/api/tables/tasks/views/2");
  ASSERT_EQ(secret_only.status, 200);
  EXPECT_TRUE(secret_only.Json().at("filters").is_null()) << secret_only.body;
  const auto listed = app_.Send(member_, "GET", "/api/tables/tasks/views");
  ASSERT_EQ(listed.status, 200);
  EXPECT_EQ(listed.body.find(R"("field":"secret")"), std::string::npos) << listed.body;
  EXPECT_EQ(listed.body.find(R"("s1")"), std::string::npos) << listed.body;

  const auto written = app_.Send(app_.admin(), "GET", "/api/tables/tasks/views/mixed");
  ASSERT_EQ(written.status, 200);
  EXPECT_EQ(written.Json().at("sorts").as_array().size(), 2u);
  EXPECT_EQ(written.Json().at("filters").at("or").at(0).at("field"), "secret");
  // The records still go through the whole view: secret s1, or more than 4 points and no secret.
  EXPECT_EQ(Titles("view=mixed", &member_), Names{"Write docs"});
  EXPECT_EQ(Titles("view=mixed"), Names{"Write docs"});
}

TEST_F(RecordsQuery, AggregatesCoverAllMatchingRowsExactly) {
  const auto result = List(
      "limit=1&aggregate=sum:points,avg:cost,min:due,max:cost,count,"
      "count:notes,cost:sum");
  ASSERT_EQ(result.status, 200) << result.body;
  // Exact text: decimals keep their places, the average two more.
  EXPECT_NE(result.body.find(R"("aggregations":{"count":4,"sum":{"points":16,"cost":110.59},)"
                             R"("avg":{"cost":36.8633},"min":{"due":"2026-01-10"},)"
                             R"("max":{"cost":99.99},"counts":{"notes":2}})"),
            std::string::npos)
      << result.body;
  // Ten times 0.1 is exactly 1 (D9).
  for (int i = 0; i < 10; ++i) Add(R"({"title":"dime","cost":"0.10"})");
  const auto dimes = List("aggregate=sum:cost,avg:cost&filter=" + Encode(R"({"title":"dime"})"));
  ASSERT_EQ(dimes.status, 200) << dimes.body;
  EXPECT_NE(dimes.body.find(R"("aggregations":{"count":10,"sum":{"cost":1.00},)"
                            R"("avg":{"cost":0.1000}})"),
            std::string::npos)
      << dimes.body;
}

TEST_F(RecordsQuery, GroupsAreOrderedByValueWithNullLast) {
  const auto result = List("groupBy=stage&aggregate=sum:points&limit=1");
  ASSERT_EQ(result.status, 200) << result.body;
  EXPECT_NE(
      result.body.find(
          R"("groups":[{"value":"doing","count":1,"aggregations":{"count":1,"sum":{"points":8}}},)"
          R"({"value":"done","count":1,"aggregations":{"count":1,"sum":{"points":3}}},)"
          R"({"value":"todo","count":1,"aggregations":{"count":1,"sum":{"points":5}}},)"
          R"({"value":null,"count":1,"aggregations":{"count":1,"sum":{"points":0}}}])"),
      std::string::npos)
      << result.body;
  const auto filtered = List("groupBy=done&filter=" + Encode(R"({"stage":"done"})"));
  ASSERT_EQ(filtered.status, 200);
  EXPECT_NE(filtered.body.find(R"("groups":[{"value":true,"count":1,"aggregations":{"count":1}}])"),
            std::string::npos)
      << filtered.body;
}

TEST_F(RecordsQuery, AggregatesRefuseWhatTheyCannotCompute) {
  for (const std::string bad :
       {"aggregate=sum:title", "aggregate=median:points", "aggregate=sum", "aggregate=sum:nosuch",
        "groupBy=labels", "groupBy=extra", "groupBy=nosuch"}) {
    SCOPED_TRACE(bad);
    EXPECT_EQ(List(bad).status, 400);
  }
  // A field the member cannot read is unknown, with the same message as a missing one.
  const auto hidden = List("aggregate=count:secret", &member_);
  const auto missing = List("aggregate=count:nosuch", &member_);
  EXPECT_EQ(hidden.status, 400);
  EXPECT_EQ(hidden.Json().at("errors").at(0).at("message").as_string().find("unknown field"), 0u);
  EXPECT_EQ(missing.status, 400);
  EXPECT_EQ(List("groupBy=secret", &member_).status, 400);
  EXPECT_EQ(List("groupBy=secret").status, 200);  // the admin may
}

// Grouped and aggregated lists scan every matching row: every GET that lists records sends them
// to the server's long-query lane (RouteSpec::long_query_params), and no other route does.
TEST(RecordsQueryLanes, EveryRecordListSendsGroupedQueriesToTheLongQueryLane) {
  std::map<std::string, std::vector<std::string>> lanes;  // "METHOD pattern" → its parameters
  RecordsApp app(kTables, "", [&lanes](TestAppOptions& options) {
    options.extra_routes = [&lanes](http::Router& router, db::Database&) -> Status {
      for (const http::Route* route : router.Routes()) {
        if (route->spec.long_query_params.empty()) continue;
        lanes[route->spec.method + " " + route->spec.pattern] = route->spec.long_query_params;
      }
      return {};
    };
  });
  const std::vector<std::string> grouped{"groupBy", "aggregate"};
  const std::map<std::string, std::vector<std::string>> expected{
      {"GET /api/tables/{tableId}/records", grouped},
      {"GET /api/tables/{tableId}/trash", grouped},
      {"GET /api/tables/{tableId}/views/{viewId}/records", grouped}};
  EXPECT_EQ(lanes, expected);
  // Each of them answers a grouped and aggregated query.
  for (const char* list : {"/records", "/trash", "/views/open/records"}) {
    const auto result =
        app.Send(app.admin(), "GET",
                 std::string("/api/tables/tasks") + list + "?groupBy=stage&aggregate=sum:points");
    EXPECT_EQ(result.status, 200) << list << ": " << result.body;
  }
}

}  // namespace
}  // namespace cairn::test
