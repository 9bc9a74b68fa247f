#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "codec_test_util.hpp"
#include "records/attachment_links.hpp"
#include "records/fields/attachment_value.hpp"
#include "support/fake_attachment_files.hpp"

namespace cairn::records::testing {
namespace {

using config::FieldType;
using test::FakeAttachmentFiles;
using ::testing::HasSubstr;

TEST(AttachmentCodec, StoresTheNormalizedObject) {
  const auto field = MakeField(FieldType::kAttachment, "contract");
  EXPECT_EQ(
      RoundTrip(field,
                R"({"mimeType":"application/pdf","path":"contracts/2024/a.pdf","size":1024,
                    "filename":"Contract A.pdf"})"),
      R"({"path":"contracts/2024/a.pdf","filename":"Contract A.pdf","size":1024,"mimeType":"application/pdf"})");
  EXPECT_EQ(RoundTrip(field, R"("docs/readme.txt")"), R"({"path":"docs/readme.txt"})");
  // What a read returns can be written back: the server's members are dropped.
  EXPECT_EQ(RoundTrip(field, R"({"path":"a.png","signedUrl":"https://x/a.png?token=t",
                                 "signedUrlExpiresAt":"2024-05-01T07:00:00.000Z"})"),
            R"({"path":"a.png"})");
  EXPECT_EQ(RoundTrip(field, R"({"path":"a..b/c.d","filename":null})"), R"({"path":"a..b/c.d"})");
  EXPECT_EQ(RoundTrip(field, "null"), "null");
}

TEST(AttachmentCodec, RefusesPathsThatEscapeAndBadMembers) {
  const auto field = MakeField(FieldType::kAttachment, "contract");
  EXPECT_THAT(ErrorOf(field, R"({"path":"../etc/passwd"})"),
              HasSubstr("path must not contain . or .. segments"));
  EXPECT_THAT(ErrorOf(field, R"({"path":"/etc/passwd"})"),
              HasSubstr("path must be relative (no leading /)"));
  EXPECT_THAT(ErrorOf(field, R"({"filename":"a.pdf"})"), HasSubstr("must have a path"));
  EXPECT_THAT(ErrorOf(field, R"({"path":"a.pdf","fileName":"a.pdf"})"),
              HasSubstr("unknown member \"fileName\"; an attachment has path, filename, size"));
  ExpectRefused(field,
                {R"({"path":"a/../b"})", R"({"path":"a/%2e%2E/b"})", R"({"path":"a/./b"})",
                 R"({"path":"a\\b"})", R"({"path":"a//b"})", R"({"path":"a/"})", R"({"path":""})",
                 R"({"path":"a\u0000b"})", R"({"path":7})", R"({"path":"a","size":-1})",
                 R"({"path":"a","size":1.5})", R"({"path":"a","mimeType":"pdf"})",
                 R"({"path":"a","filename":""})", "[]", "true"});
}

TEST(AttachmentCodec, BindsTextForItsTextColumnAndReadsABarePath) {
  const auto field = MakeField(FieldType::kAttachment, "contract");
  auto parsed = Parse(field, R"({"path":"a.pdf"})");
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(std::get<std::string>(*parsed), R"({"path":"a.pdf"})");
  EXPECT_EQ(Output(field, std::string("docs/\"q\".pdf")), R"({"path":"docs/\"q\".pdf"})");
}

TEST(AttachmentCodec, Schema) {
  const auto field = MakeField(FieldType::kAttachment, "contract");
  const auto schema = CodecOf(field).JsonSchema(field);
  EXPECT_EQ(schema.at("type"), J(R"(["object","null"])"));
  EXPECT_EQ(schema.at("required"), J(R"(["path"])"));
}

TEST(MultipleAttachmentsCodec, StoresAnArrayOfObjects) {
  auto field = MakeField(FieldType::kMultipleAttachments, "photos");
  field.max_files = 2;
  EXPECT_EQ(RoundTrip(field, R"(["a.png", {"path":"b.png","size":3}])"),
            R"([{"path":"a.png"},{"path":"b.png","size":3}])");
  EXPECT_EQ(RoundTrip(field, "[]"), "[]");
  EXPECT_EQ(RoundTrip(field, "null"), "null");
}

