// Realtime subscriptions (D53, D21) with a real WebSocket client (npm ws) on the backend of this
// run: what each role sees of a change (table rules, field rules, soft delete, filter, fields),
// events only after commit and one per batch item, and the limits (subscriptions per user,
// frame size, slow consumers, revocation, shutdown, trusted origins).
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "e2e/realtime_support.hpp"
#include "e2e/records_support.hpp"
#include "records/record_service.hpp"
#include "support/http_client.hpp"

namespace cairn::test {
namespace {

namespace json = boost::json;

constexpr const char* kTables = R"(tables:
  - id: 1
    name: people
    fields:
      - { id: 1, name: title, type: single-line-text }
      - { id: 2, name: salary, type: integer }
      - { id: 3, name: stage, type: single-line-text }
      - { id: 4, name: notes, type: long-text }
    permissions:
      fields:
        - { field: salary, read: [admin], write: [admin] }
  - id: 2
    name: vault
    fields:
      - { id: 1, name: title, type: single-line-text }
    permissions:
      read: [admin]
)";

class RealtimeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string missing = NodeProcess::Missing("ws");
    if (!missing.empty()) GTEST_SKIP() << missing;
    app_ = std::make_unique<RecordsApp>(kTables);
  }

  std::unique_ptr<WsClient> Subscribe(const Caller& caller, const std::string& table,
                                      const std::string& query = "") {
    auto client = std::make_unique<WsClient>(
        app_->app().port(), "/api/tables/" + table + "/subscribe" + query, Bearer(caller.token));
    client->ExpectSubscribed(table);
    return client;
  }

  // Creates a record as the admin; returns its id.
  std::string Create(const std::string& fields_json, const std::string& table = "people") {
    const auto result = app_->Send(app_->admin(), "POST", "/api/tables/" + table + "/records",
                                   R"({"fields":)" + fields_json + "}");
    if (result.status != 201) throw std::runtime_error("create: " + result.body);
    return std::string(result.Json().at("id").as_string());
  }

  std::unique_ptr<RecordsApp> app_;
};

json::object FieldsOf(const json::value& record) {
  return record.at("fields").as_object();
}

TEST_F(RealtimeTest, ChangesCarryWhatEachRoleMayReadAfterCommit) {
  const Caller member = app_->NewUser("member");
  auto admin_feed = Subscribe(app_->admin(), "people");
  auto member_feed = Subscribe(member, "people");

  const std::string id = Create(R"({"title":"Ada","salary":5,"stage":"open"})");
  for (auto* feed : {admin_feed.get(), member_feed.get()}) {
    const json::object message = feed->NextMessage();
    EXPECT_EQ(message.at("type"), "change");
    EXPECT_EQ(message.at("event"), "insert");
    EXPECT_EQ(message.at("table"), "people");
    EXPECT_EQ(message.at("recordId"), id.c_str());
    EXPECT_TRUE(message.at("timestamp").is_string());
    EXPECT_EQ(message.at("record").at("id"), id.c_str());
    EXPECT_EQ(FieldsOf(message.at("record")).at("title"), "Ada");
    EXPECT_FALSE(message.contains("oldRecord"));
  }
  // The same record as each would GET it: the salary only for the admin (field rule).
  const auto admin_get = app_->Send(app_->admin(), "GET", "/api/tables/people/records/" + id);
  const auto member_get = app_->Send(member, "GET", "/api/tables/people/records/" + id);
  ASSERT_EQ(member_get.status, 200);
  EXPECT_TRUE(member_get.Json().at("fields").as_object().if_contains("salary") == nullptr);

  ASSERT_EQ(app_->Send(member, "PATCH", "/api/tables/people/records/" + id,
                       R"({"fields":{"title":"Ada L."}})")
                .status,
            200);
  const json::object admin_update = admin_feed->NextMessage();
  const json::object member_update = member_feed->NextMessage();
  for (const json::object* message : {&admin_update, &member_update}) {
    EXPECT_EQ(message->at("event"), "update");
    EXPECT_EQ(FieldsOf(message->at("record")).at("title"), "Ada L.");
    EXPECT_EQ(FieldsOf(message->at("oldRecord")).at("title"), "Ada");
  }
  EXPECT_EQ(FieldsOf(admin_update.at("record")).at("salary"), 5);
  EXPECT_EQ(FieldsOf(admin_update.at("oldRecord")).at("salary"), 5);
  EXPECT_EQ(FieldsOf(member_update.at("record")).if_contains("salary"), nullptr);
  EXPECT_EQ(FieldsOf(member_update.at("oldRecord")).if_contains("salary"), nullptr);
  // The record of the message is the record of a GET, key for key.
  const auto member_after = app_->Send(member, "GET", "/api/tables/people/records/" + id);
  EXPECT_EQ(json::serialize(member_update.at("record")), json::serialize(member_after.Json()));
  (void)admin_get;

  // A write that fails commits nothing and sends nothing: the next message is the next write.
  EXPECT_EQ(app_->Send(member, "PATCH", "/api/tables/people/records/" + id,
                       R"({"fields":{"title":"stale"},"updatedAt":"2000-01-01T00:00:00.000Z"})")
                .status,
            409);
  EXPECT_EQ(
      app_->Send(member, "PATCH", "/api/tables/people/records/" + id, R"({"fields":{"salary":9}})")
          .status,
      400);
  // Soft delete: gone for everyone (record null); restore: it appears again.
  ASSERT_EQ(app_->Send(member, "DELETE", "/api/tables/people/records/" + id).status, 204);
  for (auto* feed : {admin_feed.get(), member_feed.get()}) {
    const json::object message = feed->NextMessage();
    EXPECT_EQ(message.at("event"), "delete");
    EXPECT_TRUE(message.at("record").is_null());
    EXPECT_EQ(message.at("recordId"), id.c_str());
  }
  ASSERT_EQ(
      app_->Send(app_->admin(), "POST", "/api/tables/people/records/" + id + "/restore").status,
      200);
  for (auto* feed : {admin_feed.get(), member_feed.get()}) {
    const json::object message = feed->NextMessage();
    EXPECT_EQ(message.at("event"), "insert");
    EXPECT_EQ(FieldsOf(message.at("record")).at("title"), "Ada L.");
  }
}

