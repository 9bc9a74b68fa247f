// Attachment fields backed by file storage (D45) over HTTP, with an in-memory storage injected
// through ApplicationOptions::attachment_files: writes name files that exist in the field's
// bucket, with an allowed type and size (400 naming the field otherwise), store the size and type
// storage reports, and every answer that shows a record embeds the links, minted at read time.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "e2e/records_support.hpp"
#include "support/fake_attachment_files.hpp"

namespace cairn::test {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr const char* kTables = R"(buckets:
  - name: photos
  - name: public
    public: true
tables:
  - id: 1
    name: docs
    fields:
      - { id: 1, name: title, type: single-line-text }
      - { id: 2, name: contract, type: attachment, allowedFileTypes: [application/pdf],
          maxFileSize: 1000 }
      - { id: 3, name: photos, type: multiple-attachments, bucket: photos,
          allowedFileTypes: ["image/*"], maxFiles: 2 }
      - { id: 4, name: logo, type: attachment, bucket: public }
    views:
      - id: all
        name: All
)";

const std::string kDocs = "/api/tables/docs/records";
constexpr const char* kExpires = "2030-01-01T01:00:00.000Z";

boost::json::value J(std::string_view text) {
  return boost::json::parse(text);
}

// The contract attachment as every read answers it.
boost::json::value ContractRead() {
  return J(R"({"path":"contracts/a.pdf","filename":"a.pdf","size":900,
               "mimeType":"application/pdf",
               "signedUrl":"https://files.test/default/contracts/a.pdf?token=t",
               "signedUrlExpiresAt":"2030-01-01T01:00:00.000Z"})");
}

class RecordsAttachments : public ::testing::Test {
 protected:
  RecordsAttachments() : app_(kTables, "", &files_) {
    files_.Put("default", "contracts/a.pdf", 900, "application/pdf");
    files_.Put("default", "contracts/big.pdf", 1001, "application/pdf");
    files_.Put("default", "notes.txt", 10, "text/plain");
    files_.Put("photos", "a.png", 5, "image/png");
    files_.Put("photos", "b.jpg", 6, "image/jpeg");
    files_.Put("photos", "c.webp", 7, "image/webp");
    files_.Put("public", "logo.svg", 8, "image/svg+xml");
  }

  // Creates a record with a contract whose client-side size and type are wrong; returns its id.
  std::string CreateWithContract() {
    const auto created = app_.Send(
        app_.admin(), "POST", kDocs,
        R"({"fields":{"title":"A","contract":{"path":"contracts/a.pdf","size":5,)"
        R"("mimeType":"text/plain"},"photos":["a.png",{"path":"b.jpg","filename":"B.jpg"}]}})");
    EXPECT_EQ(created.status, 201) << created.body;
    EXPECT_EQ(created.Json().at("fields").at("contract"), ContractRead()) << created.body;
    return std::string(created.Json().at("id").as_string());
  }

  FakeAttachmentFiles files_;  // before app_: it must outlive the application
  RecordsApp app_;
};

