// The conversion matrix of a type change (schema/field_conversion.cpp): each pair converts what
// it can without loss, checked by the new type's codec, and refuses the rest.
#include <gtest/gtest.h>

#include <string>
#include <variant>

#include "common/time.hpp"
#include "schema/field_conversion.hpp"

namespace cairn::schema {
namespace {

using config::FieldType;

config::Field Field(FieldType type, int scale = 0, std::vector<std::string> options = {}) {
  config::Field field;
  field.name = "f";
  field.type = type;
  field.scale = scale;
  field.options = std::move(options);
  return field;
}

// The stored value `stored_json` (as the API answers it) of `from` converted to `to`.
Result<db::Value> Convert(const config::Field& from, const config::Field& to,
                          std::string_view stored_json) {
  return ConvertStoredJson({"t", "f", "t.f", from, to}, stored_json);
}

std::int64_t Int(const Result<db::Value>& value) {
  EXPECT_TRUE(value.ok()) << (value.ok() ? "" : value.error().message);
  return value.ok() ? std::get<std::int64_t>(*value) : -999;
}
std::string Text(const Result<db::Value>& value) {
  EXPECT_TRUE(value.ok()) << (value.ok() ? "" : value.error().message);
  return value.ok() ? std::get<std::string>(*value) : "<error>";
}
db::Decimal Dec(const Result<db::Value>& value) {
  EXPECT_TRUE(value.ok()) << (value.ok() ? "" : value.error().message);
  return value.ok() ? std::get<db::Decimal>(*value) : db::Decimal{-999, 0};
}

const config::Field kText = Field(FieldType::kSingleLineText);
const config::Field kLong = Field(FieldType::kLongText);
const config::Field kInteger = Field(FieldType::kInteger);
const config::Field kDecimal2 = Field(FieldType::kDecimal, 2);
const config::Field kDecimal1 = Field(FieldType::kDecimal, 1);
const config::Field kCheckbox = Field(FieldType::kCheckbox);

TEST(FieldConversion, TextToNumbersOnlyFromPlainNumerals) {
  EXPECT_EQ(Int(Convert(kText, kInteger, R"("42")")), 42);
  EXPECT_EQ(Int(Convert(kText, kInteger, R"("-7")")), -7);
  for (const char* refused : {R"("007")", R"("+5")", R"(" 5")", R"("1e3")", R"("5.")", R"("")",
                              R"("abc")", R"("1.5")", R"("99999999999999999999")"}) {
    EXPECT_FALSE(Convert(kText, kInteger, refused).ok()) << refused;
  }
  const db::Decimal decimal = Dec(Convert(kText, kDecimal2, R"("-3.5")"));
  EXPECT_EQ(decimal.units, -350);
  EXPECT_EQ(decimal.scale, 2);
  EXPECT_FALSE(Convert(kText, kDecimal2, R"("1.234")").ok());  // never rounded
  EXPECT_EQ(Int(Convert(kText, Field(FieldType::kDuration), R"("90")")), 90);
  EXPECT_FALSE(Convert(kText, Field(FieldType::kDuration), R"("-1")").ok());
}

TEST(FieldConversion, NumbersToTextAndBetweenNumbers) {
  EXPECT_EQ(Text(Convert(kInteger, kText, "5")), "5");
  EXPECT_EQ(Text(Convert(kDecimal2, kLong, "12.50")), "12.50");
  EXPECT_EQ(Dec(Convert(kInteger, kDecimal2, "5")).units, 500);
  EXPECT_EQ(Dec(Convert(kDecimal2, kDecimal1, "12.50")).units, 125);
  EXPECT_FALSE(Convert(kDecimal2, kDecimal1, "12.55").ok());
  EXPECT_FALSE(Convert(kDecimal2, kInteger, "2.50").ok());
  EXPECT_FALSE(Convert(kInteger, Field(FieldType::kDuration), "-3").ok());
}

TEST(FieldConversion, CheckboxAndIntegerBothWays) {
  EXPECT_EQ(Int(Convert(kCheckbox, kInteger, "true")), 1);
  EXPECT_EQ(Int(Convert(kCheckbox, kInteger, "false")), 0);
  auto one = Convert(kInteger, kCheckbox, "1");
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(std::get<bool>(*one), true);
  EXPECT_FALSE(Convert(kInteger, kCheckbox, "2").ok());
  EXPECT_FALSE(Convert(kDecimal2, kCheckbox, "1.00").ok());
  EXPECT_EQ(Text(Convert(kCheckbox, kText, "false")), "false");
  auto yes = Convert(kText, kCheckbox, R"("true")");
  ASSERT_TRUE(yes.ok());
  EXPECT_EQ(std::get<bool>(*yes), true);
  EXPECT_FALSE(Convert(kText, kCheckbox, R"("yes")").ok());
}

TEST(FieldConversion, DatesAndTimes) {
  const config::Field date = Field(FieldType::kDate);
  const config::Field datetime = Field(FieldType::kDatetime);
  auto midnight = Convert(date, datetime, R"("2026-03-01")");
  ASSERT_TRUE(midnight.ok());
  EXPECT_EQ(std::get<db::Timestamp>(*midnight).epoch_millis,
            *time::ParseIso("2026-03-01T00:00:00Z"));
  EXPECT_FALSE(Convert(datetime, date, R"("2026-03-01T10:00:00.000Z")").ok());
  EXPECT_EQ(Text(Convert(datetime, kText, R"("2026-03-01T10:00:00.000Z")")),
            "2026-03-01T10:00:00.000Z");
  EXPECT_EQ(Text(Convert(kText, date, R"("2026-02-28")")), "2026-02-28");
  EXPECT_FALSE(Convert(kText, date, R"("2026-02-30")").ok());
}

TEST(FieldConversion, TextsAndSelectsAreCheckedByTheNewType) {
  EXPECT_EQ(Text(Convert(kText, kLong, R"("one line")")), "one line");
  EXPECT_FALSE(Convert(kLong, kText, R"("two\nlines")").ok());
  EXPECT_FALSE(Convert(kText, Field(FieldType::kEmail), R"("not an address")").ok());
  const config::Field single = Field(FieldType::kSingleSelect, 0, {"red", "blue"});
  const config::Field multi = Field(FieldType::kMultiSelect, 0, {"red", "blue"});
  EXPECT_EQ(Text(Convert(kText, single, R"("red")")), "red");
  EXPECT_FALSE(Convert(kText, single, R"("green")").ok());
  auto list = Convert(single, multi, R"("blue")");
  ASSERT_TRUE(list.ok()) << list.error().message;
  EXPECT_EQ(std::get<db::Json>(*list).text, R"(["blue"])");
  EXPECT_EQ(Text(Convert(multi, single, R"(["red"])")), "red");
  EXPECT_FALSE(Convert(multi, single, R"(["red","blue"])").ok());
}

TEST(FieldConversion, JsonTakesAnythingAndFixedTypesNeverConvert) {
  const config::Field json_field = Field(FieldType::kJson);
  EXPECT_TRUE(Convert(kInteger, json_field, "5").ok());
  EXPECT_TRUE(Convert(kText, json_field, R"("x")").ok());
  EXPECT_EQ(Text(Convert(json_field, kText, R"("x")")), "x");
  EXPECT_FALSE(Convert(json_field, kText, R"({"a":1})").ok());
  config::Field reference = Field(FieldType::kRelationship);
  reference.related_table = "people";
  EXPECT_FALSE(Convert(reference, kInteger, "3").ok());
  EXPECT_FALSE(Convert(kInteger, reference, "3").ok());
  EXPECT_FALSE(Convert(reference, reference, "3").ok());  // another related table
  EXPECT_TRUE(std::holds_alternative<db::Null>(*Convert(kText, kInteger, "null")));
}

}  // namespace
}  // namespace cairn::schema
