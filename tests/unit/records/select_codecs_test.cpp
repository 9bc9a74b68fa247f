#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "codec_test_util.hpp"

namespace cairn::records::testing {
namespace {

using config::FieldType;
using ::testing::HasSubstr;

config::Field SelectField(FieldType type) {
  auto field = MakeField(type, "stage");
  field.options = {"lead", "customer", "partner"};
  return field;
}

TEST(SingleSelectCodec, AcceptsOptions) {
  const auto field = SelectField(FieldType::kSingleSelect);
  EXPECT_EQ(RoundTrip(field, R"("lead")"), R"("lead")");
  EXPECT_EQ(RoundTrip(field, R"("partner")"), R"("partner")");
  EXPECT_EQ(RoundTrip(field, "null"), "null");
}

TEST(SingleSelectCodec, RefusesOtherValuesListingTheOptions) {
  const auto field = SelectField(FieldType::kSingleSelect);
  EXPECT_THAT(ErrorOf(field, R"("custmer")"),
              HasSubstr("\"custmer\" is not an option; must be one of: lead, customer, partner "
                        "(did you mean \"customer\"?)"));
  ExpectRefused(field, {R"("Lead")", R"("")", R"(" lead")", "1", R"(["lead"])"});
  EXPECT_THAT(ErrorOf(field, "1"),
              HasSubstr("must be one of: lead, customer, partner, not a number"));
}

TEST(SingleSelectCodec, SchemaIsAnEnum) {
  auto field = SelectField(FieldType::kSingleSelect);
  EXPECT_EQ(CodecOf(field).JsonSchema(field),
            J(R"({"type":["string","null"],"enum":["lead","customer","partner",null]})"));
  field.required = true;
  EXPECT_EQ(CodecOf(field).JsonSchema(field),
            J(R"({"type":"string","enum":["lead","customer","partner"]})"));
}

TEST(MultiSelectCodec, StoresJsonArrayTextAndWritesTheArray) {
  const auto field = SelectField(FieldType::kMultiSelect);
  auto parsed = Parse(field, R"(["partner", "lead"])");
  ASSERT_TRUE(parsed.ok());
  ASSERT_TRUE(std::holds_alternative<db::Json>(*parsed));
  EXPECT_EQ(std::get<db::Json>(*parsed).text, R"(["partner","lead"])");
  EXPECT_EQ(RoundTrip(field, R"(["partner", "lead"])"), R"(["partner","lead"])");
  EXPECT_EQ(RoundTrip(field, "[]"), "[]");
  EXPECT_EQ(RoundTrip(field, "null"), "null");
}

TEST(MultiSelectCodec, RefusesDuplicatesUnknownsAndTooMany) {
  auto field = SelectField(FieldType::kMultiSelect);
  field.max_selections = 2;
  EXPECT_THAT(ErrorOf(field, R"(["lead","lead"])"),
              HasSubstr("item 1: \"lead\" is listed twice; values must be distinct"));
  EXPECT_THAT(
      ErrorOf(field, R"(["lead","vip"])"),
      HasSubstr("item 1: \"vip\" is not an option; must be one of: lead, customer, partner"));
  EXPECT_THAT(ErrorOf(field, R"(["lead","customer","partner"])"),
              HasSubstr("must have at most 2 values, got 3"));
  EXPECT_THAT(ErrorOf(field, R"(["lead",1])"), HasSubstr("item 1: must be one of"));
  EXPECT_THAT(ErrorOf(field, R"("lead")"), HasSubstr("must be an array of distinct values"));
  ExpectRefused(field, {"{}", "true", R"([null])"});
  EXPECT_EQ(CodecOf(field).JsonSchema(field),
            J(R"({"type":["array","null"],"items":{"type":"string",
                  "enum":["lead","customer","partner"]},"uniqueItems":true,"maxItems":2})"));
}

}  // namespace
}  // namespace cairn::records::testing
