// File storage over HTTP (interface.md "Storage: signed URLs", D40–D47) on every storage
// provider of the build and the database backend of the run: the signing permission matrix and
// the order of its answers, tokens (expiry, tampering, operation, path), uploads (types, sizes,
// replacement), downloads (Range, ETag, HEAD, dispositions), public access, lists, delete and
// the activity entries, and a corpus of hostile paths.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "common/time.hpp"
#include "e2e/auth_test_support.hpp"
#include "e2e/expect_envelope.hpp"
#include "e2e/storage_support.hpp"

namespace cairn::test {
namespace {

class StorageTest : public ::testing::TestWithParam<std::string> {
 protected:
  StorageAppOptions Options() const {
    StorageAppOptions options;
    options.provider = GetParam();
    return options;
  }
};

std::string SignBody(const std::string& path, const std::string& operation = "download") {
  return R"({"path":")" + path + R"(","operation":")" + operation + "\"}";
}

// --- Signing ------------------------------------------------------------------------------------

// Bucket gate × role gate × operation (D43, Authentication rule 5). `docs`: sign for every
// session, signUpload for member and editor; editor's own gate refuses download signing;
// `locked` has no permissions block (admin only); `pictures` lets everyone sign both.
TEST_P(StorageTest, SigningPermissionMatrix) {
  StorageApp app(Options());
  ASSERT_EQ(app.Upload("docs", "m/a.txt", "hello").status, 201);
  ASSERT_EQ(app.Upload("locked", "m/a.txt", "hello").status, 201);
  ASSERT_EQ(app.Upload("pictures", "m/a.png", TinyPng(), "image/png").status, 201);
  const std::map<std::string, Caller> callers = {{"admin", app.admin()},
                                                 {"member", app.NewUser("member")},
                                                 {"viewer", app.NewUser("viewer")},
                                                 {"editor", app.NewUser("editor")}};
  struct Case {
    const char* bucket;
    const char* path;
    const char* operation;
    std::map<std::string, int> expected;
  };
  const Case cases[] = {
      {"docs",
       "m/a.txt",
       "download",
       {{"admin", 200}, {"member", 200}, {"viewer", 200}, {"editor", 403}}},
      {"docs",
       "m/new.txt",
       "upload",
       {{"admin", 200}, {"member", 200}, {"viewer", 403}, {"editor", 200}}},
      {"locked",
       "m/a.txt",
       "download",
       {{"admin", 200}, {"member", 403}, {"viewer", 403}, {"editor", 403}}},
      {"locked",
       "m/new.txt",
       "upload",
       {{"admin", 200}, {"member", 403}, {"viewer", 403}, {"editor", 403}}},
      {"pictures",
       "m/a.png",
       "download",
       {{"admin", 200}, {"member", 200}, {"viewer", 200}, {"editor", 403}}},
      {"pictures",
       "m/new.png",
       "upload",
       {{"admin", 200}, {"member", 200}, {"viewer", 200}, {"editor", 200}}},
  };
  for (const Case& c : cases) {
    for (const auto& [role, status] : c.expected) {
      const auto result = app.Sign(callers.at(role), c.bucket, SignBody(c.path, c.operation));
      EXPECT_EQ(result.status, status)
          << c.bucket << " " << c.operation << " as " << role << ": " << result.body;
      if (status == 403) {
        ExpectEnvelope(result, 403, "FORBIDDEN");
      }
    }
  }
  // No session: 401 before anything else.
  EXPECT_EQ(app.Sign(Caller{}, "docs", SignBody("m/a.txt")).status, 401);
}

// D43: 401, unknown bucket 404, bad body 400, not allowed 403, missing file 404.
TEST_P(StorageTest, SigningAnswersInTheContractsOrder) {
  StorageApp app(Options());
  const Caller viewer = app.NewUser("viewer");
  EXPECT_EQ(app.Sign(Caller{}, "nope", "not json").status, 401);
  EXPECT_EQ(app.Sign(viewer, "nope", "not json").status, 404);
  EXPECT_EQ(app.Sign(viewer, "locked", "not json").status, 400);
  EXPECT_EQ(app.Sign(viewer, "locked", R"({"path":"missing.txt"})").status, 403);
  EXPECT_EQ(app.Sign(app.admin(), "locked", R"({"path":"missing.txt"})").status, 404);
  // Upload signing needs no file.
  EXPECT_EQ(app.Sign(app.admin(), "locked", SignBody("missing.txt", "upload")).status, 200);
}

TEST_P(StorageTest, SignBodyIsChecked) {
  StorageApp app(Options());
  ASSERT_EQ(app.Upload("docs", "a.txt", "x").status, 201);
  const Caller& admin = app.admin();
  const auto sign = [&](const std::string& body) { return app.Sign(admin, "docs", body); };
  EXPECT_EQ(sign(R"({"path":"a.txt","expiresIn":59})").status, 400);
  EXPECT_EQ(sign(R"({"path":"a.txt","expiresIn":604801})").status, 400);
  EXPECT_EQ(sign(R"({"path":"a.txt","expiresIn":60})").status, 200);
  EXPECT_EQ(sign(R"({"path":"a.txt","expiresIn":604800})").status, 200);
  EXPECT_EQ(sign(R"({"path":"a.txt","expiresIn":"60"})").status, 400);
  EXPECT_EQ(sign(R"({"path":"a.txt","operation":"delete"})").status, 400);
  EXPECT_EQ(sign(R"({"path":"a.txt","extra":1})").status, 400);
  EXPECT_EQ(sign(R"({"path":""})").status, 400);
  EXPECT_EQ(sign(R"({"expiresIn":60})").status, 400);
  EXPECT_EQ(sign(R"({"path":"a.txt","contentType":"text/plain"})").status, 400);
  EXPECT_EQ(sign(R"({"path":"../a.txt"})").status, 400);

  const auto download = sign(R"({"path":"a.txt","expiresIn":120})");
  ASSERT_EQ(download.status, 200);
  const auto json = download.Json();
  EXPECT_EQ(json.at("path"), "a.txt");
  const std::string url(json.at("signedUrl").as_string());
  EXPECT_TRUE(url.starts_with("http://127.0.0.1:")) << url;
  EXPECT_NE(url.find("/api/buckets/docs/files/a.txt?token="), std::string::npos) << url;
  const auto expires = time::ParseIso(std::string(json.at("expiresAt").as_string()));
  ASSERT_TRUE(expires);
  EXPECT_NEAR(static_cast<double>(*expires - NowMillis()), 120'000.0, 5'000.0);

  const auto upload =
      sign(R"({"path":"b.txt","operation":"upload","contentType":"text/plain","maxSize":10})");
  ASSERT_EQ(upload.status, 200);
  EXPECT_EQ(upload.Json().at("method"), "PUT");
  EXPECT_EQ(upload.Json().at("headers").at("Content-Type"), "text/plain");
}

TEST_P(StorageTest, BatchSigning) {
  StorageApp app(Options());
  ASSERT_EQ(app.Upload("docs", "one.txt", "1").status, 201);
  ASSERT_EQ(app.Upload("docs", "two.txt", "2").status, 201);
  const auto result = app.Send(
      app.admin(), "POST", "/api/buckets/docs/sign/batch",
      R"({"files":[{"path":"one.txt"},{"path":"gone.txt"},{"path":"two.txt","expiresIn":60}]})");
  ASSERT_EQ(result.status, 200) << result.body;
  const auto json = result.Json();
  const auto& files = json.at("files").as_array();
  ASSERT_EQ(files.size(), 3u);
  EXPECT_EQ(files[0].at("path"), "one.txt");
  EXPECT_TRUE(files[0].as_object().contains("signedUrl"));
  EXPECT_EQ(files[1].at("path"), "gone.txt");
  EXPECT_EQ(files[1].at("error"), "not_found");
  EXPECT_FALSE(files[1].as_object().contains("signedUrl"));
  EXPECT_EQ(files[2].at("path"), "two.txt");
  // Each URL works for its own file.
  const auto got =
      app.app().Client().Get(TargetOf(std::string(files[2].at("signedUrl").as_string())));
  EXPECT_EQ(got.status, 200);
  EXPECT_EQ(got.body, "2");

  std::string many = R"({"files":[)";
  for (int i = 0; i < 101; ++i) many += std::string(i ? "," : "") + R"({"path":"one.txt"})";
  many += "]}";
  EXPECT_EQ(app.Send(app.admin(), "POST", "/api/buckets/docs/sign/batch", many).status, 400);
  EXPECT_EQ(app.Send(app.NewUser("editor"), "POST", "/api/buckets/docs/sign/batch",
                     R"({"files":[{"path":"one.txt"}]})")
                .status,
            403);
  EXPECT_EQ(app.Send(app.admin(), "POST", "/api/buckets/docs/sign/batch",
                     R"({"files":[{"path":"a/../b"}]})")
                .status,
            400);
}

// --- Tokens
// ---------------------------------------------------------------------------------------

TEST_P(StorageTest, TokensGrantOneOperationOnOneFileUntilTheyExpire) {
  StorageApp app(Options());
  ASSERT_EQ(app.Upload("docs", "a.txt", "alpha").status, 201);
  ASSERT_EQ(app.Upload("docs", "b.txt", "beta").status, 201);
  HttpClient client = app.app().Client();
  const std::string download = app.SignedTarget("docs", "a.txt", "download", R"(,"expiresIn":60)");
  EXPECT_EQ(client.Get(download).body, "alpha");

  // Another file, another bucket, a tampered token, no token, an upload token to read.
  std::string other = download;
  other.replace(other.find("a.txt"), 5, "b.txt");
  EXPECT_EQ(client.Get(other).status, 403);
  std::string moved = download;
  moved.replace(moved.find("/docs/"), 6, "/locked/");
  EXPECT_EQ(client.Get(moved).status, 403);
  std::string tampered = download;
  tampered[tampered.size() - 3] = tampered[tampered.size() - 3] == 'A' ? 'B' : 'A';
  EXPECT_EQ(client.Get(tampered).status, 403);
  std::string payload_changed = download;
  const std::size_t at = payload_changed.find("token=") + 8;
  payload_changed[at] = payload_changed[at] == 'A' ? 'B' : 'A';
  EXPECT_EQ(client.Get(payload_changed).status, 403);
  EXPECT_EQ(client.Get("/api/buckets/docs/files/a.txt").status, 403);
  EXPECT_EQ(client.Get("/api/buckets/docs/files/a.txt?token=").status, 403);
  EXPECT_EQ(client.Get("/api/buckets/docs/files/a.txt?token=garbage.garbage").status, 403);
  const std::string upload = app.SignedTarget("docs", "a.txt", "upload");
  EXPECT_EQ(client.Get(upload).status, 403);
  EXPECT_EQ(client.Request("PUT", download, "x").status, 403);
  EXPECT_EQ(client.Get(download).body, "alpha");  // the failed PUT changed nothing

  // A private file without a valid token answers 403 whether it exists or not.
  EXPECT_EQ(client.Get("/api/buckets/docs/files/nothing-here.txt").status, 403);

  app.AdvanceClock(61);
  const auto expired = client.Get(download);
  ExpectEnvelope(expired, 403, "FORBIDDEN");
}

// --- Uploads ------------------------------------------------------------------------------------

TEST_P(StorageTest, UploadsStoreTheBytesWithTheTypeTheyHave) {
  StorageApp app(Options());
  const auto stored = app.Upload("docs", "reports/q1.pdf", TinyPdf(), "application/pdf");
  ASSERT_EQ(stored.status, 201) << stored.body;
  EXPECT_EQ(stored.Json().at("path"), "reports/q1.pdf");
  EXPECT_EQ(stored.Json().at("size").to_number<std::int64_t>(),
            static_cast<std::int64_t>(TinyPdf().size()));
  EXPECT_EQ(stored.Json().at("mimeType"), "application/pdf");
  const auto got = app.Download("docs", "reports/q1.pdf");
  EXPECT_EQ(got.status, 200);
  EXPECT_EQ(got.body, TinyPdf());
  EXPECT_EQ(got.Header("content-type"), "application/pdf");

  // The type comes from the bytes: a PNG named .txt is an image.
  const auto png = app.Upload("docs", "note.txt", TinyPng());
  ASSERT_EQ(png.status, 201);
  EXPECT_EQ(png.Json().at("mimeType"), "image/png");

  // A signed content type the bytes are not: 400, and nothing is stored.
  const auto lying = app.Upload("docs", "fake.png", "just text", "image/png");
  ExpectEnvelope(lying, 400, "VALIDATION_ERROR");
  EXPECT_EQ(app.Sign(app.admin(), "docs", SignBody("fake.png")).status, 404);
  // A Content-Type header other than the signed one: 400 before the body is read.
  const std::string target =
      app.SignedTarget("docs", "typed.txt", "upload", R"(,"contentType":"text/plain")");
  EXPECT_EQ(
      app.app().Client().Request("PUT", target, "words", {{"Content-Type", "image/png"}}).status,
      400);
  EXPECT_EQ(
      app.app().Client().Request("PUT", target, "words", {{"Content-Type", "text/plain"}}).status,
      201);

  // A bucket's allowedMimeTypes: pictures takes images only.
  EXPECT_EQ(app.Upload("pictures", "a.png", TinyPng()).status, 201);
  EXPECT_EQ(app.Upload("pictures", "b.pdf", TinyPdf()).status, 400);
}

TEST_P(StorageTest, UploadsOverTheirLimitAre413BeforeOrWhileTheBodyArrives) {
  StorageApp app(Options());
  HttpClient client = app.app().Client();
  const std::string small = app.SignedTarget("docs", "small.bin", "upload", R"(,"maxSize":10)");
  const auto over = client.Request("PUT", small, std::string(11, 'x'));
  ExpectEnvelope(over, 413, "PAYLOAD_TOO_LARGE");
  EXPECT_EQ(client.Request("PUT", small, std::string(10, 'x')).status, 201);

  // Chunked: cut off once the body passes the limit.
  const std::string chunked_target =
      app.SignedTarget("docs", "chunked.bin", "upload", R"(,"maxSize":100)");
  std::string raw = "PUT " + chunked_target +
                    " HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n";
  for (int i = 0; i < 5; ++i) raw += "20\r\n" + std::string(32, 'y') + "\r\n";
  raw += "0\r\n\r\n";
  const auto responses = ParseResponses(SendRaw(app.app().port(), raw));
  ASSERT_FALSE(responses.empty());
  EXPECT_EQ(responses.front().status, 413);
  EXPECT_EQ(app.Sign(app.admin(), "docs", SignBody("chunked.bin")).status, 404);

  // The bucket's maxFileSize caps any token (pictures: 64 KiB).
  const std::string big =
      app.SignedTarget("pictures", "big.png", "upload", R"(,"maxSize":10000000)");
  EXPECT_EQ(client.Request("PUT", big, TinyPng() + std::string(70'000, '\0')).status, 413);
}

TEST_P(StorageTest, AReplacedFileIsServedWholeAndTheETagChanges) {
  StorageApp app(Options());
  ASSERT_EQ(app.Upload("docs", "v.txt", "version one").status, 201);
  const auto first = app.Download("docs", "v.txt");
  ASSERT_EQ(app.Upload("docs", "v.txt", "second version, longer").status, 201);
  const auto second = app.Download("docs", "v.txt");
  EXPECT_EQ(second.body, "second version, longer");
  EXPECT_FALSE(first.Header("etag").empty());
  EXPECT_NE(first.Header("etag"), second.Header("etag"));
  // A failed replacement (wrong type) leaves the file as it was.
  EXPECT_EQ(app.Upload("docs", "v.txt", "text", "image/png").status, 400);
  EXPECT_EQ(app.Download("docs", "v.txt").body, "second version, longer");
}

// --- Downloads ----------------------------------------------------------------------------------

TEST_P(StorageTest, DownloadsSupportRangesETagsAndHead) {
  StorageApp app(Options());
  std::string bytes;
  for (int i = 0; i < 1000; ++i) bytes += static_cast<char>('a' + i % 26);
  ASSERT_EQ(app.Upload("docs", "abc.txt", bytes).status, 201);
  HttpClient client = app.app().Client();
  const std::string target = app.SignedTarget("docs", "abc.txt");

  const auto whole = client.Get(target);
  EXPECT_EQ(whole.status, 200);
  EXPECT_EQ(whole.body, bytes);
  EXPECT_EQ(whole.Header("accept-ranges"), "bytes");
  EXPECT_EQ(whole.Header("x-content-type-options"), "nosniff");
  EXPECT_EQ(whole.Header("content-disposition"),
            "inline; filename=\"abc.txt\"; filename*=UTF-8''abc.txt");
  const std::string etag = whole.Header("etag");
  ASSERT_FALSE(etag.empty());

  const auto part = client.Get(target, {{"Range", "bytes=10-19"}});
  EXPECT_EQ(part.status, 206);
  EXPECT_EQ(part.body, bytes.substr(10, 10));
  EXPECT_EQ(part.Header("content-range"), "bytes 10-19/1000");
  EXPECT_EQ(client.Get(target, {{"Range", "bytes=990-"}}).body, bytes.substr(990));
  EXPECT_EQ(client.Get(target, {{"Range", "bytes=-5"}}).body, bytes.substr(995));
  EXPECT_EQ(client.Get(target, {{"Range", "bytes=995-5000"}}).body, bytes.substr(995));
  const auto beyond = client.Get(target, {{"Range", "bytes=1000-"}});
  EXPECT_EQ(beyond.status, 416);
  EXPECT_EQ(beyond.Header("content-range"), "bytes */1000");
  // Several ranges or a malformed one: the whole file (RFC 9110 lets a server ignore Range).
  EXPECT_EQ(client.Get(target, {{"Range", "bytes=0-1,5-6"}}).status, 200);
  EXPECT_EQ(client.Get(target, {{"Range", "lines=1-2"}}).status, 200);
  // If-Range with another validator: the whole file.
  EXPECT_EQ(client.Get(target, {{"Range", "bytes=0-1"}, {"If-Range", "\"other\""}}).status, 200);

  const auto unchanged = client.Get(target, {{"If-None-Match", etag}});
  EXPECT_EQ(unchanged.status, 304);
  EXPECT_TRUE(unchanged.body.empty());
  EXPECT_EQ(client.Get(target, {{"If-None-Match", "\"different\""}}).status, 200);

  const auto head = client.Request("HEAD", target);
  EXPECT_EQ(head.status, 200);
  EXPECT_EQ(head.Header("content-length"), "1000");
  EXPECT_TRUE(head.body.empty());
}

TEST_P(StorageTest, PagesAndScriptsAreDownloadedNeverRun) {
  StorageApp app(Options());
  const std::pair<const char*, const char*> active[] = {
      {"page.html", "<!DOCTYPE html><html><body><script>alert(1)</script></body></html>"},
      {"pic.svg",
       "<?xml version=\"1.0\"?><svg xmlns=\"http://www.w3.org/2000/svg\"><script>alert(1)"
       "</script></svg>"},
  };
  for (const auto& [path, bytes] : active) {
    ASSERT_EQ(app.Upload("docs", path, bytes).status, 201);
    const auto got = app.Download("docs", path);
    EXPECT_TRUE(got.Header("content-disposition").starts_with("attachment;")) << path;
    EXPECT_NE(got.Header("content-security-policy").find("sandbox"), std::string::npos) << path;
    EXPECT_EQ(got.Header("x-content-type-options"), "nosniff");
  }
  ASSERT_EQ(app.Upload("docs", "dot.png", TinyPng()).status, 201);
  EXPECT_TRUE(app.Download("docs", "dot.png").Header("content-disposition").starts_with("inline;"));
}

// --- Public access ------------------------------------------------------------------------------

TEST_P(StorageTest, PublicBucketsPathsAndDefaultAccessNeedNoToken) {
  StorageAppOptions options = Options();
  options.public_paths = {"docs/press"};
  StorageApp app(options);
  ASSERT_EQ(app.Upload("open", "logo.png", TinyPng()).status, 201);
  ASSERT_EQ(app.Upload("docs", "press/kit.txt", "kit").status, 201);
  ASSERT_EQ(app.Upload("docs", "pressure.txt", "not public").status, 201);
  ASSERT_EQ(app.Upload("docs", "private.txt", "secret").status, 201);
  HttpClient client = app.app().Client();
  EXPECT_EQ(client.Get("/api/buckets/open/files/logo.png").status, 200);
  EXPECT_EQ(client.Get("/api/buckets/docs/files/press/kit.txt").body, "kit");
  EXPECT_EQ(client.Get("/api/buckets/docs/files/pressure.txt").status, 403);
  EXPECT_EQ(client.Get("/api/buckets/docs/files/private.txt").status, 403);
  EXPECT_EQ(client.Get("/api/buckets/open/files/missing.png").status, 404);
  // Public files still need a token to be written.
  EXPECT_EQ(client.Request("PUT", "/api/buckets/open/files/logo.png", "x").status, 403);

  StorageAppOptions everything = Options();
  everything.default_access = "public";
  StorageApp open_app(everything);
  ASSERT_EQ(open_app.Upload("locked", "any.txt", "anyone").status, 201);
  EXPECT_EQ(open_app.app().Client().Get("/api/buckets/locked/files/any.txt").body, "anyone");
}

// --- Lists, delete, activity --------------------------------------------------------------------

TEST_P(StorageTest, BucketAndFileLists) {
  StorageApp app(Options());
  for (int i = 0; i < 5; ++i) {
    ASSERT_EQ(app.Upload("docs", "list/f" + std::to_string(i) + ".txt", "some text\n").status, 201);
  }
  ASSERT_EQ(app.Upload("docs", "other/g.txt", "some text\n").status, 201);
  std::vector<std::string> seen;
  std::string cursor;
  for (int page = 0; page < 5; ++page) {
    const auto result = app.Send(app.admin(), "GET",
                                 "/api/buckets/docs/files?prefix=list/&limit=2" +
                                     (cursor.empty() ? "" : "&cursor=" + cursor));
    ASSERT_EQ(result.status, 200) << result.body;
    const auto json = result.Json();
    for (const auto& file : json.at("files").as_array()) {
      seen.emplace_back(file.at("path").as_string());
      EXPECT_EQ(file.at("size").to_number<int>(), 10);
      EXPECT_EQ(file.at("mimeType"), "text/plain");
      EXPECT_TRUE(file.as_object().contains("updatedAt"));
    }
    const auto& next = json.at("nextCursor");
    if (next.is_null()) break;
    cursor = std::string(next.as_string());
  }
  EXPECT_EQ(seen, (std::vector<std::string>{"list/f0.txt", "list/f1.txt", "list/f2.txt",
                                            "list/f3.txt", "list/f4.txt"}));
  const Caller viewer = app.NewUser("viewer");
  EXPECT_EQ(app.Send(viewer, "GET", "/api/buckets/docs/files").status, 200);
  EXPECT_EQ(app.Send(viewer, "GET", "/api/buckets/locked/files").status, 403);
  EXPECT_EQ(app.Send(Caller{}, "GET", "/api/buckets/docs/files").status, 401);
  EXPECT_EQ(app.Send(viewer, "GET", "/api/buckets/nope/files").status, 404);
  EXPECT_EQ(app.Send(app.admin(), "GET", "/api/buckets/docs/files?limit=0").status, 400);
  EXPECT_EQ(app.Send(app.admin(), "GET", "/api/buckets/docs/files?prefix=../").status, 400);
  EXPECT_EQ(app.Send(app.admin(), "GET", "/api/buckets/docs/files?cursor=%25%25").status, 400);

  // Buckets: the ones the caller may sign in.
  const auto mine = app.Send(viewer, "GET", "/api/buckets");
  ASSERT_EQ(mine.status, 200);
  std::vector<std::string> names;
  const auto mine_json = mine.Json();
  for (const auto& bucket : mine_json.at("buckets").as_array()) {
    names.emplace_back(bucket.at("name").as_string());
  }
  EXPECT_EQ(names, (std::vector<std::string>{"docs", "pictures"}));
  EXPECT_EQ(app.Send(app.admin(), "GET", "/api/buckets").Json().at("buckets").as_array().size(),
            5u);
}

TEST_P(StorageTest, DeleteHonoursPermissionsAndEverythingIsLogged) {
  StorageApp app(Options());
  ASSERT_EQ(app.Upload("docs", "gone.txt", "bye").status, 201);
  const Caller viewer = app.NewUser("viewer");
  const Caller member = app.NewUser("member");
  EXPECT_EQ(app.Send(viewer, "DELETE", "/api/buckets/docs/files/gone.txt").status, 403);
  EXPECT_EQ(app.Send(Caller{}, "DELETE", "/api/buckets/docs/files/gone.txt").status, 401);
  const auto deleted = app.Send(member, "DELETE", "/api/buckets/docs/files/gone.txt");
  EXPECT_EQ(deleted.status, 200) << deleted.body;
  EXPECT_EQ(app.Send(member, "DELETE", "/api/buckets/docs/files/gone.txt").status, 404);
  EXPECT_EQ(app.Sign(app.admin(), "docs", SignBody("gone.txt")).status, 404);

  const auto log = app.Send(app.admin(), "GET", "/api/activity?action=bucket.file.uploaded");
  ASSERT_EQ(log.status, 200);
  const auto log_json = log.Json();
  const auto& uploads = log_json.at("activities").as_array();
  ASSERT_EQ(uploads.size(), 1u);
  EXPECT_EQ(uploads[0].at("user").at("id").as_string(), app.admin().user_id);
  const auto detail =
      app.Send(app.admin(), "GET", "/api/activity/" + std::string(uploads[0].at("id").as_string()));
  const auto detail_json = detail.Json();
  const auto& metadata = detail_json.at("metadata");
  EXPECT_EQ(metadata.at("bucket"), "docs");
  EXPECT_EQ(metadata.at("path"), "gone.txt");
  EXPECT_EQ(metadata.at("size").to_number<int>(), 3);
  EXPECT_EQ(metadata.at("token").as_string().size(), 16u);

  const auto removals = app.Send(app.admin(), "GET", "/api/activity?action=bucket.file.deleted");
  const auto removals_json = removals.Json();
  const auto& entries = removals_json.at("activities").as_array();
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].at("user").at("id").as_string(), member.user_id);
}

// --- Hostile paths ------------------------------------------------------------------------------

// D44: traversal in every encoding, absolute paths, NUL, control characters and overlong paths
// are a 400 on every file route and in sign bodies; none reaches the backend.
TEST_P(StorageTest, HostilePathsAreRefused) {
  StorageApp app(Options());
  ASSERT_EQ(app.Upload("docs", "safe.txt", "safe").status, 201);
  HttpClient client = app.app().Client();
  const std::string token = QueryParam(app.SignedTarget("docs", "safe.txt"), "token");
  const std::string long_path(1100, 'a');
  const char* const corpus[] = {"..",
                                "../etc/passwd",
                                "a/../../b",
                                "a/./b",
                                "%2e%2e/x",
                                "%2E%2e/x",
                                "a/%2e%2e/b",
                                "%252e%252e/x",
                                "a%2f..%2f..%2fb",
                                "..%2fx",
                                "a%5c..%5cb",
                                "a\\b",
                                "%c0%ae%c0%ae/x",
                                "%e0%80%ae/x",
                                "a%00b",
                                "a%01b",
                                "a%7fb",
                                "a//b",
                                "a/",
                                "%2fetc/passwd",
                                "%ff%fe",
                                "a%0d%0aSet-Cookie:x"};
  for (const char* path : corpus) {
    const std::string target = std::string("/api/buckets/docs/files/") + path;
    for (const char* method : {"GET", "PUT", "DELETE"}) {
      Headers headers;
      if (std::string(method) == "DELETE") {
        headers.emplace_back("Authorization", "Bearer " + app.admin().token);
      }
      const auto result = client.Request(method, target + "?token=" + token, "x", headers);
      EXPECT_EQ(result.status, 400) << method << " " << path << ": " << result.body;
    }
  }
  EXPECT_EQ(client.Get("/api/buckets/docs/files/" + long_path + "?token=" + token).status, 400);
  for (const std::string& path :
       {std::string("../x"), std::string("/etc/passwd"), std::string("a\\\\b"),
        std::string("a\\u0000b"), std::string("a\\u0001b"), long_path}) {
    EXPECT_EQ(app.Sign(app.admin(), "docs", SignBody(path, "upload")).status, 400) << path;
  }
}

// The local backend walks every path without following symlinks: a link inside the storage
// directory to a file outside it serves nothing.
TEST_P(StorageTest, LocalStorageNeverFollowsASymlinkOut) {
  if (GetParam() != "local") GTEST_SKIP() << "local directory backend only";
  StorageAppOptions options = Options();
  options.default_access = "public";
  StorageApp app(options);
  ASSERT_EQ(app.Upload("docs", "inside/real.txt", "real").status, 201);
  const auto root = app.app().data_dir() / "storage";
  const auto outside = app.app().data_dir() / "outside.txt";
  { std::ofstream(outside) << "outside secret"; }
  std::filesystem::create_symlink(outside, root / "docs" / "inside" / "link.txt");
  std::filesystem::create_directory_symlink(app.app().data_dir(), root / "docs" / "up");
  HttpClient client = app.app().Client();
  EXPECT_EQ(client.Get("/api/buckets/docs/files/inside/real.txt").body, "real");
  EXPECT_EQ(client.Get("/api/buckets/docs/files/inside/link.txt").status, 404);
  EXPECT_EQ(client.Get("/api/buckets/docs/files/up/outside.txt").status, 404);
  // An upload through the linked folder does not land outside either.
  const auto through = app.Upload("docs", "up/planted.txt", "planted");
  EXPECT_NE(through.status, 201);
  EXPECT_FALSE(std::filesystem::exists(app.app().data_dir() / "planted.txt"));
}

INSTANTIATE_TEST_SUITE_P(Providers, StorageTest, ::testing::Values("local", "bytea"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace cairn::test
