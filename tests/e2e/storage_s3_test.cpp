// File storage over HTTP with STORAGE_PROVIDER=s3 (D48), against a real S3-compatible server
// that checks signatures (tests/support/s3_server): signed URLs are the service's own presigned
// URLs, used directly by the client; cairn lists, deletes, serves public files and checks
// attachments through the S3 API.
#include <gtest/gtest.h>

#include <charconv>
#include <memory>

#include "e2e/auth_test_support.hpp"
#include "e2e/storage_support.hpp"
#include "support/s3_server.hpp"

namespace cairn::test {
namespace {

constexpr const char* kTables = R"(tables:
  - id: 1
    name: papers
    fields:
      - { id: 1, name: title, type: single-line-text }
      - { id: 2, name: scan, type: attachment, bucket: docs, allowedFileTypes: [application/pdf] }
buckets:
  - name: docs
    permissions: { sign: authenticated, signUpload: authenticated, download: authenticated,
                   delete: [admin] }
  - name: open
    public: true
)";

// The port of an absolute http://127.0.0.1:<port>/… URL.
std::uint16_t PortOf(const std::string& url) {
  const std::size_t colon = url.find(':', url.find("//"));
  std::uint16_t port = 0;
  std::from_chars(url.data() + colon + 1, url.data() + url.find('/', colon), port);
  return port;
}

class StorageS3Test : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const std::string missing = S3Server::MissingNode(); !missing.empty()) {
      GTEST_SKIP() << missing;
    }
    server_ = std::make_unique<S3Server>();
    const std::string endpoint = server_->endpoint();
    const std::string bucket = server_->bucket();
    app_ = std::make_unique<RecordsApp>(kTables, "", [&](TestAppOptions& options) {
      auto base = options.tune_settings;
      options.tune_settings = [base, endpoint, bucket](app::Settings& settings) {
        if (base) base(settings);
        settings.storage.provider = storage::Provider::kS3;
        settings.storage.s3.endpoint = endpoint;
        settings.storage.s3.bucket = bucket;
        settings.storage.s3.access_key_id = S3Server::kAccessKeyId;
        settings.storage.s3.secret_access_key = S3Server::kSecretAccessKey;
        settings.storage.s3.force_path_style = true;
      };
    });
  }

  // Signs as admin; the URL the service itself will accept.
  std::string SignedUrl(const std::string& bucket, const std::string& body) {
    const auto signed_url =
        app_->Send(app_->admin(), "POST", "/api/buckets/" + bucket + "/sign", body);
    EXPECT_EQ(signed_url.status, 200) << signed_url.body;
    return std::string(signed_url.Json().at("signedUrl").as_string());
  }

  HttpResult Direct(const std::string& method, const std::string& url, const std::string& body = {},
                    const Headers& headers = {}) {
    // The Host a browser sends (with the port): it is part of what the URL signs.
    Headers sent = {{"Host", "127.0.0.1:" + std::to_string(PortOf(url))}};
    sent.insert(sent.end(), headers.begin(), headers.end());
    return HttpClient(PortOf(url)).Request(method, TargetOf(url), body, sent);
  }

  std::unique_ptr<S3Server> server_;
  std::unique_ptr<RecordsApp> app_;
};

