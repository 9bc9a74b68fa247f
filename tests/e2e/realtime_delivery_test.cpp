// What realtime subscribers (D53) are sent, beyond realtime_test.cpp: a delete reaches a
// filtered subscriber only for a record its filter let through, a record read in the trash is
// no insert or update, and a record with an attachment arrives with its links as a GET by the
// same subscriber gives them, links that download the file (the storage module's own storage,
// local provider).
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "e2e/realtime_support.hpp"
#include "e2e/records_support.hpp"
#include "support/http_client.hpp"

namespace cairn::test {
namespace {

namespace json = boost::json;

constexpr const char* kTables = R"(buckets:
  - name: docs
tables:
  - id: 1
    name: people
    fields:
      - { id: 1, name: title, type: single-line-text }
      - { id: 2, name: stage, type: single-line-text }
  - id: 2
    name: files
    fields:
      - { id: 1, name: title, type: single-line-text }
      - { id: 2, name: doc, type: attachment, bucket: docs }
)";

class RealtimeDeliveryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string missing = NodeProcess::Missing("ws");
    if (!missing.empty()) GTEST_SKIP() << missing;
    app_ = std::make_unique<RecordsApp>(kTables);
  }

  std::unique_ptr<WsClient> Subscribe(const Caller& caller, const std::string& target) {
    auto client = std::make_unique<WsClient>(app_->app().port(), target, Bearer(caller.token));
    client->ExpectSubscribed(target.substr(12, target.find('/', 12) - 12));
    return client;
  }

  std::string Create(const std::string& table, const std::string& fields_json) {
    const auto result = app_->Send(app_->admin(), "POST", "/api/tables/" + table + "/records",
                                   R"({"fields":)" + fields_json + "}");
    if (result.status != 201) throw std::runtime_error("create: " + result.body);
    return std::string(result.Json().at("id").as_string());
  }

  void Delete(const std::string& id, const std::string& query = "") {
    const auto result =
        app_->Send(app_->admin(), "DELETE", "/api/tables/people/records/" + id + query);
    ASSERT_TRUE(result.status == 200 || result.status == 204) << result.body;
  }

  // The path and query of a signed URL (they are absolute, on BASE_URL).
  static std::string TargetOf(const json::value& url) {
    const std::string text(url.as_string());
    return text.substr(text.find("/api/"));
  }

  std::unique_ptr<RecordsApp> app_;
};

TEST_F(RealtimeDeliveryTest, AFilteredSubscriberGetsDeletesOnlyOfRecordsItsFilterLetThrough) {
  const Caller member = app_->NewUser("member");
  // filter={"stage":"open"}
  auto feed =
      Subscribe(member, "/api/tables/people/subscribe?filter=%7B%22stage%22%3A%22open%22%7D");
  // Every change, awaited after each write: a record already in the trash when its insert or
  // update is read is not sent, so each write is seen before the next one goes.
  auto everything = Subscribe(member, "/api/tables/people/subscribe");
  const auto seen = [&](const std::string& event, const std::string& id) {
    const json::object message = everything->NextMessage();
    EXPECT_EQ(std::string(message.at("event").as_string()), event);
    EXPECT_EQ(std::string(message.at("recordId").as_string()), id);
  };

  const std::string open = Create("people", R"({"title":"A","stage":"open"})");
  seen("insert", open);
  const std::string closed = Create("people", R"({"title":"B","stage":"closed"})");
  seen("insert", closed);
  EXPECT_EQ(feed->NextMessage().at("recordId"), open.c_str());
  // The closed one first: had its delete been sent, it would come before the open one's.
  Delete(closed);
  seen("delete", closed);
  Delete(open);
  seen("delete", open);
  const json::object deleted = feed->NextMessage();
  EXPECT_EQ(deleted.at("event"), "delete");
  EXPECT_EQ(deleted.at("recordId"), open.c_str());
  EXPECT_EQ(deleted.at("oldRecord").at("fields").at("stage"), "open");

  // A record that left the filter by an update (no event: it is no longer visible) and then
  // went to the trash is no delete for this subscriber either.
  const std::string leaving = Create("people", R"({"title":"C","stage":"open"})");
  seen("insert", leaving);
  EXPECT_EQ(feed->NextMessage().at("recordId"), leaving.c_str());
  ASSERT_EQ(app_->Send(app_->admin(), "PATCH", "/api/tables/people/records/" + leaving,
                       R"({"fields":{"stage":"done"}})")
                .status,
            200);
  seen("update", leaving);
  Delete(leaving);
  seen("delete", leaving);
  const std::string last = Create("people", R"({"title":"D","stage":"open"})");
  const json::object next = feed->NextMessage();
  EXPECT_EQ(next.at("event"), "insert");
  EXPECT_EQ(next.at("recordId"), last.c_str());
}