TEST_F(RealtimeTest, TableRulesAndBadRequestsAnswerBeforeTheUpgrade) {
  const Caller member = app_->NewUser("member");
  const Caller viewer = app_->NewUser("viewer");
  const auto refused = [&](const std::map<std::string, std::string>& headers,
                           const std::string& target) {
    WsClient client(app_->app().port(), target, headers);
    json::object event = client.Next();
    if (event.at("event") != "refused") {
      throw std::runtime_error("expected a refusal, got " + json::serialize(event));
    }
    return event;
  };
  for (const Caller* caller : {&member, &viewer}) {
    const json::object event = refused(Bearer(caller->token), "/api/tables/vault/subscribe");
    EXPECT_EQ(event.at("status"), 404);
    EXPECT_NE(event.at("body").as_string().find("NOT_FOUND"), std::string::npos);
  }
  EXPECT_EQ(refused(Bearer(member.token), "/api/tables/nope/subscribe").at("status"), 404);
  EXPECT_EQ(refused({}, "/api/tables/people/subscribe").at("status"), 401);
  EXPECT_EQ(refused(Bearer("not-a-token"), "/api/tables/people/subscribe").at("status"), 401);
  // A filter on a field the member may not read is refused as one on a field that does not
  // exist (D21), with the same message.
  const json::object hidden =
      refused(Bearer(member.token), "/api/tables/people/subscribe?filter=%7B%22salary%22%3A5%7D");
  const json::object unknown =
      refused(Bearer(member.token), "/api/tables/people/subscribe?filter=%7B%22wage%22%3A5%7D");
  EXPECT_EQ(hidden.at("status"), 400);
  std::string hidden_body(hidden.at("body").as_string());
  std::string unknown_body(unknown.at("body").as_string());
  const auto erase_name = [](std::string& body, const std::string& name) {
    for (auto at = body.find(name); at != std::string::npos; at = body.find(name)) {
      body.replace(at, name.size(), "X");
    }
  };
  erase_name(hidden_body, "salary");
  erase_name(unknown_body, "wage");
  EXPECT_EQ(hidden_body, unknown_body);
  // A plain GET is no subscription.
  HttpClient plain = app_->app().Client();
  const auto result =
      plain.Get("/api/tables/people/subscribe", {{"Authorization", "Bearer " + member.token}});
  EXPECT_EQ(result.status, 400);
  EXPECT_EQ(CodeOf(result), "VALIDATION_ERROR");
  // The admin reads the vault, so it may subscribe to it.
  auto admin_feed = Subscribe(app_->admin(), "vault");
  Create(R"({"title":"gold"})", "vault");
  EXPECT_EQ(FieldsOf(admin_feed->NextMessage().at("record")).at("title"), "gold");
}