TEST_F(StorageS3Test, PresignedUrlsGoStraightToTheService) {
  const std::string upload = SignedUrl(
      "docs", R"({"path":"q1/report.pdf","operation":"upload","contentType":"application/pdf"})");
  EXPECT_EQ(PortOf(upload), server_->port()) << upload;
  EXPECT_NE(upload.find("X-Amz-Signature="), std::string::npos);
  // The signed content type binds: another one is refused by the service.
  EXPECT_EQ(Direct("PUT", upload, TinyPdf(), {{"Content-Type", "text/plain"}}).status, 403);
  ASSERT_EQ(Direct("PUT", upload, TinyPdf(), {{"Content-Type", "application/pdf"}}).status, 200);

  const std::string download = SignedUrl("docs", R"({"path":"q1/report.pdf","expiresIn":60})");
  const auto got = Direct("GET", download);
  EXPECT_EQ(got.status, 200);
  EXPECT_EQ(got.body, TinyPdf());
  std::string tampered = download;
  tampered.replace(tampered.find("report.pdf"), 10, "other0.pdf");
  EXPECT_EQ(Direct("GET", tampered).status, 403);
  // The upload URL does not download.
  EXPECT_NE(Direct("GET", upload).status, 200);

  // Missing files are a 404 to sign; batches mark them.
  EXPECT_EQ(
      app_->Send(app_->admin(), "POST", "/api/buckets/docs/sign", R"({"path":"nope.pdf"})").status,
      404);
  const auto batch = app_->Send(app_->admin(), "POST", "/api/buckets/docs/sign/batch",
                                R"({"files":[{"path":"q1/report.pdf"},{"path":"nope.pdf"}]})");
  ASSERT_EQ(batch.status, 200) << batch.body;
  const auto batch_json = batch.Json();
  EXPECT_TRUE(batch_json.at("files").at(0).as_object().contains("signedUrl"));
  EXPECT_EQ(batch_json.at("files").at(1).at("error"), "not_found");
}

TEST_F(StorageS3Test, ListsDeleteAttachmentsAndPublicFilesGoThroughTheS3Api) {
  ASSERT_EQ(Direct("PUT",
                   SignedUrl("docs", R"({"path":"a/one.pdf","operation":"upload",)"
                                     R"("contentType":"application/pdf"})"),
                   TinyPdf(), {{"Content-Type", "application/pdf"}})
                .status,
            200);
  ASSERT_EQ(Direct("PUT",
                   SignedUrl("open", R"({"path":"logo.png","operation":"upload",)"
                                     R"("contentType":"image/png"})"),
                   TinyPng(), {{"Content-Type", "image/png"}})
                .status,
            200);

  const auto listed = app_->Send(app_->admin(), "GET", "/api/buckets/docs/files?prefix=a/");
  ASSERT_EQ(listed.status, 200) << listed.body;
  const auto listed_json = listed.Json();
  ASSERT_EQ(listed_json.at("files").as_array().size(), 1u);
  EXPECT_EQ(listed_json.at("files").at(0).at("path"), "a/one.pdf");
  EXPECT_EQ(listed_json.at("files").at(0).at("mimeType"), "application/pdf");

  // A public file streams from the service through cairn, without a token.
  const auto logo = app_->app().Client().Get("/api/buckets/open/files/logo.png");
  EXPECT_EQ(logo.status, 200);
  EXPECT_EQ(logo.body, TinyPng());
  EXPECT_EQ(
      app_->app().Client().Get("/api/buckets/open/files/logo.png", {{"Range", "bytes=0-3"}}).body,
      TinyPng().substr(0, 4));

  // Attachments: the file must exist in the bucket; its size comes from the service, and reads
  // embed a presigned URL.
  const auto created = app_->Send(app_->admin(), "POST", "/api/tables/papers/records",
                                  R"({"fields":{"title":"Q1","scan":"a/one.pdf"}})");
  ASSERT_EQ(created.status, 201) << created.body;
  const auto created_json = created.Json();
  const auto& scan = created_json.at("fields").at("scan");
  EXPECT_EQ(scan.at("size").to_number<std::int64_t>(), static_cast<std::int64_t>(TinyPdf().size()));
  const std::string link(scan.at("signedUrl").as_string());
  EXPECT_EQ(Direct("GET", link).body, TinyPdf());
  EXPECT_EQ(app_->Send(app_->admin(), "POST", "/api/tables/papers/records",
                       R"({"fields":{"title":"Q2","scan":"a/missing.pdf"}})")
                .status,
            400);

  const auto deleted = app_->Send(app_->admin(), "DELETE", "/api/buckets/docs/files/a/one.pdf");
  EXPECT_EQ(deleted.status, 200) << deleted.body;
  EXPECT_EQ(app_->Send(app_->admin(), "DELETE", "/api/buckets/docs/files/a/one.pdf").status, 404);
  EXPECT_EQ(Direct("GET", link).status, 404);
}

}  // namespace
}  // namespace cairn::test