TEST_F(RecordsAttachments, CreateStoresStorageSizeAndTypeAndEveryReadEmbedsLinks) {
  const std::string id = CreateWithContract();
  const auto got = app_.Send(app_.admin(), "GET", kDocs + "/" + id);
  ASSERT_EQ(got.status, 200) << got.body;
  const auto fields = got.Json().at("fields");
  EXPECT_EQ(fields.at("contract"), ContractRead());
  EXPECT_EQ(fields.at("photos"),
            J(R"([{"path":"a.png","filename":"a.png","size":5,"mimeType":"image/png",
                   "signedUrl":"https://files.test/photos/a.png?token=t",
                   "signedUrlExpiresAt":"2030-01-01T01:00:00.000Z"},
                  {"path":"b.jpg","filename":"B.jpg","size":6,"mimeType":"image/jpeg",
                   "signedUrl":"https://files.test/photos/b.jpg?token=t",
                   "signedUrlExpiresAt":"2030-01-01T01:00:00.000Z"}])"));
  EXPECT_TRUE(fields.at("logo").is_null());

  const auto list = app_.Send(app_.admin(), "GET", kDocs);
  ASSERT_EQ(list.status, 200) << list.body;
  EXPECT_EQ(list.Json().at("records").at(0).at("fields").at("contract"), ContractRead());

  const auto view = app_.Send(app_.admin(), "GET", "/api/tables/docs/views/all/records");
  ASSERT_EQ(view.status, 200) << view.body;
  EXPECT_EQ(view.Json().at("records").at(0).at("fields").at("contract"), ContractRead());

  const auto shown = app_.Send(app_.admin(), "GET", kDocs + "/" + id + "?format=display");
  ASSERT_EQ(shown.status, 200) << shown.body;
  const auto contract = shown.Json().at("fields").at("contract");
  EXPECT_EQ(contract.at("displayName"), "a.pdf");
  EXPECT_EQ(contract.at("displaySize"), "900 byte");
  EXPECT_EQ(contract.at("signedUrl"), "https://files.test/default/contracts/a.pdf?token=t");
  EXPECT_EQ(contract.at("signedUrlExpiresAt"), kExpires);
  const auto shown_list = app_.Send(app_.admin(), "GET", kDocs + "?format=display");
  ASSERT_EQ(shown_list.status, 200) << shown_list.body;
  EXPECT_EQ(shown_list.Json().at("records").at(0).at("fields").at("photos").at(1).at("signedUrl"),
            "https://files.test/photos/b.jpg?token=t");

  ASSERT_EQ(app_.Send(app_.admin(), "DELETE", kDocs + "/" + id).status, 204);
  const auto trash = app_.Send(app_.admin(), "GET", "/api/tables/docs/trash");
  ASSERT_EQ(trash.status, 200) << trash.body;
  EXPECT_EQ(trash.Json().at("records").at(0).at("fields").at("contract"), ContractRead());
  const auto restored = app_.Send(app_.admin(), "POST", kDocs + "/" + id + "/restore");
  ASSERT_EQ(restored.status, 200) << restored.body;
  EXPECT_EQ(restored.Json().at("fields").at("contract"), ContractRead());
}

TEST_F(RecordsAttachments, PublicBucketFilesGetADirectUrl) {
  const auto created = app_.Send(app_.admin(), "POST", kDocs, R"({"fields":{"logo":"logo.svg"}})");
  ASSERT_EQ(created.status, 201) << created.body;
  EXPECT_EQ(created.Json().at("fields").at("logo"),
            J(R"({"path":"logo.svg","filename":"logo.svg","size":8,"mimeType":"image/svg+xml",
                  "url":"https://files.test/public/logo.svg"})"));
}

TEST_F(RecordsAttachments, MissingWrongTypeAndTooLargeFilesAre400sNamingTheField) {
  const int before = files_.finds();
  auto refused = app_.Send(app_.admin(), "POST", kDocs,
                           R"({"fields":{"contract":"contracts/none.pdf","photos":["nope.png"]}})");
  ASSERT_EQ(refused.status, 400) << refused.body;
  EXPECT_EQ(CodeOf(refused), "VALIDATION_ERROR");
  EXPECT_THAT(ErrorFields(refused), ElementsAre("fields.contract", "fields.photos"));
  const auto errors = refused.Json().at("errors").as_array();
  EXPECT_EQ(errors.at(0).at("message"),
            R"(file "contracts/none.pdf" does not exist in bucket "default"; upload it first)");
  EXPECT_EQ(errors.at(1).at("message"),
            R"(item 0: file "nope.png" does not exist in bucket "photos"; upload it first)");
  EXPECT_EQ(files_.finds(), before + 2);

  refused = app_.Send(app_.admin(), "POST", kDocs, R"({"fields":{"contract":"notes.txt"}})");
  ASSERT_EQ(refused.status, 400) << refused.body;
  EXPECT_THAT(ErrorFields(refused), ElementsAre("fields.contract"));
  EXPECT_THAT(refused.body, HasSubstr("is text/plain; this field accepts application/pdf"));

  refused =
      app_.Send(app_.admin(), "POST", kDocs, R"({"fields":{"contract":"contracts/big.pdf"}})");
  ASSERT_EQ(refused.status, 400) << refused.body;
  EXPECT_THAT(ErrorFields(refused), ElementsAre("fields.contract"));
  EXPECT_THAT(refused.body, HasSubstr("is 1001 bytes; this field accepts at most 1000 bytes"));

  // maxFiles is checked before storage is asked.
  const int finds = files_.finds();
  refused =
      app_.Send(app_.admin(), "POST", kDocs, R"({"fields":{"photos":["a.png","b.jpg","c.webp"]}})");
  ASSERT_EQ(refused.status, 400) << refused.body;
  EXPECT_THAT(ErrorFields(refused), ElementsAre("fields.photos"));
  EXPECT_THAT(refused.body, HasSubstr("must have at most 2 files, got 3"));
  EXPECT_EQ(files_.finds(), finds);

  const auto list = app_.Send(app_.admin(), "GET", kDocs);
  EXPECT_EQ(list.Json().at("pagination").at("total"), 0) << "nothing was written";
}

