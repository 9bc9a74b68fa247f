#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "codec_test_util.hpp"

namespace cairn::records::testing {
namespace {

using config::FieldType;
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
  field.properties["maxFiles"] = 2;
  EXPECT_EQ(RoundTrip(field, R"(["a.png", {"path":"b.png","size":3}])"),
            R"([{"path":"a.png"},{"path":"b.png","size":3}])");
  EXPECT_EQ(RoundTrip(field, "[]"), "[]");
  EXPECT_EQ(RoundTrip(field, "null"), "null");
}

TEST(MultipleAttachmentsCodec, RefusesTooManyDuplicatesAndBadItems) {
  auto field = MakeField(FieldType::kMultipleAttachments, "photos");
  field.properties["maxFiles"] = 2;
  EXPECT_THAT(ErrorOf(field, R"(["a","b","c"])"), HasSubstr("must have at most 2 files, got 3"));
  EXPECT_THAT(ErrorOf(field, R"(["a", {"path":"a"}])"),
              HasSubstr("item 1: path \"a\" is listed twice"));
  EXPECT_THAT(ErrorOf(field, R"(["a", {"path":"../b"}])"),
              HasSubstr("item 1: path must not contain . or .. segments"));
  ExpectRefused(field, {R"({"path":"a"})", R"([1])", R"([null])"});
  EXPECT_EQ(CodecOf(field).JsonSchema(field).at("maxItems"), 2);
}

}  // namespace
}  // namespace cairn::records::testing
