// Relationships over HTTP on the backend of this run (D8): many-to-one ids must name live
// readable records; many-to-many links live in a junction table and come back as id arrays;
// one-to-many is computed from the other side and read-only.
#include <gtest/gtest.h>

#include "e2e/records_support.hpp"

namespace cairn::test {
namespace {

constexpr const char* kLinkedTables = R"(tables:
  - id: 1
    name: companies
    fields:
      - { id: 1, name: title, type: single-line-text }
  - id: 2
    name: people
    fields:
      - { id: 1, name: name, type: single-line-text }
      - { id: 2, name: company, type: relationship, relatedTable: companies }
      - { id: 3, name: vault, type: relationship, relatedTable: vaults }
  - id: 3
    name: vaults
    fields:
      - { id: 1, name: label, type: single-line-text }
    permissions:
      read: [admin]
)";

TEST(RecordsRelationships, ManyToOneMustNameALiveReadableRecord) {
  RecordsApp app(kLinkedTables);
  const Caller member = app.NewUser("member");
  const auto company =
      app.Send(member, "POST", "/api/tables/companies/records", R"({"fields":{"title":"Acme"}})");
  ASSERT_EQ(company.status, 201);
  const std::string company_id(company.Json().at("id").as_string());
  const auto linked = app.Send(member, "POST", "/api/tables/people/records",
                               R"({"fields":{"name":"Ann","company":")" + company_id + "\"}}");
  ASSERT_EQ(linked.status, 201) << linked.body;
  EXPECT_EQ(linked.Json().at("fields").at("company"), boost::json::value(company_id));

  const auto missing = app.Send(member, "POST", "/api/tables/people/records",
                                R"({"fields":{"name":"Bo","company":"999"}})");
  EXPECT_EQ(missing.status, 400);
  EXPECT_EQ(ErrorFields(missing), std::vector<std::string>{"fields.company"});

  // A record of a table the member cannot read answers like a missing one.
  const auto vault =
      app.Send(app.admin(), "POST", "/api/tables/vaults/records", R"({"fields":{"label":"v"}})");
  ASSERT_EQ(vault.status, 201);
  const std::string vault_id(vault.Json().at("id").as_string());
  const auto hidden = app.Send(member, "POST", "/api/tables/people/records",
                               R"({"fields":{"name":"Cy","vault":")" + vault_id + "\"}}");
  EXPECT_EQ(hidden.status, 400);
  EXPECT_EQ(hidden.Json().at("errors").at(0).at("message").as_string().find("no record"), 0u);
  EXPECT_EQ(app.Send(app.admin(), "POST", "/api/tables/people/records",
                     R"({"fields":{"name":"Cy","vault":")" + vault_id + "\"}}")
                .status,
            201);

  // A soft-deleted company cannot be linked; updates are checked too.
  ASSERT_EQ(app.Send(app.admin(), "DELETE", "/api/tables/companies/records/" + company_id).status,
            204);
  const std::string person(linked.Json().at("id").as_string());
  const auto relink = app.Send(member, "PATCH", "/api/tables/people/records/" + person,
                               R"({"fields":{"company":")" + company_id + "\"}}");
  EXPECT_EQ(relink.status, 400);
  EXPECT_EQ(app.Send(member, "PATCH", "/api/tables/people/records/" + person,
                     R"({"fields":{"company":null}})")
                .status,
            200);
  const auto batch = app.Send(member, "POST", "/api/tables/people/records/batch",
                              R"({"records":[{"fields":{"name":"D"}},)"
                              R"({"fields":{"name":"E","company":"999"}}]})");
  EXPECT_EQ(batch.status, 400);
  EXPECT_EQ(ErrorFields(batch), std::vector<std::string>{"records[1].fields.company"});
}

constexpr const char* kTaggedTables = R"(tables:
  - id: 1
    name: tags
    fields:
      - { id: 1, name: label, type: single-line-text }
  - id: 2
    name: posts
    fields:
      - { id: 1, name: title, type: single-line-text }
      - { id: 2, name: tags, type: relationship, relatedTable: tags, relationType: many-to-many }
      - { id: 3, name: author, type: relationship, relatedTable: authors }
  - id: 3
    name: authors
    fields:
      - { id: 1, name: name, type: single-line-text }
      - { id: 2, name: posts, type: relationship, relatedTable: posts, relationType: one-to-many }
      - { id: 3, name: mentor, type: relationship, relatedTable: authors }
      - { id: 4, name: mentees, type: relationship, relatedTable: authors, relationType: one-to-many, foreignKey: mentor }
)";

std::string IdOf(const HttpResult& result) {
  return std::string(result.Json().at("id").as_string());
}

boost::json::value Ids(std::initializer_list<std::string> ids) {
  boost::json::array out;
  for (const auto& id : ids) out.emplace_back(id);
  return out;
}