TEST_F(RealtimeTest, FilterAndFieldsNarrowWhatIsSent) {
  const Caller member = app_->NewUser("member");
  // {"stage":"open"}, fields=title,salary (salary unreadable for a member: silently left out)
  auto feed =
      Subscribe(member, "people", "?filter=%7B%22stage%22%3A%22open%22%7D&fields=title,salary");
  Create(R"({"title":"closed one","stage":"closed"})");
  const std::string open_id = Create(R"({"title":"open one","stage":"open","salary":3})");
  const json::object message = feed->NextMessage();
  EXPECT_EQ(message.at("recordId"), open_id.c_str());
  const json::object fields = FieldsOf(message.at("record"));
  EXPECT_EQ(fields.size(), 1u) << json::serialize(fields);
  EXPECT_EQ(fields.at("title"), "open one");
  // An update shows oldRecord narrowed the same way.
  ASSERT_EQ(app_->Send(app_->admin(), "PATCH", "/api/tables/people/records/" + open_id,
                       R"({"fields":{"title":"still open"}})")
                .status,
            200);
  const json::object update = feed->NextMessage();
  EXPECT_EQ(update.at("event"), "update");
  EXPECT_EQ(FieldsOf(update.at("oldRecord")).size(), 1u);
  EXPECT_EQ(FieldsOf(update.at("oldRecord")).at("title"), "open one");
}

TEST_F(RealtimeTest, BatchesSendOneEventPerRecordAndRollbacksNone) {
  auto feed = Subscribe(app_->admin(), "people");
  const auto created = app_->Send(
      app_->admin(), "POST", "/api/tables/people/records/batch",
      R"({"records":[{"fields":{"title":"b1"}},{"fields":{"title":"b2"}},{"fields":{"title":"b3"}}]})");
  ASSERT_EQ(created.status, 201) << created.body;
  std::vector<std::string> ids;
  const json::value created_json = created.Json();
  for (const json::value& record : created_json.at("records").as_array()) {
    ids.emplace_back(record.at("id").as_string());
  }
  for (const std::string& id : ids) {
    const json::object message = feed->NextMessage();
    EXPECT_EQ(message.at("event"), "insert");
    EXPECT_EQ(message.at("recordId"), id.c_str());
  }
  // All or none: an item naming no record rolls the batch back, and nothing is sent.
  const auto failed =
      app_->Send(app_->admin(), "PATCH", "/api/tables/people/records/batch",
                 R"({"records":[{"id":")" + ids[0] +
                     R"(","fields":{"title":"x"}},{"id":"999999","fields":{"title":"y"}}]})");
  ASSERT_EQ(failed.status, 404) << failed.body;
  const auto deleted = app_->Send(app_->admin(), "DELETE", "/api/tables/people/records/batch",
                                  R"({"ids":[")" + ids[1] + R"(",")" + ids[2] + R"("]})");
  ASSERT_EQ(deleted.status, 200) << deleted.body;
  for (std::size_t i = 1; i < 3; ++i) {
    const json::object message = feed->NextMessage();
    EXPECT_EQ(message.at("event"), "delete");
    EXPECT_EQ(message.at("recordId"), ids[i].c_str());
  }
  // Upsert: an insert, then an update of the same record.
  const std::string upsert = R"({"fields":{"title":"u","stage":"s1"},"fieldsToMergeOn":["title"]})";
  ASSERT_EQ(app_->Send(app_->admin(), "POST", "/api/tables/people/records/upsert", upsert).status,
            200);
  EXPECT_EQ(feed->NextMessage().at("event"), "insert");
  ASSERT_EQ(app_->Send(app_->admin(), "POST", "/api/tables/people/records/upsert",
                       R"({"fields":{"title":"u","stage":"s2"},"fieldsToMergeOn":["title"]})")
                .status,
            200);
  const json::object update = feed->NextMessage();
  EXPECT_EQ(update.at("event"), "update");
  EXPECT_EQ(FieldsOf(update.at("oldRecord")).at("stage"), "s1");
}

