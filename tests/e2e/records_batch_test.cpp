// Batches and upsert over HTTP on the backend of this run (D33, D34): all or nothing, item
// paths in errors, the 1000-item limit, and the two upsert forms.
#include <gtest/gtest.h>

#include "e2e/records_support.hpp"

namespace cairn::test {
namespace {

constexpr const char* kTables = R"(tables:
  - id: 1
    name: people
    fields:
      - { id: 1, name: name, type: single-line-text, required: true }
      - { id: 2, name: email, type: email, unique: true }
      - { id: 3, name: city, type: single-line-text }
)";

const std::string kPeople = "/api/tables/people/records";

std::int64_t Total(RecordsApp& app, const Caller& caller, const std::string& query = "") {
  return app.Send(caller, "GET", kPeople + query).Json().at("pagination").at("total").as_int64();
}

std::string Items(int count, const std::string& prefix) {
  std::string body = R"({"records":[)";
  for (int i = 0; i < count; ++i) {
    if (i > 0) body += ",";
    body += R"({"fields":{"name":")" + prefix + std::to_string(i) + R"("}})";
  }
  return body + "]}";
}

TEST(RecordsBatch, CreateIsAllOrNothing) {
  RecordsApp app(kTables);
  const Caller member = app.NewUser("member");
  const auto created = app.Send(member, "POST", kPeople + "/batch", Items(3, "p"));
  ASSERT_EQ(created.status, 201) << created.body;
  EXPECT_EQ(created.Json().at("created"), 3);
  ASSERT_EQ(created.Json().at("records").as_array().size(), 3u);
  EXPECT_EQ(created.Json().at("records").at(2).at("fields").at("name"), "p2");

  const auto bad = app.Send(member, "POST", kPeople + "/batch",
                            R"({"records":[{"fields":{"name":"ok"}},)"
                            R"({"fields":{"name":"x","email":"nope"}},{"fields":{}}]})");
  ASSERT_EQ(bad.status, 400);
  EXPECT_EQ(ErrorFields(bad),
            (std::vector<std::string>{"records[1].fields.email", "records[2].fields.name"}));
  EXPECT_EQ(Total(app, member), 3);  // the good item was not written either

  // A unique violation inside the batch also writes nothing.
  const auto duplicate = app.Send(member, "POST", kPeople + "/batch",
                                  R"({"records":[{"fields":{"name":"a","email":"d@x.com"}},)"
                                  R"({"fields":{"name":"b","email":"d@x.com"}}]})");
  EXPECT_EQ(duplicate.status, 400) << duplicate.body;
  EXPECT_EQ(Total(app, member), 3);

  EXPECT_EQ(app.Send(member, "POST", kPeople + "/batch", Items(1001, "big")).status, 413);
  EXPECT_EQ(app.Send(member, "POST", kPeople + "/batch", R"({"records":[]})").status, 400);
  EXPECT_EQ(Total(app, member), 3);
  const Caller viewer = app.NewUser("viewer");
  EXPECT_EQ(app.Send(viewer, "POST", kPeople + "/batch", Items(1, "v")).status, 403);
}

TEST(RecordsBatch, CreateAnswersEveryItemInOrderWhateverFieldsItWrites) {
  RecordsApp app(kTables);
  const Caller member = app.NewUser("member");
  // Runs of items writing the same fields share statements; these runs have every length from
  // 1 up, and a run longer than one statement holds.
  constexpr int kItems = 1000;
  auto has_city = [](int i) { return (i / 7) % 3 == 1 || (i >= 500 && i < 800); };
  auto has_email = [](int i) { return i % 97 == 0; };
  std::string body = R"({"records":[)";
  for (int i = 0; i < kItems; ++i) {
    if (i > 0) body += ",";
    body += R"({"fields":{"name":"n)" + std::to_string(i) + "\"";
    if (has_city(i)) body += R"(,"city":"c)" + std::to_string(i) + "\"";
    if (has_email(i)) body += R"(,"email":"e)" + std::to_string(i) + "@x.com\"";
    body += "}}";
  }
  const auto created = app.Send(member, "POST", kPeople + "/batch", body + "]}");
  ASSERT_EQ(created.status, 201) << created.body.substr(0, 500);
  const boost::json::value answer = created.Json();
  const auto& records = answer.at("records").as_array();
  ASSERT_EQ(records.size(), static_cast<std::size_t>(kItems));

  // The stored rows, by id: what the answer says each item became.
  const auto list = app.Send(member, "GET", kPeople + "?limit=1000&sort=id&order=asc");
  ASSERT_EQ(list.status, 200);
  const boost::json::value stored_json = list.Json();
  const auto& stored = stored_json.at("records").as_array();
  ASSERT_EQ(stored.size(), static_cast<std::size_t>(kItems));
  for (int i = 0; i < kItems; ++i) {
    const auto& record = records[i];
    const auto& fields = record.at("fields").as_object();
    ASSERT_EQ(fields.at("name"), boost::json::value("n" + std::to_string(i))) << i;
    EXPECT_EQ(fields.at("city"), has_city(i) ? boost::json::value("c" + std::to_string(i))
                                             : boost::json::value(nullptr))
        << i;
    EXPECT_EQ(fields.at("email"), has_email(i)
                                      ? boost::json::value("e" + std::to_string(i) + "@x.com")
                                      : boost::json::value(nullptr))
        << i;
    EXPECT_EQ(record, stored[i]) << i;  // ids grow in item order
  }
  // Each item has its own create in the history.
  const std::string last_id(records[kItems - 1].at("id").as_string());
  const auto history = app.Send(member, "GET", kPeople + "/" + last_id + "/history");
  ASSERT_EQ(history.status, 200) << history.body;
  EXPECT_EQ(history.Json().at("history").at(0).at("changes").at("after").at("name"),
            boost::json::value("n" + std::to_string(kItems - 1)));
}