std::string Create(RecordsApp& app, const std::string& table, const std::string& fields) {
  const auto created = app.Send(app.admin(), "POST", "/api/tables/" + table + "/records",
                                "{\"fields\":" + fields + "}");
  EXPECT_EQ(created.status, 201) << created.body;
  return created.status == 201 ? IdOf(created) : "";
}

TEST(RecordsRelationships, ManyToManyLinksAreWrittenReplacedAndReadBack) {
  RecordsApp app(kTaggedTables);
  const std::string red = Create(app, "tags", R"({"label":"red"})");
  const std::string blue = Create(app, "tags", R"({"label":"blue"})");
  const std::string green = Create(app, "tags", R"({"label":"green"})");

  const auto post =
      app.Send(app.admin(), "POST", "/api/tables/posts/records",
               R"({"fields":{"title":"p","tags":[")" + green + R"(",")" + red + "\"]}}");
  ASSERT_EQ(post.status, 201) << post.body;
  EXPECT_EQ(post.Json().at("fields").at("tags"), Ids({red, green}));  // ascending ids
  const std::string id = IdOf(post);
  const std::string url = "/api/tables/posts/records/" + id;
  EXPECT_EQ(app.Send(app.admin(), "GET", url).Json().at("fields").at("tags"), Ids({red, green}));

  // A patch replaces the set; a patch of other fields keeps it.
  const auto replaced =
      app.Send(app.admin(), "PATCH", url, R"({"fields":{"tags":[")" + blue + "\"]}}");
  ASSERT_EQ(replaced.status, 200) << replaced.body;
  EXPECT_EQ(replaced.Json().at("fields").at("tags"), Ids({blue}));
  EXPECT_EQ(app.Send(app.admin(), "PATCH", url, R"({"fields":{"title":"q"}})")
                .Json()
                .at("fields")
                .at("tags"),
            Ids({blue}));
  // Lists carry the links too.
  const auto list = app.Send(app.admin(), "GET", "/api/tables/posts/records");
  EXPECT_EQ(list.Json().at("records").at(0).at("fields").at("tags"), Ids({blue}));

  // The history records the links before and after.
  const auto history = app.Send(app.admin(), "GET", url + "/history");
  const boost::json::value history_json = history.Json();
  const auto& change = history_json.at("history").at(1).at("changes");
  EXPECT_EQ(change.at("before").at("tags"), Ids({red, green}));
  EXPECT_EQ(change.at("after").at("tags"), Ids({blue}));

  // A trashed tag drops out of the links and comes back with its restore.
  ASSERT_EQ(app.Send(app.admin(), "DELETE", "/api/tables/tags/records/" + blue).status, 204);
  EXPECT_EQ(app.Send(app.admin(), "GET", url).Json().at("fields").at("tags"), Ids({}));
  ASSERT_EQ(app.Send(app.admin(), "POST", "/api/tables/tags/records/" + blue + "/restore").status,
            200);
  EXPECT_EQ(app.Send(app.admin(), "GET", url).Json().at("fields").at("tags"), Ids({blue}));

  // null and [] clear them; a permanently deleted tag leaves no dangling link.
  EXPECT_EQ(app.Send(app.admin(), "PATCH", url, R"({"fields":{"tags":null}})")
                .Json()
                .at("fields")
                .at("tags"),
            Ids({}));
  ASSERT_EQ(app.Send(app.admin(), "PATCH", url, R"({"fields":{"tags":[")" + red + "\"]}}").status,
            200);
  ASSERT_EQ(
      app.Send(app.admin(), "DELETE", "/api/tables/tags/records/" + red + "?permanent=true").status,
      204);
  EXPECT_EQ(app.Send(app.admin(), "GET", url).Json().at("fields").at("tags"), Ids({}));
}

TEST(RecordsRelationships, BatchCreateWritesLinkedAndPlainItemsInOrder) {
  RecordsApp app(kTaggedTables);
  const std::string red = Create(app, "tags", R"({"label":"red"})");
  const std::string blue = Create(app, "tags", R"({"label":"blue"})");
  const auto created = app.Send(app.admin(), "POST", "/api/tables/posts/records/batch",
                                R"({"records":[{"fields":{"title":"a"}},)"
                                R"({"fields":{"title":"b","tags":[")" +
                                    red +
                                    R"("]}},)"
                                    R"({"fields":{"title":"c"}},{"fields":{"title":"d"}},)"
                                    R"({"fields":{"title":"e","tags":[")" +
                                    blue + R"(",")" + red + R"("]}}]})");
  ASSERT_EQ(created.status, 201) << created.body;
  const boost::json::value answer = created.Json();
  const auto& records = answer.at("records").as_array();
  ASSERT_EQ(records.size(), 5u);
  const std::vector<boost::json::value> tags{Ids({}), Ids({red}), Ids({}), Ids({}),
                                             Ids({red, blue})};
  std::int64_t previous_id = 0;
  for (std::size_t i = 0; i < records.size(); ++i) {
    EXPECT_EQ(records[i].at("fields").at("title"), boost::json::value(std::string(1, 'a' + i)));
    EXPECT_EQ(records[i].at("fields").at("tags"), tags[i]) << i;
    const std::int64_t id = std::stoll(std::string(records[i].at("id").as_string()));
    EXPECT_GT(id, previous_id);
    previous_id = id;
    // What the answer says is what is stored.
    const auto stored =
        app.Send(app.admin(), "GET", "/api/tables/posts/records/" + std::to_string(id));
    EXPECT_EQ(stored.Json(), records[i]) << i;
  }
}

