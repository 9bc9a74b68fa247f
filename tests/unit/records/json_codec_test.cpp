#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "codec_test_util.hpp"

namespace cairn::records::testing {
namespace {

using config::FieldType;
using ::testing::HasSubstr;

TEST(JsonCodec, StoresAnyJsonCompactly) {
  const auto field = MakeField(FieldType::kJson, "meta");
  EXPECT_EQ(RoundTrip(field, R"({ "a": [1, 2.5, "x"], "b": {"c": null} })"),
            R"({"a":[1,2.5,"x"],"b":{"c":null}})");
  EXPECT_EQ(RoundTrip(field, "42"), "42");
  EXPECT_EQ(RoundTrip(field, R"("text")"), R"("text")");
  EXPECT_EQ(RoundTrip(field, "[]"), "[]");
  EXPECT_EQ(RoundTrip(field, "false"), "false");
  EXPECT_TRUE(std::holds_alternative<db::Null>(Parse(field, "null").value()));
  EXPECT_EQ(CodecOf(field).JsonSchema(field), J("{}"));
}

TEST(JsonCodec, ValidatesAgainstTheFieldsSchema) {
  auto field = MakeField(FieldType::kJson, "meta");
  field.properties["schema"] = J(R"({"type":"object","required":["sku"],
      "properties":{"sku":{"type":"string"},"qty":{"type":"integer","minimum":1}},
      "additionalProperties":false})");
  EXPECT_EQ(RoundTrip(field, R"({"sku":"A-1","qty":2})"), R"({"sku":"A-1","qty":2})");
  EXPECT_THAT(ErrorOf(field, R"({"qty":0})"), HasSubstr("must match the field's JSON Schema"));
  EXPECT_THAT(ErrorOf(field, R"({"sku":"A","qty":0})"), HasSubstr("qty"));
  ExpectRefused(field, {"[]", R"({"sku":1})", R"({"sku":"A","colour":"red"})", "7"});
  EXPECT_EQ(CodecOf(field).JsonSchema(field).at("anyOf").as_array().size(), 2u);
  field.required = true;
  EXPECT_EQ(CodecOf(field).JsonSchema(field), field.properties.at("schema"));
}

TEST(JsonCodec, RefusesInvalidUtf8Strings) {
  const auto field = MakeField(FieldType::kJson, "meta");
  boost::json::value bad = boost::json::object{{"k", boost::json::array{"ok", "\xC3"}}};
  auto parsed = CodecOf(field).Parse(field, bad);
  ASSERT_FALSE(parsed.ok());
  EXPECT_THAT(parsed.error().message, HasSubstr("UTF-8"));
  EXPECT_THAT(ErrorOf(field, R"({"k":"a\u0000b"})"), HasSubstr("without NUL characters"));
}

}  // namespace
}  // namespace cairn::records::testing