TEST_F(RealtimeTest, ARoundLargerThanOneReadReachesFilteredSubscribersInCommitOrder) {
  // One batch of 1000 commits together, so one dispatch round reads them: in more than one
  // statement (kSubscriberReadChunk ids each), through the subscriber's filter.
  const Caller member = app_->NewUser("member");
  auto feed = Subscribe(member, "people", "?filter=%7B%22stage%22%3A%22open%22%7D");
  constexpr int kRecords = 1000;
  static_assert(kRecords > static_cast<int>(records::RecordService::kSubscriberReadChunk));
  std::string batch = R"({"records":[)";
  for (int i = 0; i < kRecords; ++i) {
    if (i > 0) batch += ',';
    batch += R"({"fields":{"title":"r)" + std::to_string(i) + R"(","stage":")" +
             (i % 2 == 0 ? "open" : "closed") + R"("}})";
  }
  batch += "]}";
  const auto created = app_->Send(app_->admin(), "POST", "/api/tables/people/records/batch", batch);
  ASSERT_EQ(created.status, 201) << created.body;
  const json::value created_json = created.Json();
  const json::array& records = created_json.at("records").as_array();
  for (int i = 0; i < kRecords; i += 2) {
    const json::object message = feed->NextMessage();
    ASSERT_EQ(message.at("recordId"), records[i].at("id").as_string()) << i;
    EXPECT_EQ(FieldsOf(message.at("record")).at("title"), ("r" + std::to_string(i)).c_str());
  }
  // Nothing else came from the batch: the next message is the next change.
  const std::string id = Create(R"({"title":"after","stage":"open"})");
  EXPECT_EQ(feed->NextMessage().at("recordId"), id.c_str());
}