TEST(MultipleAttachmentsCodec, RefusesTooManyDuplicatesAndBadItems) {
  auto field = MakeField(FieldType::kMultipleAttachments, "photos");
  field.max_files = 2;
  EXPECT_THAT(ErrorOf(field, R"(["a","b","c"])"), HasSubstr("must have at most 2 files, got 3"));
  EXPECT_THAT(ErrorOf(field, R"(["a", {"path":"a"}])"),
              HasSubstr("item 1: path \"a\" is listed twice"));
  EXPECT_THAT(ErrorOf(field, R"(["a", {"path":"../b"}])"),
              HasSubstr("item 1: path must not contain . or .. segments"));
  ExpectRefused(field, {R"({"path":"a"})", R"([1])", R"([null])"});
  EXPECT_EQ(CodecOf(field).JsonSchema(field).at("maxItems"), 2);
}

// With file storage configured (D45).

Result<db::Value> ParseWithFiles(const config::Field& field, std::string_view json_text,
                                 const AttachmentFiles& files) {
  return CodecOf(field).ParseWithFiles(field, J(json_text), files);
}

std::string StoredWithFiles(const config::Field& field, std::string_view json_text,
                            const AttachmentFiles& files) {
  auto parsed = ParseWithFiles(field, json_text, files);
  if (!parsed.ok()) {
    ADD_FAILURE() << json_text << " was refused: " << parsed.error().message;
    return {};
  }
  return Output(field, std::move(*parsed));
}

std::string FileErrorOf(const config::Field& field, std::string_view json_text,
                        const AttachmentFiles& files) {
  auto parsed = ParseWithFiles(field, json_text, files);
  if (parsed.ok()) {
    ADD_FAILURE() << json_text << " was accepted";
    return {};
  }
  EXPECT_EQ(parsed.error().code, ErrorCode::kValidation) << json_text;
  return parsed.error().message;
}

std::string ReadJson(const config::Field& field, db::Value value, const AttachmentFiles& files) {
  const FakeRow row({db::Value(db::Null{}), std::move(value)});
  std::string out;
  CodecOf(field).AppendReadJson(field, row, 1, files, out);
  return out;
}

TEST(AttachmentWithFiles, StoresSizeAndTypeFromStorageNotTheClient) {
  FakeAttachmentFiles files;
  files.Put("default", "docs/a.pdf", 2048, "application/pdf");
  const auto field = MakeField(FieldType::kAttachment, "contract");
  EXPECT_EQ(
      StoredWithFiles(field, R"({"path":"docs/a.pdf","size":1,"mimeType":"image/png"})", files),
      R"({"path":"docs/a.pdf","filename":"a.pdf","size":2048,"mimeType":"application/pdf"})");
  EXPECT_EQ(StoredWithFiles(field, R"({"path":"docs/a.pdf","filename":"Contract.pdf"})", files),
            R"({"path":"docs/a.pdf","filename":"Contract.pdf","size":2048,)"
            R"("mimeType":"application/pdf"})");
  EXPECT_EQ(StoredWithFiles(field, R"("docs/a.pdf")", files),
            R"({"path":"docs/a.pdf","filename":"a.pdf","size":2048,"mimeType":"application/pdf"})");
  EXPECT_EQ(StoredWithFiles(field, "null", files), "null");
  EXPECT_EQ(files.finds(), 3);  // null asks nothing
}

TEST(AttachmentWithFiles, MissingFileIsRefusedNamingTheBucket) {
  FakeAttachmentFiles files;
  files.Put("other", "docs/a.pdf", 1, "application/pdf");
  auto field = MakeField(FieldType::kAttachment, "contract");
  field.bucket = "contracts";
  EXPECT_EQ(FileErrorOf(field, R"({"path":"docs/a.pdf"})", files),
            R"(file "docs/a.pdf" does not exist in bucket "contracts"; upload it first)");
  // A bad shape is refused before storage is asked.
  EXPECT_THAT(FileErrorOf(field, R"({"path":"../a.pdf"})", files),
              HasSubstr("must not contain . or .. segments"));
  EXPECT_EQ(files.finds(), 1);
}