TEST(RecordsBatch, UpdateDeleteAndRestoreAreAllOrNothing) {
  RecordsApp app(kTables);
  const Caller member = app.NewUser("member");
  const auto created = app.Send(member, "POST", kPeople + "/batch", Items(2, "u"));
  ASSERT_EQ(created.status, 201);
  const std::string a(created.Json().at("records").at(0).at("id").as_string());
  const std::string b(created.Json().at("records").at(1).at("id").as_string());

  const auto updated =
      app.Send(member, "PATCH", kPeople + "/batch",
               R"({"records":[{"id":")" + a + R"(","fields":{"city":"Oslo"}},{"id":)" + b +
                   R"(,"fields":{"city":"Rome"}}]})");
  ASSERT_EQ(updated.status, 200) << updated.body;
  EXPECT_EQ(updated.Json().at("updated"), 2);
  EXPECT_EQ(updated.Json().at("records").at(1).at("fields").at("city"), "Rome");

  const auto missing = app.Send(
      member, "PATCH", kPeople + "/batch",
      R"({"records":[{"id":")" + a + R"(","fields":{"city":"Paris"}},{"id":"999","fields":{}}]})");
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(ErrorFields(missing), std::vector<std::string>{"records[1].id"});
  EXPECT_EQ(app.Send(member, "GET", kPeople + "/" + a).Json().at("fields").at("city"), "Oslo");

  const auto deleted =
      app.Send(member, "DELETE", kPeople + "/batch", R"({"ids":[")" + a + R"(",)" + b + "]}");
  ASSERT_EQ(deleted.status, 200) << deleted.body;
  EXPECT_EQ(deleted.Json().at("deleted"), 2);
  EXPECT_EQ(Total(app, member), 0);
  EXPECT_EQ(Total(app, member, "?includeDeleted=only"), 2);
  // Deleting again: the first id is already in the trash → 404, nothing changes.
  EXPECT_EQ(app.Send(member, "DELETE", kPeople + "/batch", R"({"ids":[")" + a + "\"]}").status,
            404);

  const auto restored =
      app.Send(member, "POST", kPeople + "/batch/restore", R"({"ids":[")" + a + "\"]}");
  ASSERT_EQ(restored.status, 200) << restored.body;
  EXPECT_EQ(restored.Json().at("restored"), 1);
  // b is still deleted, a is not: restoring both fails as a whole.
  const auto mixed = app.Send(member, "POST", kPeople + "/batch/restore",
                              R"({"ids":[")" + b + R"(",")" + a + "\"]}");
  EXPECT_EQ(mixed.status, 400);
  EXPECT_EQ(ErrorFields(mixed), std::vector<std::string>{"ids[1]"});
  EXPECT_EQ(Total(app, member), 1);
  EXPECT_EQ(app.Send(member, "DELETE", kPeople + "/batch", R"({"ids":["x"]})").status, 400);
}

