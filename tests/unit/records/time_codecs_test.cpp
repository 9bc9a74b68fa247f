#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "codec_test_util.hpp"

namespace cairn::records::testing {
namespace {

using config::FieldType;
using ::testing::HasSubstr;

TEST(DateCodec, AcceptsRealCalendarDates) {
  const auto field = MakeField(FieldType::kDate);
  EXPECT_EQ(RoundTrip(field, R"("2024-05-01")"), R"("2024-05-01")");
  EXPECT_EQ(RoundTrip(field, R"("2024-02-29")"), R"("2024-02-29")");
  ExpectAccepted(field, {R"("2000-02-29")", R"("1999-12-31")", R"("0001-01-01")", "null"});
  EXPECT_EQ(CodecOf(field).JsonSchema(field), J(R"({"type":["string","null"],"format":"date"})"));
}

TEST(DateCodec, RefusesOtherShapesAndImpossibleDates) {
  const auto field = MakeField(FieldType::kDate);
  ExpectRefused(field, {R"("2023-02-29")", R"("1900-02-29")", R"("2024-04-31")", R"("2024-13-01")",
                        R"("2024-00-10")", R"("2024-5-1")", R"("01/05/2024")",
                        R"("2024-05-01T00:00:00Z")", "20240501"});
  EXPECT_THAT(ErrorOf(field, R"("2023-02-29")"),
              HasSubstr("must be a date as YYYY-MM-DD (such as 2024-05-01), a real calendar date; "
                        "got \"2023-02-29\""));
}

TEST(DatetimeCodec, StoresUtcMillisAndWritesIsoUtc) {
  const auto field = MakeField(FieldType::kDatetime);
  auto parsed = Parse(field, R"("2024-05-01T09:00:00+02:00")");
  ASSERT_TRUE(parsed.ok());
  ASSERT_TRUE(std::holds_alternative<db::Timestamp>(*parsed));
  EXPECT_EQ(std::get<db::Timestamp>(*parsed).epoch_millis, 1'714'546'800'000);
  EXPECT_EQ(RoundTrip(field, R"("2024-05-01T09:00:00+02:00")"), R"("2024-05-01T07:00:00.000Z")");
  EXPECT_EQ(RoundTrip(field, R"("2024-05-01T07:00:00.123Z")"), R"("2024-05-01T07:00:00.123Z")");
  EXPECT_EQ(RoundTrip(field, R"("2024-04-30T22:30:00-08:30")"), R"("2024-05-01T07:00:00.000Z")");
  EXPECT_EQ(RoundTrip(field, R"("2024-05-01T00:30+05:30")"), R"("2024-04-30T19:00:00.000Z")");
  EXPECT_EQ(RoundTrip(field, R"("2024-12-31T23:59:59.999-01:00")"),
            R"("2025-01-01T00:59:59.999Z")");
  EXPECT_EQ(RoundTrip(field, "null"), "null");
}

TEST(DatetimeCodec, RefusesMissingOffsetsAndImpossibleTimes) {
  const auto field = MakeField(FieldType::kDatetime);
  ExpectRefused(field, {R"("2024-05-01T09:00:00")", R"("2024-05-01")", R"("2024-02-30T00:00:00Z")",
                        R"("2024-05-01T24:00:00Z")", R"("2024-05-01T09:60:00Z")",
                        R"("2024-05-01T09:00:00+25:00")", R"("yesterday")", "1714546800000"});
  EXPECT_THAT(ErrorOf(field, R"("2024-05-01T09:00:00")"), HasSubstr("with an offset or Z"));
}

TEST(TimeCodec, AcceptsHoursMinutesAndSeconds) {
  const auto field = MakeField(FieldType::kTime);
  EXPECT_EQ(RoundTrip(field, R"("09:30")"), R"("09:30")");
  EXPECT_EQ(RoundTrip(field, R"("23:59:59")"), R"("23:59:59")");
  ExpectAccepted(field, {R"("00:00")", R"("12:00:00")", "null"});
}

TEST(TimeCodec, RefusesOutOfRangeAndOtherShapes) {
  const auto field = MakeField(FieldType::kTime);
  ExpectRefused(field, {R"("24:00")", R"("12:60")", R"("12:00:60")", R"("9:30")", R"("09:30 PM")",
                        R"("09:30:00.5")", R"("0930")", "930"});
  EXPECT_THAT(ErrorOf(field, R"("25:00")"),
              HasSubstr("must be a time as HH:MM or HH:MM:SS, 00:00 to 23:59:59; got \"25:00\""));
}

TEST(UpdatedAtCodec, IsReadOnlyAndWritesIsoUtc) {
  const auto field = MakeField(FieldType::kUpdatedAt, "updated_at");
  EXPECT_FALSE(CodecOf(field).Writable(field));
  EXPECT_THAT(ErrorOf(field, R"("2024-05-01T07:00:00Z")"), HasSubstr("read-only"));
  EXPECT_EQ(Output(field, db::Timestamp{1'714'546'800'123}), R"("2024-05-01T07:00:00.123Z")");
  EXPECT_EQ(Output(field, db::Null{}), "null");
  EXPECT_EQ(CodecOf(field).JsonSchema(field).at("readOnly"), true);
}

TEST(AuthorshipCodec, IsReadOnlyText) {
  for (auto type : {FieldType::kCreatedBy, FieldType::kUpdatedBy, FieldType::kDeletedBy}) {
    const auto field = MakeField(type, "created_by");
    EXPECT_FALSE(CodecOf(field).Writable(field));
    EXPECT_THAT(ErrorOf(field, R"("user-1")"), HasSubstr("read-only"));
    EXPECT_THAT(ErrorOf(field, "null"), HasSubstr("read-only"));
    EXPECT_EQ(Output(field, std::string("u_8fK2")), R"("u_8fK2")");
    EXPECT_EQ(Output(field, db::Null{}), "null");
  }
}

}  // namespace
}  // namespace cairn::records::testing