TEST_F(RecordsAttachments, NullValuesAskNothingAndStayNull) {
  const int before = files_.finds();
  const auto created = app_.Send(app_.admin(), "POST", kDocs,
                                 R"({"fields":{"title":"none","contract":null,"photos":null}})");
  ASSERT_EQ(created.status, 201) << created.body;
  EXPECT_TRUE(created.Json().at("fields").at("contract").is_null());
  EXPECT_TRUE(created.Json().at("fields").at("photos").is_null());
  EXPECT_EQ(files_.finds(), before);
  const std::string id(created.Json().at("id").as_string());
  const auto shown = app_.Send(app_.admin(), "GET", kDocs + "/" + id + "?format=display");
  EXPECT_TRUE(shown.Json().at("fields").at("contract").is_null()) << shown.body;
  const auto emptied =
      app_.Send(app_.admin(), "PATCH", kDocs + "/" + id, R"({"fields":{"photos":[]}})");
  ASSERT_EQ(emptied.status, 200) << emptied.body;
  EXPECT_EQ(emptied.Json().at("fields").at("photos"), J("[]"));
}

TEST_F(RecordsAttachments, UpdateChecksFilesAndKeepsItsErrorOrder) {
  const std::string id = CreateWithContract();
  auto refused =
      app_.Send(app_.admin(), "PATCH", kDocs + "/" + id, R"({"fields":{"contract":"gone.pdf"}})");
  ASSERT_EQ(refused.status, 400) << refused.body;
  EXPECT_THAT(ErrorFields(refused), ElementsAre("fields.contract"));
  // A missing record answers 404 before the body's problems, as without storage.
  refused =
      app_.Send(app_.admin(), "PATCH", kDocs + "/999", R"({"fields":{"contract":"gone.pdf"}})");
  EXPECT_EQ(refused.status, 404) << refused.body;

  const auto updated = app_.Send(app_.admin(), "PATCH", kDocs + "/" + id,
                                 R"({"fields":{"photos":[{"path":"c.webp","size":1}]}})");
  ASSERT_EQ(updated.status, 200) << updated.body;
  EXPECT_EQ(updated.Json().at("fields").at("photos").at(0).at("size"), 7);
  EXPECT_EQ(updated.Json().at("fields").at("photos").at(0).at("signedUrl"),
            "https://files.test/photos/c.webp?token=t");
  EXPECT_EQ(updated.Json().at("fields").at("contract"), ContractRead());

  // What a read answers can be written back: the links are dropped, not stored.
  const auto got = app_.Send(app_.admin(), "GET", kDocs + "/" + id);
  boost::json::object fields;
  fields["contract"] = got.Json().at("fields").at("contract");
  const auto written_back =
      app_.Send(app_.admin(), "PATCH", kDocs + "/" + id,
                boost::json::serialize(boost::json::object{{"fields", fields}}));
  ASSERT_EQ(written_back.status, 200) << written_back.body;
  EXPECT_EQ(written_back.Json().at("fields").at("contract"), ContractRead());
}

TEST_F(RecordsAttachments, HistoryEmbedsLinksInBeforeAndAfter) {
  const std::string id = CreateWithContract();
  ASSERT_EQ(
      app_.Send(app_.admin(), "PATCH", kDocs + "/" + id, R"({"fields":{"contract":null}})").status,
      200);
  const auto history = app_.Send(app_.admin(), "GET", kDocs + "/" + id + "/history");
  ASSERT_EQ(history.status, 200) << history.body;
  const auto entries = history.Json().at("history").as_array();
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries.at(0).at("action"), "update");
  EXPECT_EQ(entries.at(0).at("changes").at("before").at("contract"), ContractRead());
  EXPECT_TRUE(entries.at(0).at("changes").at("after").at("contract").is_null());
  EXPECT_EQ(entries.at(1).at("changes").at("after").at("contract"), ContractRead());
  EXPECT_EQ(entries.at(1).at("changes").at("after").at("photos").at(0).at("signedUrl"),
            "https://files.test/photos/a.png?token=t");
}