TEST(RecordsBatch, ARecordNamedTwiceIsWrittenInItemOrder) {
  RecordsApp app(kTables);
  const Caller member = app.NewUser("member");
  const auto created = app.Send(member, "POST", kPeople + "/batch", Items(3, "t"));
  ASSERT_EQ(created.status, 201);
  const boost::json::value created_json = created.Json();
  std::vector<std::string> ids;
  for (const auto& record : created_json.at("records").as_array()) {
    ids.emplace_back(record.at("id").as_string());
  }
  const std::string a = ids[0];

  // The second update of `a` starts from the first: its history shows both steps.
  const auto twice = app.Send(
      member, "PATCH", kPeople + "/batch",
      R"({"records":[{"id":")" + a + R"(","fields":{"city":"Oslo"}},{"id":")" + ids[1] +
          R"(","fields":{"city":"Rome"}},{"id":")" + a + R"(","fields":{"city":"Bergen"}}]})");
  ASSERT_EQ(twice.status, 200) << twice.body;
  EXPECT_EQ(twice.Json().at("records").at(2).at("fields").at("city"), "Bergen");
  const auto history = app.Send(member, "GET", kPeople + "/" + a + "/history");
  const boost::json::value history_json = history.Json();
  const auto& steps = history_json.at("history").as_array();
  ASSERT_EQ(steps.size(), 3u) << history.body;  // newest first: Bergen, Oslo, create
  EXPECT_EQ(steps[0].at("changes").at("before").at("city"), "Oslo");
  EXPECT_EQ(steps[0].at("changes").at("after").at("city"), "Bergen");
  EXPECT_EQ(steps[1].at("changes").at("before").at("city"), nullptr);
  EXPECT_EQ(steps[1].at("changes").at("after").at("city"), "Oslo");
  EXPECT_EQ(app.Send(member, "GET", kPeople + "/" + a).Json().at("fields").at("city"), "Bergen");

  // An updatedAt read before the batch is stale once an earlier item changed the record.
  const auto stale =
      app.Send(member, "PATCH", kPeople + "/batch",
               R"({"records":[{"id":")" + ids[2] + R"(","fields":{"city":"Lima"}},{"id":")" +
                   ids[2] + R"(","updatedAt":")" +
                   std::string(created_json.at("records").at(2).at("updatedAt").as_string()) +
                   R"(","fields":{"city":"Quito"}}]})");
  EXPECT_EQ(stale.status, 409) << stale.body;
  EXPECT_EQ(ErrorFields(stale), std::vector<std::string>{"records[1].updatedAt"});
  EXPECT_EQ(app.Send(member, "GET", kPeople + "/" + ids[2]).Json().at("fields").at("city"),
            nullptr);

  // Deleting a record twice in one batch: the second finds it in the trash, nothing changes.
  const auto delete_twice =
      app.Send(member, "DELETE", kPeople + "/batch",
               R"({"ids":[")" + a + R"(",")" + ids[1] + R"(",")" + a + "\"]}");
  EXPECT_EQ(delete_twice.status, 404);
  EXPECT_EQ(ErrorFields(delete_twice), std::vector<std::string>{"ids[2]"});
  EXPECT_EQ(Total(app, member), 3);
  ASSERT_EQ(app.Send(member, "DELETE", kPeople + "/batch",
                     R"({"ids":[")" + a + R"(",")" + ids[1] + "\"]}")
                .status,
            200);
  EXPECT_EQ(Total(app, member), 1);
  // Restoring twice: the second finds it out of the trash.
  const auto restore_twice = app.Send(member, "POST", kPeople + "/batch/restore",
                                      R"({"ids":[")" + a + R"(",")" + a + "\"]}");
  EXPECT_EQ(restore_twice.status, 400);
  EXPECT_EQ(ErrorFields(restore_twice), std::vector<std::string>{"ids[1]"});
  EXPECT_EQ(Total(app, member), 1);
}

