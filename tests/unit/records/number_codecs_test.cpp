#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "codec_test_util.hpp"
#include "common/json_input.hpp"

namespace cairn::records::testing {
namespace {

using config::FieldType;
using ::testing::HasSubstr;

config::Field DecimalField(FieldType type, int scale) {
  auto field = MakeField(type);
  field.scale = scale;
  return field;
}

db::Decimal DecimalOf(const config::Field& field, std::string_view json_text) {
  auto parsed = Parse(field, json_text);
  EXPECT_TRUE(parsed.ok()) << json_text << ": " << (parsed.ok() ? "" : parsed.error().message);
  if (!parsed.ok()) return {};
  EXPECT_TRUE(std::holds_alternative<db::Decimal>(*parsed));
  return std::get<db::Decimal>(*parsed);
}

// ---- integer ----

TEST(IntegerCodec, AcceptsWholeNumbersWithinInt64) {
  const auto field = MakeField(FieldType::kInteger);
  EXPECT_EQ(RoundTrip(field, "42"), "42");
  EXPECT_EQ(RoundTrip(field, "-7"), "-7");
  EXPECT_EQ(RoundTrip(field, "9223372036854775807"), "9223372036854775807");
  EXPECT_EQ(RoundTrip(field, "-9223372036854775808"), "-9223372036854775808");
  EXPECT_EQ(RoundTrip(field, "5.0"), "5");
  EXPECT_EQ(RoundTrip(field, "1e3"), "1000");
  EXPECT_EQ(RoundTrip(field, R"("9007199254740993")"), "9007199254740993");  // beyond 2^53
  EXPECT_EQ(RoundTrip(field, "null"), "null");
}

TEST(IntegerCodec, RefusesFractionsOverflowAndNonNumbers) {
  const auto field = MakeField(FieldType::kInteger);
  EXPECT_THAT(ErrorOf(field, "1.5"), HasSubstr("without a fraction, got 1.5"));
  EXPECT_THAT(ErrorOf(field, "9223372036854775808"), HasSubstr("between -9223372036854775808"));
  // Beyond int64, so Boost.JSON reads it as a double: its digits cannot be trusted.
  EXPECT_THAT(ErrorOf(field, "-9223372036854775809"), HasSubstr("send it as a string"));
  EXPECT_THAT(ErrorOf(field, "123456789012345678.0"), HasSubstr("send it as a string"));
  EXPECT_THAT(ErrorOf(field, "1e19"), HasSubstr("between"));
  EXPECT_THAT(ErrorOf(field, R"("12abc")"), HasSubstr("is not a number"));
  EXPECT_THAT(ErrorOf(field, "true"), HasSubstr("must be an integer, not a boolean"));
  EXPECT_THAT(ErrorOf(field, "[1]"), HasSubstr("not an array"));
}

TEST(IntegerCodec, ChecksMinAndMaxExactly) {
  auto field = MakeField(FieldType::kInteger);
  field.min = 0;
  field.max = 9007199254740993.0;  // the double is 2^53; the written bound is exact
  field.properties["min"] = 0;
  field.properties["max"] = 9007199254740993LL;
  ExpectAccepted(field, {"0", "10", "9007199254740993"});
  EXPECT_THAT(ErrorOf(field, "-1"),
              HasSubstr("must be at least 0 (between 0 and 9007199254740993), got -1"));
  EXPECT_THAT(ErrorOf(field, "9007199254740994"), HasSubstr("must be at most 9007199254740993"));
  EXPECT_EQ(CodecOf(field).JsonSchema(field),
            J(R"({"type":["integer","null"],"minimum":0,"maximum":9007199254740993})"));
}

TEST(IntegerCodec, UsesTypedBoundsWhenPropertiesAreAbsent) {
  auto field = MakeField(FieldType::kInteger);
  field.min = 1.5;
  ExpectRefused(field, {"1", "0", "-4"});
  ExpectAccepted(field, {"2", "100"});
}

// ---- duration ----

TEST(DurationCodec, AcceptsWholeSecondsFromZero) {
  const auto field = MakeField(FieldType::kDuration);
  EXPECT_EQ(RoundTrip(field, "0"), "0");
  EXPECT_EQ(RoundTrip(field, "3600"), "3600");
  EXPECT_EQ(RoundTrip(field, "90.0"), "90");
  EXPECT_EQ(RoundTrip(field, "null"), "null");
}

TEST(DurationCodec, RefusesNegativeFractionalAndOtherValues) {
  const auto field = MakeField(FieldType::kDuration);
  EXPECT_THAT(ErrorOf(field, "-1"), HasSubstr("at least 0"));
  EXPECT_THAT(ErrorOf(field, "1.5"), HasSubstr("whole number of seconds"));
  EXPECT_THAT(ErrorOf(field, R"("1:30")"), HasSubstr("whole number of seconds"));
  EXPECT_THAT(ErrorOf(field, "false"), HasSubstr("not a boolean"));
  EXPECT_EQ(CodecOf(field).JsonSchema(field), J(R"({"type":["integer","null"],"minimum":0})"));
}

// ---- decimal, currency, percentage ----

TEST(DecimalCodec, TenTimesPointOneIsExactlyOne) {
  const auto field = DecimalField(FieldType::kDecimal, 2);
  std::int64_t sum = 0;
  for (int i = 0; i < 10; ++i) sum += DecimalOf(field, "0.1").units;
  EXPECT_EQ(sum, 100);
  EXPECT_EQ(Output(field, db::Decimal{sum, 2}), "1.00");
}

TEST(DecimalCodec, RoundTripsExactlyWithTheFieldsPlaces) {
  const auto currency = DecimalField(FieldType::kCurrency, 2);
  EXPECT_EQ(DecimalOf(currency, "19.99").units, 1999);
  EXPECT_EQ(RoundTrip(currency, "19.99"), "19.99");
  EXPECT_EQ(RoundTrip(currency, "12.5"), "12.50");
  EXPECT_EQ(RoundTrip(currency, "12"), "12.00");
  EXPECT_EQ(RoundTrip(currency, R"("12.50")"), "12.50");
  EXPECT_EQ(RoundTrip(currency, R"("12.500")"), "12.50");  // exact: trailing zeros only
  EXPECT_EQ(RoundTrip(currency, "-0.01"), "-0.01");
  EXPECT_EQ(RoundTrip(currency, "-0"), "0.00");
  EXPECT_EQ(RoundTrip(currency, "0.30"), "0.30");
  EXPECT_EQ(RoundTrip(currency, "1e2"), "100.00");
  EXPECT_EQ(RoundTrip(currency, "null"), "null");
  // Beyond what a double carries, as a string.
  EXPECT_EQ(RoundTrip(currency, R"("92233720368547758.07")"), "92233720368547758.07");
  EXPECT_EQ(RoundTrip(currency, R"("-92233720368547758.08")"), "-92233720368547758.08");

  const auto percentage = DecimalField(FieldType::kPercentage, 0);
  EXPECT_EQ(RoundTrip(percentage, "50"), "50");
  const auto decimal = DecimalField(FieldType::kDecimal, 10);
  EXPECT_EQ(RoundTrip(decimal, "0.0000000001"), "0.0000000001");
  EXPECT_EQ(RoundTrip(decimal, "3.1415926535"), "3.1415926535");
}

TEST(DecimalCodec, RefusesTooManyPlacesInsteadOfRounding) {
  const auto field = DecimalField(FieldType::kDecimal, 2);
  EXPECT_THAT(ErrorOf(field, "19.999"), HasSubstr("at most 2 decimal places, got 19.999"));
  EXPECT_THAT(ErrorOf(field, R"("0.005")"), HasSubstr("at most 2 decimal places"));
  EXPECT_THAT(ErrorOf(field, "0.30000000000000004"), HasSubstr("at most 2 decimal places"));
  EXPECT_THAT(ErrorOf(field, "1e-9"), HasSubstr("at most 2 decimal places"));
  const auto whole = DecimalField(FieldType::kPercentage, 0);
  EXPECT_THAT(ErrorOf(whole, "12.5"), HasSubstr("at most 0 decimal places"));
}

TEST(DecimalCodec, RefusesHugeValues) {
  const auto field = DecimalField(FieldType::kCurrency, 2);
  EXPECT_THAT(ErrorOf(field, R"("92233720368547758.08")"),
              HasSubstr("out of range: with 2 decimal places the largest magnitude is "
                        "92233720368547758.07"));
  ExpectRefused(field, {"1e17", "1e300", R"("1e100000")", "18446744073709551615",
                        "-9223372036854775808", R"("-92233720368547758.09")"});
}

TEST(DecimalCodec, RefusesJsonNumbersTooLongToBeExact) {
  const auto field = DecimalField(FieldType::kDecimal, 2);
  EXPECT_THAT(ErrorOf(field, "1234567890123456.78"),
              HasSubstr("send it as a string, such as \"1234567890123456.8\""));
  EXPECT_EQ(RoundTrip(field, R"("1234567890123456.78")"), "1234567890123456.78");
  EXPECT_EQ(RoundTrip(field, "1234567890123.45"), "1234567890123.45");  // 15 digits: exact
}

// A value as a request body carries it: parsed by common/json_input, with its written text.
Result<db::Value> ParseWrittenNumber(const config::Field& field, const std::string& number) {
  auto document = json::ParseInput(R"({"v":)" + number + "}", 4, "body");
  EXPECT_TRUE(document.ok()) << number;
  if (!document.ok()) return document.error();
  return ParseFieldValue(field, document.value().value.at("v"), document.value().numbers);
}

TEST(DecimalCodec, ChecksTheWrittenDigitsNotTheDouble) {
  const auto field = DecimalField(FieldType::kCurrency, 2);
  // As doubles these are 1 and 0: within precision.
  EXPECT_TRUE(Parse(field, "1.0000000000000000000001").ok());
  for (const char* number : {"1.0000000000000000000001", "1e-400", "19.990000000000000001"}) {
    const auto parsed = ParseWrittenNumber(field, number);
    ASSERT_FALSE(parsed.ok()) << number;
    EXPECT_THAT(parsed.error().message, HasSubstr("at most 2 decimal places")) << number;
  }
  const auto huge = ParseWrittenNumber(field, "1e400");
  ASSERT_FALSE(huge.ok());
  EXPECT_THAT(huge.error().message, HasSubstr("out of range"));
  // Digits a double cannot carry are exact when written within precision.
  const auto big = ParseWrittenNumber(field, "1234567890123456.78");
  ASSERT_TRUE(big.ok()) << big.error().message;
  EXPECT_EQ(Output(field, *big), "1234567890123456.78");
  const auto small = ParseWrittenNumber(field, "1.5e-1");
  ASSERT_TRUE(small.ok());
  EXPECT_EQ(Output(field, *small), "0.15");
  EXPECT_THAT(ParseWrittenNumber(DecimalField(FieldType::kDecimal, 0), "2.0000000000000000001")
                  .error()
                  .message,
              HasSubstr("at most 0 decimal places"));
}

TEST(IntegerCodec, ChecksTheWrittenDigitsNotTheDouble) {
  const auto field = MakeField(FieldType::kInteger);
  EXPECT_TRUE(Parse(field, "1.0000000000000000001").ok());  // 1 as a double
  EXPECT_THAT(ParseWrittenNumber(field, "1.0000000000000000001").error().message,
              HasSubstr("without a fraction"));
  EXPECT_EQ(Output(field, ParseWrittenNumber(field, "1.5e3").value()), "1500");
}

TEST(DecimalCodec, RefusesMalformedAndWrongKinds) {
  const auto field = DecimalField(FieldType::kDecimal, 2);
  EXPECT_THAT(ErrorOf(field, R"("12,50")"),
              HasSubstr("must be a number with at most 2 decimal places (a JSON number or a "
                        "numeric string such as \"12.55\"); \"12,50\" is not a number"));
  ExpectRefused(field, {R"("")", R"(".5")", R"("5.")", R"("1e")", R"(" 1")", R"("NaN")",
                        R"("0x10")", "true", "[1]", "{}"});
}

TEST(DecimalCodec, ChecksMinAndMax) {
  auto field = DecimalField(FieldType::kPercentage, 1);
  field.properties["min"] = 0;
  field.properties["max"] = 99.9;
  field.min = 0;
  field.max = 99.9;
  ExpectAccepted(field, {"0", "99.9", R"("99.90")", "0.1"});
  EXPECT_THAT(ErrorOf(field, "100"),
              HasSubstr("must be at most 99.9 (between 0 and 99.9), got 100"));
  EXPECT_THAT(ErrorOf(field, "-0.1"), HasSubstr("must be at least 0"));
  EXPECT_EQ(CodecOf(field).JsonSchema(field),
            J(R"({"type":["number","null"],"minimum":0,"maximum":99.9})"));
}

TEST(CheckboxCodec, AcceptsBooleansOnly) {
  const auto field = MakeField(FieldType::kCheckbox);
  EXPECT_EQ(RoundTrip(field, "true"), "true");
  EXPECT_EQ(RoundTrip(field, "false"), "false");
  EXPECT_EQ(RoundTrip(field, "null"), "null");
  ExpectRefused(field, {"1", "0", R"("true")", R"("yes")", "[]"});
  EXPECT_THAT(ErrorOf(field, R"("false")"), HasSubstr("must be true or false, not a string"));
}

}  // namespace
}  // namespace cairn::records::testing