TEST_F(RecordsAttachments, BatchesNameTheItemAndAnswerLinks) {
  auto refused = app_.Send(app_.admin(), "POST", kDocs + "/batch",
                           R"({"records":[{"fields":{"contract":"contracts/a.pdf"}},)"
                           R"({"fields":{"contract":"missing.pdf"}}]})");
  ASSERT_EQ(refused.status, 400) << refused.body;
  EXPECT_THAT(ErrorFields(refused), ElementsAre("records[1].fields.contract"));

  const int before = files_.finds();
  const auto created = app_.Send(app_.admin(), "POST", kDocs + "/batch",
                                 R"({"records":[{"fields":{"contract":"contracts/a.pdf"}},)"
                                 R"({"fields":{"contract":"contracts/a.pdf"}}]})");
  ASSERT_EQ(created.status, 201) << created.body;
  EXPECT_EQ(files_.finds(), before + 1) << "one lookup per file and request";
  const auto records = created.Json().at("records").as_array();
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records.at(1).at("fields").at("contract"), ContractRead());

  const std::string id(records.at(0).at("id").as_string());
  refused = app_.Send(app_.admin(), "PATCH", kDocs + "/batch",
                      R"({"records":[{"id":")" + id + R"(","fields":{"photos":["x.png"]}}]})");
  ASSERT_EQ(refused.status, 400) << refused.body;
  EXPECT_THAT(ErrorFields(refused), ElementsAre("records[0].fields.photos"));
  const auto updated =
      app_.Send(app_.admin(), "PATCH", kDocs + "/batch",
                R"({"records":[{"id":")" + id + R"(","fields":{"photos":["a.png"]}}]})");
  ASSERT_EQ(updated.status, 200) << updated.body;
  EXPECT_EQ(updated.Json().at("records").at(0).at("fields").at("photos").at(0).at("size"), 5);
  EXPECT_EQ(updated.Json().at("records").at(0).at("fields").at("contract"), ContractRead());
}

TEST_F(RecordsAttachments, UpsertChecksFilesAndAnswersLinks) {
  auto refused =
      app_.Send(app_.admin(), "POST", kDocs + "/upsert",
                R"({"matchFields":["title"],"fields":{"title":"u","contract":"x.pdf"}})");
  ASSERT_EQ(refused.status, 400) << refused.body;
  EXPECT_THAT(ErrorFields(refused), ElementsAre("fields.contract"));
  const auto upserted =
      app_.Send(app_.admin(), "POST", kDocs + "/upsert",
                R"({"matchFields":["title"],"fields":{"title":"u","contract":"contracts/a.pdf"}})");
  ASSERT_EQ(upserted.status, 200) << upserted.body;
  EXPECT_EQ(upserted.Json().at("record").at("contract"), ContractRead());
  const auto batch = app_.Send(
      app_.admin(), "POST", kDocs + "/upsert",
      R"({"fieldsToMergeOn":["title"],"records":[{"fields":{"title":"u","logo":"logo.svg"}},)"
      R"({"fields":{"title":"v","logo":"none.svg"}}]})");
  ASSERT_EQ(batch.status, 400) << batch.body;
  EXPECT_THAT(ErrorFields(batch), ElementsAre("records[1].fields.logo"));
}

TEST_F(RecordsAttachments, StorageOutageIsA503NotA400) {
  files_.SetFailing(true);
  const auto refused =
      app_.Send(app_.admin(), "POST", kDocs, R"({"fields":{"contract":"contracts/a.pdf"}})");
  EXPECT_EQ(refused.status, 503) << refused.body;
  const auto batch = app_.Send(app_.admin(), "POST", kDocs + "/batch",
                               R"({"records":[{"fields":{"contract":"contracts/a.pdf"}}]})");
  EXPECT_EQ(batch.status, 503) << batch.body;
  files_.SetFailing(false);
}

}  // namespace
}  // namespace cairn::test