TEST(AttachmentWithFiles, TypeMustBeAllowed) {
  FakeAttachmentFiles files;
  files.Put("default", "a.png", 10, "image/png");
  files.Put("default", "a.txt", 10, "text/plain; charset=utf-8");
  files.Put("default", "a.pdf", 10, "application/pdf");
  auto field = MakeField(FieldType::kAttachment, "scan");
  field.allowed_file_types = {"application/pdf", "image/*"};
  EXPECT_THAT(StoredWithFiles(field, R"("a.png")", files), HasSubstr(R"("mimeType":"image/png")"));
  EXPECT_THAT(StoredWithFiles(field, R"("a.pdf")", files), HasSubstr("application/pdf"));
  EXPECT_EQ(FileErrorOf(field, R"("a.txt")", files),
            R"(file "a.txt" is text/plain; charset=utf-8; this field accepts application/pdf, )"
            R"(image/*)");
  field.allowed_file_types = {"TEXT/Plain"};
  EXPECT_THAT(StoredWithFiles(field, R"("a.txt")", files), HasSubstr("text/plain"));
  field.allowed_file_types = {"*/*"};
  EXPECT_THAT(StoredWithFiles(field, R"("a.png")", files), HasSubstr("image/png"));
}

TEST(AttachmentWithFiles, MimeTypePatterns) {
  EXPECT_TRUE(fields::MimeTypeMatches("image/*", "image/png"));
  EXPECT_TRUE(fields::MimeTypeMatches("Image/*", "image/svg+xml"));
  EXPECT_FALSE(fields::MimeTypeMatches("image/*", "imagex/png"));
  EXPECT_FALSE(fields::MimeTypeMatches("image/*", "application/image"));
  EXPECT_FALSE(fields::MimeTypeMatches("image/png", "image/pngx"));
  EXPECT_TRUE(fields::MimeTypeMatches("text/plain", "text/plain ; charset=utf-8"));
  EXPECT_TRUE(fields::MimeTypeMatches("*/*", "application/octet-stream"));
  EXPECT_FALSE(fields::MimeTypeMatches("application/pdf", ""));
}

TEST(AttachmentWithFiles, SizeMustFit) {
  FakeAttachmentFiles files;
  files.Put("default", "small.bin", 1000, "application/octet-stream");
  files.Put("default", "big.bin", 1001, "application/octet-stream");
  auto field = MakeField(FieldType::kAttachment, "blob");
  field.max_file_size = 1000;
  EXPECT_THAT(StoredWithFiles(field, R"("small.bin")", files), HasSubstr(R"("size":1000)"));
  EXPECT_EQ(FileErrorOf(field, R"("big.bin")", files),
            R"(file "big.bin" is 1001 bytes; this field accepts at most 1000 bytes)");
}

TEST(AttachmentWithFiles, StorageFailureIsNotAValidationError) {
  FakeAttachmentFiles files;
  files.SetFailing(true);
  const auto field = MakeField(FieldType::kAttachment, "contract");
  auto parsed = ParseWithFiles(field, R"("a.pdf")", files);
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.error().code, ErrorCode::kUnavailable);
  auto many = MakeField(FieldType::kMultipleAttachments, "photos");
  parsed = ParseWithFiles(many, R"(["a.pdf"])", files);
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.error().code, ErrorCode::kUnavailable);
}