TEST(RecordsUpsert, CreatesThenUpdatesByMatchFields) {
  RecordsApp app(kTables);
  const Caller member = app.NewUser("member");
  const std::string body =
      R"({"fields":{"name":"Ann","email":"ann@x.com","city":"Oslo"},"matchFields":["email"]})";
  const auto first = app.Send(member, "POST", kPeople + "/upsert", body);
  ASSERT_EQ(first.status, 200) << first.body;
  EXPECT_EQ(first.Json().at("operation"), "created");
  EXPECT_TRUE(first.Json().at("id").is_int64());
  EXPECT_EQ(first.Json().at("record").at("id"), first.Json().at("id"));
  EXPECT_EQ(first.Json().at("record").at("city"), "Oslo");

  const auto second =
      app.Send(member, "POST", kPeople + "/upsert",
               R"({"fields":{"email":"ann@x.com","city":"Rome"},"fieldsToMergeOn":["email"]})");
  ASSERT_EQ(second.status, 200) << second.body;
  EXPECT_EQ(second.Json().at("operation"), "updated");
  EXPECT_EQ(second.Json().at("id"), first.Json().at("id"));
  EXPECT_EQ(second.Json().at("record").at("name"), "Ann");
  EXPECT_EQ(second.Json().at("record").at("city"), "Rome");
  EXPECT_EQ(Total(app, member), 1);

  // Every match field must be given; unknown match fields are refused.
  EXPECT_EQ(app.Send(member, "POST", kPeople + "/upsert",
                     R"({"fields":{"name":"x"},"matchFields":["email"]})")
                .status,
            400);
  EXPECT_EQ(app.Send(member, "POST", kPeople + "/upsert",
                     R"({"fields":{"name":"x"},"matchFields":["nope"]})")
                .status,
            400);
  // Two records in Rome: matching on city is ambiguous → 409.
  ASSERT_EQ(app.Send(member, "POST", kPeople, R"({"fields":{"name":"Bo","city":"Rome"}})").status,
            201);
  EXPECT_EQ(app.Send(member, "POST", kPeople + "/upsert",
                     R"({"fields":{"name":"C","city":"Rome"},"matchFields":["city"]})")
                .status,
            409);

  const auto batch = app.Send(member, "POST", kPeople + "/upsert",
                              R"({"records":[{"fields":{"name":"Ann","email":"ann@x.com"}},)"
                              R"({"fields":{"name":"Dan","email":"dan@x.com"}}],)"
                              R"("fieldsToMergeOn":["email"]})");
  ASSERT_EQ(batch.status, 200) << batch.body;
  EXPECT_EQ(batch.Json().at("created"), 1);
  EXPECT_EQ(batch.Json().at("updated"), 1);
  EXPECT_EQ(batch.Json().at("records").as_array().size(), 2u);
  EXPECT_EQ(Total(app, member), 3);
}

}  // namespace
}  // namespace cairn::test