TEST_F(RealtimeDeliveryTest, AnInsertOrUpdateReadAfterItsRecordWentToTheTrashIsNotSent) {
  // Each record is created, updated and trashed back to back, so a dispatch round often reads
  // it when it is already in the trash (how often is timing; what is sent never is): an insert
  // or update is sent only with a live record, and every record's delete arrives, in order.
  auto feed = Subscribe(app_->admin(), "/api/tables/people/subscribe");
  constexpr int kRecords = 20;
  std::vector<std::string> ids;
  for (int i = 0; i < kRecords; ++i) {
    ids.push_back(Create("people", R"({"title":"t","stage":"open"})"));
    ASSERT_EQ(app_->Send(app_->admin(), "PATCH", "/api/tables/people/records/" + ids.back(),
                         R"({"fields":{"stage":"moved"}})")
                  .status,
              200);
    Delete(ids.back());
  }
  std::size_t deletes = 0;
  while (deletes < ids.size()) {
    const json::object message = feed->NextMessage();
    const std::string event(message.at("event").as_string());
    const std::string id(message.at("recordId").as_string());
    if (event == "delete") {
      ASSERT_EQ(id, ids[deletes]);
      ++deletes;
      continue;
    }
    ASSERT_TRUE(event == "insert" || event == "update") << event;
    EXPECT_EQ(id, ids[deletes]) << "a change after its record's delete";
    EXPECT_TRUE(message.at("record").at("deletedAt").is_null()) << json::serialize(message);
  }
}

TEST_F(RealtimeDeliveryTest, AnAttachmentArrivesWithTheLinksAGetGivesAndTheyDownloadTheFile) {
  const std::string bytes = "the contract, version 1\n";
  const auto signed_upload = app_->Send(
      app_->admin(), "POST", "/api/buckets/docs/sign",
      R"({"path":"contracts/a.txt","operation":"upload","contentType":"text/plain","maxSize":100})");
  ASSERT_EQ(signed_upload.status, 200) << signed_upload.body;
  HttpClient client(app_->app().port());
  const auto put = client.Request("PUT", TargetOf(signed_upload.Json().at("signedUrl")), bytes,
                                  {{"Content-Type", "text/plain"}});
  ASSERT_TRUE(put.status == 200 || put.status == 201) << put.status << " " << put.body;

  const Caller member = app_->NewUser("member");
  auto feed = Subscribe(member, "/api/tables/files/subscribe");
  const std::string id =
      Create("files", R"({"title":"A","doc":{"path":"contracts/a.txt","filename":"a.txt"}})");
  const json::object inserted = feed->NextMessage();
  ASSERT_EQ(inserted.at("event"), "insert");
  const auto got = app_->Send(member, "GET", "/api/tables/files/records/" + id);
  ASSERT_EQ(got.status, 200) << got.body;
  const json::value read = got.Json();
  const json::object& sent = inserted.at("record").at("fields").at("doc").as_object();
  const json::object& expected = read.at("fields").at("doc").as_object();
  // The same attachment; the links are minted when read, so only their targets are compared.
  for (const char* key : {"path", "filename", "size", "mimeType"}) {
    EXPECT_EQ(sent.at(key), expected.at(key)) << key;
  }
  EXPECT_EQ(sent.at("size"), static_cast<std::int64_t>(bytes.size()));
  const std::string url(sent.at("signedUrl").as_string());
  const std::string got_url(expected.at("signedUrl").as_string());
  EXPECT_EQ(url.substr(0, url.find('?')), got_url.substr(0, got_url.find('?')));
  ASSERT_TRUE(sent.contains("signedUrlExpiresAt"));
  const auto downloaded = client.Get(TargetOf(sent.at("signedUrl")));
  EXPECT_EQ(downloaded.status, 200);
  EXPECT_EQ(downloaded.body, bytes);

  // The record before an update (oldRecord) carries working links too.
  ASSERT_EQ(app_->Send(app_->admin(), "PATCH", "/api/tables/files/records/" + id,
                       R"({"fields":{"title":"B"}})")
                .status,
            200);
  const json::object updated = feed->NextMessage();
  ASSERT_EQ(updated.at("event"), "update");
  const json::value& old_doc = updated.at("oldRecord").at("fields").at("doc");
  EXPECT_EQ(old_doc.at("path"), "contracts/a.txt");
  EXPECT_EQ(client.Get(TargetOf(old_doc.at("signedUrl"))).body, bytes);
  const json::value& new_doc = updated.at("record").at("fields").at("doc");
  EXPECT_EQ(client.Get(TargetOf(new_doc.at("signedUrl"))).body, bytes);
}

}  // namespace
}  // namespace cairn::test