TEST_F(RealtimeTest, PingsAreAnsweredAndBigFramesClose) {
  auto feed = Subscribe(app_->admin(), "people");
  feed->Command("send ping");
  EXPECT_EQ(feed->NextMessage().at("type"), "pong");
  feed->Command(R"(send {"type":"ping"})");
  EXPECT_EQ(feed->NextMessage().at("type"), "pong");
  feed->Command("send " + std::string(10'000, 'x'));
  EXPECT_EQ(feed->NextClose().at("code"), 1009);
}

TEST_F(RealtimeTest, AtMostTenLiveSubscriptionsPerUser) {
  const Caller member = app_->NewUser("member");
  WsClient ten(app_->app().port(), "/api/tables/people/subscribe", Bearer(member.token), 10);
  int opened = 0;
  int subscribed = 0;
  while (subscribed < 10) {
    const json::object event = ten.Next();
    ASSERT_EQ(event.at("event"), "open" == event.at("event") ? "open" : "message")
        << json::serialize(event);
    (event.at("event") == "open" ? opened : subscribed)++;
  }
  EXPECT_EQ(opened, 10);
  WsClient eleventh(app_->app().port(), "/api/tables/vault/subscribe", Bearer(member.token));
  // Counted per user over every table: still a 404 first for a table it cannot read.
  EXPECT_EQ(eleventh.Next().at("status"), 404);
  WsClient twelfth(app_->app().port(), "/api/tables/people/subscribe", Bearer(member.token));
  const json::object refused = twelfth.Next();
  ASSERT_EQ(refused.at("event"), "refused");
  EXPECT_EQ(refused.at("status"), 429);
  EXPECT_EQ(refused.at("headers").at("retry-after"), "5");
  EXPECT_NE(refused.at("body").as_string().find("RATE_LIMITED"), std::string::npos);
  // Another user is not affected.
  auto other = Subscribe(app_->NewUser("member"), "people");
  // Closing one gives the slot back.
  ten.Command("close");
  for (int closed = 0; closed < 10;) {
    if (ten.Next().at("event") == "close") ++closed;
  }
  auto again = Subscribe(member, "people");
}

TEST_F(RealtimeTest, SlowConsumerIsClosedWith1013) {
  auto feed = Subscribe(app_->admin(), "people");
  feed->Command("pause");
  // Large records, many of them: more than the socket buffers and the send queue hold.
  const std::string notes(60'000, 'n');
  std::string batch = R"({"records":[)";
  for (int i = 0; i < 100; ++i) {
    if (i > 0) batch += ',';
    batch +=
        R"({"fields":{"title":"slow )" + std::to_string(i) + R"(","notes":")" + notes + R"("}})";
  }
  batch += "]}";
  for (int round = 0; round < 4; ++round) {
    ASSERT_EQ(app_->Send(app_->admin(), "POST", "/api/tables/people/records/batch", batch).status,
              201);
  }
  feed->Command("resume");
  const json::object close = feed->NextClose(30'000);
  EXPECT_EQ(close.at("code"), 1013);
  EXPECT_NE(close.at("reason").as_string().find("too slow"), std::string::npos);
}

TEST_F(RealtimeTest, RevokedSessionBannedUserAndLostAccessClose) {
  const Caller signed_out = app_->NewUser("member");
  const Caller banned = app_->NewUser("member");
  const Caller demoted = app_->NewUser("admin");
  auto signed_out_feed = Subscribe(signed_out, "people");
  auto banned_feed = Subscribe(banned, "people");
  auto demoted_feed = Subscribe(demoted, "vault");
  ASSERT_EQ(app_->Send(signed_out, "POST", "/api/auth/sign-out", "{}").status, 200);
  ASSERT_EQ(app_->Send(app_->admin(), "POST", "/api/auth/admin/ban-user",
                       R"({"userId":")" + banned.user_id + R"("})")
                .status,
            200);
  ASSERT_EQ(app_->Send(app_->admin(), "POST", "/api/auth/admin/set-role",
                       R"({"userId":")" + demoted.user_id + R"(","role":"member"})")
                .status,
            200);
  const json::object first = signed_out_feed->NextClose();
  EXPECT_EQ(first.at("code"), 1008);
  EXPECT_EQ(first.at("reason"), "session ended");
  EXPECT_EQ(banned_feed->NextClose().at("code"), 1008);
  const json::object lost = demoted_feed->NextClose();
  EXPECT_EQ(lost.at("code"), 1008);
  EXPECT_EQ(lost.at("reason"), "permissions changed");
  // Subscribing again as a member: no read access to the vault any more.
  WsClient again(app_->app().port(), "/api/tables/vault/subscribe", Bearer(demoted.token));
  EXPECT_EQ(again.Next().at("status"), 404);
}

TEST_F(RealtimeTest, CookieUpgradeNeedsATrustedOrigin) {
  const std::string origin = "http://127.0.0.1:" + std::to_string(app_->app().port());
  std::map<std::string, std::string> headers = Bearer(app_->admin().token);
  headers["Cookie"] = "theme=dark";
  headers["Origin"] = "https://evil.example";
  WsClient cross_site(app_->app().port(), "/api/tables/people/subscribe", headers);
  const json::object refused = cross_site.Next();
  ASSERT_EQ(refused.at("event"), "refused");
  EXPECT_EQ(refused.at("status"), 403);
  headers["Origin"] = origin;
  WsClient same_site(app_->app().port(), "/api/tables/people/subscribe", headers);
  same_site.ExpectSubscribed("people");
}

TEST_F(RealtimeTest, ServerSentEventsCarryTheSameMessages) {
  const Caller member = app_->NewUser("member");
  auto feed = WsClient::EventStream(app_->app().port(), "/api/tables/people/subscribe",
                                    Bearer(member.token));
  const json::object open = feed->Next();
  ASSERT_EQ(open.at("event"), "open") << json::serialize(open);
  EXPECT_EQ(open.at("type"), "text/event-stream");
  EXPECT_EQ(feed->NextMessage().at("type"), "subscribed");
  const std::string id = Create(R"({"title":"streamed","salary":7})");
  const json::object message = feed->NextMessage();
  EXPECT_EQ(message.at("event"), "insert");
  EXPECT_EQ(message.at("recordId"), id.c_str());
  EXPECT_EQ(FieldsOf(message.at("record")).at("title"), "streamed");
  EXPECT_EQ(FieldsOf(message.at("record")).if_contains("salary"), nullptr);
  // The same checks before the stream: no read access → 404.
  auto refused = WsClient::EventStream(app_->app().port(), "/api/tables/vault/subscribe",
                                       Bearer(member.token));
  EXPECT_EQ(refused->Next().at("status"), 404);
  // A server-side close arrives as a last message, then the stream ends.
  ASSERT_EQ(app_->Send(member, "POST", "/api/auth/sign-out", "{}").status, 200);
  const json::object close = feed->NextMessage();
  EXPECT_EQ(close.at("type"), "close");
  EXPECT_EQ(close.at("code"), 1008);
  EXPECT_EQ(feed->Next().at("event"), "end");
}

TEST_F(RealtimeTest, ShutdownClosesWith1001) {
  auto feed = Subscribe(app_->admin(), "people");
  app_->app().app().Shutdown();
  const json::object close = feed->NextClose();
  EXPECT_EQ(close.at("code"), 1001);
}

}  // namespace
}  // namespace cairn::test