TEST(RecordsRelationships, ManyToManyRefusesBadIdsNamingThem) {
  RecordsApp app(kTaggedTables);
  const std::string red = Create(app, "tags", R"({"label":"red"})");
  const auto check = [&](const std::string& tags, const std::string& message_start) {
    const auto answer = app.Send(app.admin(), "POST", "/api/tables/posts/records",
                                 R"({"fields":{"title":"p","tags":)" + tags + "}}");
    EXPECT_EQ(answer.status, 400) << tags << " " << answer.body;
    EXPECT_EQ(ErrorFields(answer), std::vector<std::string>{"fields.tags"}) << tags;
    const auto message = answer.Json().at("errors").at(0).at("message").as_string();
    EXPECT_EQ(message.find(message_start), 0u) << tags << ": " << message;
  };
  check("[\"998\",\"" + red + "\",\"999\"]", "no records 998, 999 in tags");
  check("[\"" + red + "\",\"" + red + "\"]", "item 1");
  check("\"" + red + "\"", "must be an array");
  check("[\"x\"]", "item 0");
  std::string many = "[";
  for (int i = 1; i <= 1001; ++i) many += (i > 1 ? "," : "") + std::to_string(i);
  check(many + "]", "links at most 1000 records");
  // Nothing was written by any of them.
  EXPECT_EQ(
      app.Send(app.admin(), "GET", "/api/tables/posts/records").Json().at("pagination").at("total"),
      0);
}

TEST(RecordsRelationships, OneToManyIsComputedFromTheOtherSideAndReadOnly) {
  RecordsApp app(kTaggedTables);
  const std::string ann = Create(app, "authors", R"({"name":"Ann"})");
  const std::string bo = Create(app, "authors", R"({"name":"Bo","mentor":")" + ann + "\"}");
  const std::string p1 = Create(app, "posts", R"({"title":"one","author":")" + ann + "\"}");
  const std::string p2 = Create(app, "posts", R"({"title":"two","author":")" + ann + "\"}");
  Create(app, "posts", R"({"title":"three","author":")" + bo + "\"}");

  const auto read = app.Send(app.admin(), "GET", "/api/tables/authors/records/" + ann);
  ASSERT_EQ(read.status, 200) << read.body;
  EXPECT_EQ(read.Json().at("fields").at("posts"), Ids({p1, p2}));
  // A table related to itself, through an explicit foreign key.
  EXPECT_EQ(read.Json().at("fields").at("mentees"), Ids({bo}));
  EXPECT_EQ(app.Send(app.admin(), "GET", "/api/tables/authors/records/" + bo)
                .Json()
                .at("fields")
                .at("mentees"),
            Ids({}));

  // Trashed children drop out.
  ASSERT_EQ(app.Send(app.admin(), "DELETE", "/api/tables/posts/records/" + p1).status, 204);
  EXPECT_EQ(app.Send(app.admin(), "GET", "/api/tables/authors/records/" + ann)
                .Json()
                .at("fields")
                .at("posts"),
            Ids({p2}));

  const auto write = app.Send(app.admin(), "PATCH", "/api/tables/authors/records/" + ann,
                              R"({"fields":{"posts":[")" + p1 + "\"]}}");
  EXPECT_EQ(write.status, 400);
  EXPECT_EQ(ErrorFields(write), std::vector<std::string>{"fields.posts"});

  // A patch of the author's own fields answers with the computed sides as they are.
  const auto renamed = app.Send(app.admin(), "PATCH", "/api/tables/authors/records/" + ann,
                                R"({"fields":{"name":"Ann B."}})");
  ASSERT_EQ(renamed.status, 200) << renamed.body;
  EXPECT_EQ(renamed.Json().at("fields").at("name"), "Ann B.");
  EXPECT_EQ(renamed.Json().at("fields").at("posts"), Ids({p2}));
  EXPECT_EQ(renamed.Json().at("fields").at("mentees"), Ids({bo}));
  EXPECT_EQ(renamed.Json(),
            app.Send(app.admin(), "GET", "/api/tables/authors/records/" + ann).Json());
}

}  // namespace
}  // namespace cairn::test