TEST(MultipleAttachmentsWithFiles, ChecksEachFileAfterTheShape) {
  FakeAttachmentFiles files;
  files.Put("photos", "a.png", 5, "image/png");
  files.Put("photos", "b.gif", 6, "image/gif");
  files.Put("photos", "c.pdf", 7, "application/pdf");
  auto field = MakeField(FieldType::kMultipleAttachments, "photos");
  field.bucket = "photos";
  field.max_files = 2;
  field.allowed_file_types = {"image/*"};
  EXPECT_EQ(
      StoredWithFiles(field, R"(["a.png",{"path":"b.gif","size":999,"filename":"B"}])", files),
      R"([{"path":"a.png","filename":"a.png","size":5,"mimeType":"image/png"},)"
      R"({"path":"b.gif","filename":"B","size":6,"mimeType":"image/gif"}])");
  const int before = files.finds();
  // maxFiles and duplicates are refused without asking storage.
  EXPECT_THAT(FileErrorOf(field, R"(["a.png","b.gif","c.pdf"])", files),
              HasSubstr("must have at most 2 files, got 3"));
  EXPECT_THAT(FileErrorOf(field, R"(["a.png","a.png"])", files), HasSubstr("listed twice"));
  EXPECT_EQ(files.finds(), before);
  EXPECT_EQ(FileErrorOf(field, R"(["a.png","missing.png"])", files),
            R"(item 1: file "missing.png" does not exist in bucket "photos"; upload it first)");
  EXPECT_THAT(FileErrorOf(field, R"(["c.pdf"])", files),
              HasSubstr("item 0: file \"c.pdf\" is application/pdf; this field accepts image/*"));
  EXPECT_EQ(StoredWithFiles(field, "[]", files), "[]");
  EXPECT_EQ(StoredWithFiles(field, "null", files), "null");
}

TEST(AttachmentReadJson, EmbedsLinksFromTheFieldsBucket) {
  FakeAttachmentFiles files;
  auto field = MakeField(FieldType::kAttachment, "contract");
  field.bucket = "contracts";
  EXPECT_EQ(ReadJson(field, db::Value(std::string(R"({"path":"a.pdf","size":3})")), files),
            R"({"path":"a.pdf","size":3,"signedUrl":"https://files.test/contracts/a.pdf?token=t",)"
            R"("signedUrlExpiresAt":"2030-01-01T01:00:00.000Z"})");
  EXPECT_EQ(ReadJson(field, db::Value(std::string("old/bare.pdf")), files),
            R"({"path":"old/bare.pdf","signedUrl":"https://files.test/contracts/old/bare.pdf?)"
            R"(token=t","signedUrlExpiresAt":"2030-01-01T01:00:00.000Z"})");
  EXPECT_EQ(ReadJson(field, db::Value(db::Null{}), files), "null");
  field.bucket = "public";
  EXPECT_EQ(ReadJson(field, db::Value(std::string(R"({"path":"a.pdf"})")), files),
            R"({"path":"a.pdf","url":"https://files.test/public/a.pdf"})");
  // Without file storage the stored value is answered as is.
  EXPECT_EQ(Output(field, db::Value(std::string(R"({"path":"a.pdf"})"))), R"({"path":"a.pdf"})");
}

TEST(MultipleAttachmentsReadJson, EmbedsLinksInEachObject) {
  FakeAttachmentFiles files;
  const auto field = MakeField(FieldType::kMultipleAttachments, "photos");
  EXPECT_EQ(ReadJson(field, db::Value(db::Json{R"([{"path":"a.png"},{"path":"b.png"}])"}), files),
            R"([{"path":"a.png","signedUrl":"https://files.test/default/a.png?token=t",)"
            R"("signedUrlExpiresAt":"2030-01-01T01:00:00.000Z"},)"
            R"({"path":"b.png","signedUrl":"https://files.test/default/b.png?token=t",)"
            R"("signedUrlExpiresAt":"2030-01-01T01:00:00.000Z"}])");
  EXPECT_EQ(ReadJson(field, db::Value(db::Json{"[]"}), files), "[]");
  EXPECT_EQ(ReadJson(field, db::Value(db::Null{}), files), "null");
}

TEST(AttachmentLinks, StoredJsonValues) {
  FakeAttachmentFiles files("pub");
  std::string out;
  AppendAttachmentsWithLinks(J(R"({"path":"x \"q\".png","size":1})"), "pub", files, out);
  EXPECT_EQ(out, R"({"path":"x \"q\".png","size":1,"url":"https://files.test/pub/x \"q\".png"})");
  out.clear();
  // An object without a path gets no links (not ours to repair).
  AppendAttachmentsWithLinks(J(R"([{"filename":"a"},"b.png"])"), "pub", files, out);
  EXPECT_EQ(out, R"([{"filename":"a"},{"path":"b.png","url":"https://files.test/pub/b.png"}])");
}

}  // namespace
}  // namespace cairn::records::testing
