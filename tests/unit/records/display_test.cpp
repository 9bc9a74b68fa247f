// Golden display forms (D39) for every variant a field can ask for, as ICU 72 renders them for
// en-US. The literal bytes matter: ICU puts U+202F (narrow no-break space) before AM/PM, and
// cairn keeps a currency symbol on its number's line with U+00A0.
#include <gtest/gtest.h>

#include <boost/json/serialize.hpp>

#include "codec_test_util.hpp"
#include "common/json_schema.hpp"
#include "config/locale_data.hpp"
#include "records/display_context.hpp"
#include "support/fake_attachment_files.hpp"

namespace cairn::records::testing {
namespace {

using config::FieldType;

constexpr std::string_view kNbsp = "\u00A0";
constexpr std::string_view kNarrowNbsp = "\u202F";

// Every display form below must also match the JSON Schema the codec gives its display form
// (what the OpenAPI documents say format=display answers): one formatter, one description.
void ExpectMatchesDisplaySchema(const config::Field& field, std::string_view out) {
  const boost::json::value schema = CodecOf(field).DisplayJsonSchema(field);
  auto compiled = json::JsonSchema::Compile(schema);
  ASSERT_TRUE(compiled.ok()) << compiled.error().message << " " << boost::json::serialize(schema);
  std::vector<json::SchemaIssue> issues;
  const bool valid = compiled->Validate(J(out), issues);
  EXPECT_TRUE(valid) << out << " does not match " << boost::json::serialize(schema) << ": "
                     << (issues.empty() ? "" : issues.front().path + " " + issues.front().message);
}

std::string Display(const config::Field& field, db::Value value, std::string_view timezone = "") {
  auto context = DisplayContext::Make(timezone);
  EXPECT_TRUE(context.ok());
  const FakeRow row({db::Value(db::Null{}), std::move(value)});
  std::string out;
  CodecOf(field).AppendDisplay(field, row, 1, *context, out);
  ExpectMatchesDisplaySchema(field, out);
  return out;
}

// The JSON string of `text`.
std::string Q(std::string_view text) {
  return "\"" + std::string(text) + "\"";
}

config::Field WithProperties(FieldType type, std::string_view properties_json, int scale = 0) {
  config::Field field = MakeField(type);
  field.properties = J(properties_json).as_object();
  field.scale = scale;
  if (const auto* currency = field.properties.if_contains("currency")) {
    field.currency = std::string(currency->get_string());
  }
  return field;
}

db::Value Money(std::int64_t units, int scale) {
  return db::Value(db::Decimal{units, scale});
}

TEST(CurrencyDisplay, SymbolPrecisionAndGroupingFromIcu) {
  const auto usd = WithProperties(FieldType::kCurrency, R"({"currency":"USD"})", 2);
  EXPECT_EQ(Display(usd, Money(123456789, 2)), Q("$1,234,567.89"));
  EXPECT_EQ(Display(usd, Money(5, 2)), Q("$0.05"));
  EXPECT_EQ(Display(usd, Money(0, 2)), Q("$0.00"));
  EXPECT_EQ(Display(usd, Money(-123450, 2)), Q("-$1,234.50"));
  const auto jpy = WithProperties(FieldType::kCurrency, R"({"currency":"JPY"})", 0);
  EXPECT_EQ(Display(jpy, Money(1234567, 0)), Q("¥1,234,567"));
  const auto eur = WithProperties(FieldType::kCurrency, R"({"currency":"EUR"})", 2);
  EXPECT_EQ(Display(eur, Money(99, 2)), Q("€0.99"));
  const auto gbp = WithProperties(FieldType::kCurrency, R"({"currency":"GBP"})", 3);
  EXPECT_EQ(Display(gbp, Money(1000, 3)), Q("£1.000"));
  const auto cad = WithProperties(FieldType::kCurrency, R"({"currency":"CAD"})", 2);
  EXPECT_EQ(Display(cad, Money(100, 2)), Q("CA$1.00"));
  // A symbol made of letters is spaced from the digits, as ICU does.
  const auto chf = WithProperties(FieldType::kCurrency, R"({"currency":"CHF"})", 2);
  EXPECT_EQ(Display(chf, Money(500, 2)), Q("CHF" + std::string(kNbsp) + "5.00"));
  EXPECT_EQ(Display(usd, db::Value(db::Null{})), "null");
}

TEST(CurrencyDisplay, DecimalsStayExactBeyondDoublePrecision) {
  const auto usd = WithProperties(FieldType::kCurrency, R"({"currency":"USD"})", 2);
  EXPECT_EQ(Display(usd, Money(9'223'372'036'854'775'807, 2)), Q("$92,233,720,368,547,758.07"));
  EXPECT_EQ(Display(usd, Money(-9'007'199'254'740'993, 2)), Q("-$90,071,992,547,409.93"));
}

TEST(CurrencyDisplay, SymbolPositionAndNegativeFormat) {
  const auto after =
      WithProperties(FieldType::kCurrency, R"({"currency":"EUR","symbolPosition":"after"})", 2);
  EXPECT_EQ(Display(after, Money(123450, 2)), Q("1,234.50" + std::string(kNbsp) + "€"));
  EXPECT_EQ(Display(after, Money(-123450, 2)), Q("-1,234.50" + std::string(kNbsp) + "€"));
  const auto parentheses = WithProperties(
      FieldType::kCurrency, R"({"currency":"USD","negativeFormat":"parentheses"})", 2);
  EXPECT_EQ(Display(parentheses, Money(-123450, 2)), Q("($1,234.50)"));
  EXPECT_EQ(Display(parentheses, Money(123450, 2)), Q("$1,234.50"));
  const auto both = WithProperties(
      FieldType::kCurrency,
      R"({"currency":"EUR","symbolPosition":"after","negativeFormat":"parentheses"})", 2);
  EXPECT_EQ(Display(both, Money(-5, 2)), Q("(0.05" + std::string(kNbsp) + "€)"));
  const auto minus =
      WithProperties(FieldType::kCurrency, R"({"currency":"USD","negativeFormat":"minus"})", 2);
  EXPECT_EQ(Display(minus, Money(-1, 2)), Q("-$0.01"));
}

TEST(CurrencyDisplay, ThousandsSeparators) {
  const auto with = [](std::string_view separator) {
    return WithProperties(
        FieldType::kCurrency,
        R"({"currency":"EUR","thousandsSeparator":")" + std::string(separator) + R"("})", 2);
  };
  EXPECT_EQ(Display(with("comma"), Money(123456789, 2)), Q("€1,234,567.89"));
  EXPECT_EQ(Display(with("period"), Money(123456789, 2)), Q("€1.234.567,89"));
  EXPECT_EQ(Display(with("space"), Money(123456789, 2)),
            Q("€1" + std::string(kNbsp) + "234" + std::string(kNbsp) + "567.89"));
  EXPECT_EQ(Display(with("none"), Money(123456789, 2)), Q("€1234567.89"));
}

TEST(NumberDisplay, IntegersDecimalsAndPercentages) {
  const auto integer = MakeField(FieldType::kInteger);
  EXPECT_EQ(Display(integer, db::Value(std::int64_t{1234567})), Q("1,234,567"));
  EXPECT_EQ(Display(integer, db::Value(std::int64_t{-42})), Q("-42"));
  EXPECT_EQ(Display(integer, db::Value(std::int64_t{INT64_MIN})), Q("-9,223,372,036,854,775,808"));
  const auto decimal = WithProperties(FieldType::kDecimal, "{}", 3);
  EXPECT_EQ(Display(decimal, Money(1234500, 3)), Q("1,234.500"));
  EXPECT_EQ(Display(decimal, Money(-1, 3)), Q("-0.001"));
  const auto percent = WithProperties(FieldType::kPercentage, "{}", 1);
  EXPECT_EQ(Display(percent, Money(125, 1)), Q("12.5%"));
  EXPECT_EQ(Display(percent, Money(100000, 1)), Q("10,000.0%"));
  const auto whole_percent = WithProperties(FieldType::kPercentage, "{}", 0);
  EXPECT_EQ(Display(whole_percent, Money(-7, 0)), Q("-7%"));
}

TEST(DateDisplay, DateFormatsAndPatterns) {
  const db::Value day(std::string("2026-03-07"));
  EXPECT_EQ(Display(MakeField(FieldType::kDate), day), Q("Mar 7, 2026"));
  EXPECT_EQ(Display(WithProperties(FieldType::kDate, R"({"dateFormat":"US"})"), day),
            Q("03/07/2026"));
  EXPECT_EQ(Display(WithProperties(FieldType::kDate, R"({"dateFormat":"European"})"), day),
            Q("07/03/2026"));
  EXPECT_EQ(Display(WithProperties(FieldType::kDate, R"({"dateFormat":"ISO"})"), day),
            Q("2026-03-07"));
  EXPECT_EQ(Display(WithProperties(FieldType::kDate, R"({"format":"EEEE d MMMM y"})"), day),
            Q("Saturday 7 March 2026"));
  // moment-style tokens mean what people expect: YYYY year, DD day of month.
  EXPECT_EQ(Display(WithProperties(FieldType::kDate, R"({"format":"DD/MM/YYYY"})"), day),
            Q("07/03/2026"));
  EXPECT_EQ(Display(WithProperties(FieldType::kDate, R"({"format":"'Day' D 'of' MMM"})"), day),
            Q("Day 7 of Mar"));
  // A date has no zone: no request zone moves it to another day.
  EXPECT_EQ(Display(MakeField(FieldType::kDate), day, "Pacific/Kiritimati"), Q("Mar 7, 2026"));
  EXPECT_EQ(Display(MakeField(FieldType::kDate), day, "Pacific/Pago_Pago"), Q("Mar 7, 2026"));
  // Proleptic Gregorian, like the stored value: no Julian switch before 1582.
  EXPECT_EQ(Display(WithProperties(FieldType::kDate, R"({"dateFormat":"ISO"})"),
                    db::Value(std::string("1200-02-29"))),
            Q("1200-02-29"));
  EXPECT_EQ(Display(WithProperties(FieldType::kDate, R"({"dateFormat":"ISO"})"),
                    db::Value(std::string("0001-01-01"))),
            Q("0001-01-01"));
}

db::Value At(std::int64_t epoch_millis) {
  return db::Value(db::Timestamp{epoch_millis});
}

constexpr std::int64_t kMay1At0700Utc = 1'714'546'800'000;  // 2024-05-01T07:00:00Z

TEST(DatetimeDisplay, DefaultIsIcuMediumDateAndShortTimeInUtc) {
  EXPECT_EQ(Display(MakeField(FieldType::kDatetime), At(kMay1At0700Utc)),
            Q("May 1, 2024, 7:00" + std::string(kNarrowNbsp) + "AM"));
  EXPECT_EQ(Display(MakeField(FieldType::kUpdatedAt), At(kMay1At0700Utc + 13 * 3'600'000)),
            Q("May 1, 2024, 8:00" + std::string(kNarrowNbsp) + "PM"));
}

TEST(DatetimeDisplay, DateAndTimeFormats) {
  const auto us = WithProperties(FieldType::kDatetime, R"({"dateFormat":"US"})");
  EXPECT_EQ(Display(us, At(kMay1At0700Utc)),
            Q("05/01/2024 7:00" + std::string(kNarrowNbsp) + "AM"));
  const auto european = WithProperties(FieldType::kDatetime, R"({"dateFormat":"European"})");
  EXPECT_EQ(Display(european, At(kMay1At0700Utc)), Q("01/05/2024 07:00"));
  const auto iso = WithProperties(FieldType::kDatetime, R"({"dateFormat":"ISO"})");
  EXPECT_EQ(Display(iso, At(kMay1At0700Utc)), Q("2024-05-01 07:00"));
  const auto iso_12 =
      WithProperties(FieldType::kDatetime, R"({"dateFormat":"ISO","timeFormat":"12-hour"})");
  EXPECT_EQ(Display(iso_12, At(kMay1At0700Utc)),
            Q("2024-05-01 7:00" + std::string(kNarrowNbsp) + "AM"));
  const auto us_24 =
      WithProperties(FieldType::kDatetime, R"({"dateFormat":"US","timeFormat":"24-hour"})");
  EXPECT_EQ(Display(us_24, At(kMay1At0700Utc + 12 * 3'600'000)), Q("05/01/2024 19:00"));
  const auto date_only =
      WithProperties(FieldType::kDatetime, R"({"dateFormat":"European","includeTime":false})");
  EXPECT_EQ(Display(date_only, At(kMay1At0700Utc)), Q("01/05/2024"));
  const auto pattern = WithProperties(FieldType::kDatetime, R"({"format":"YYYY-MM-DD HH:mm:ss"})");
  EXPECT_EQ(Display(pattern, At(kMay1At0700Utc + 1'234)), Q("2024-05-01 07:00:01"));
}

TEST(DatetimeDisplay, TimeZonesFromFieldAndRequest) {
  const auto paris =
      WithProperties(FieldType::kDatetime, R"({"dateFormat":"ISO","timezone":"Europe/Paris"})");
  EXPECT_EQ(Display(paris, At(kMay1At0700Utc)), Q("2024-05-01 09:00"));     // CEST, +2
  EXPECT_EQ(Display(paris, At(1'704'099'600'000)), Q("2024-01-01 10:00"));  // CET, +1
  const auto tokyo =
      WithProperties(FieldType::kDatetime, R"({"dateFormat":"ISO","timeZone":"Asia/Tokyo"})");
  EXPECT_EQ(Display(tokyo, At(kMay1At0700Utc)), Q("2024-05-01 16:00"));
  const auto local =
      WithProperties(FieldType::kDatetime, R"({"dateFormat":"ISO","timeZone":"local"})");
  EXPECT_EQ(Display(local, At(kMay1At0700Utc)), Q("2024-05-01 07:00"));
  // ?timezone overrides the field's zone, and can change the day.
  EXPECT_EQ(Display(paris, At(kMay1At0700Utc), "America/Los_Angeles"), Q("2024-05-01 00:00"));
  EXPECT_EQ(Display(paris, At(kMay1At0700Utc), "Pacific/Honolulu"), Q("2024-04-30 21:00"));
  EXPECT_EQ(Display(paris, At(kMay1At0700Utc), "Asia/Kolkata"), Q("2024-05-01 12:30"));
}

TEST(DisplayContext, UnknownTimeZoneIsA400NamingTimezone) {
  for (const char* zone : {"Mars/Olympus", "utc+2", "../etc/passwd", "Europe/Paris\n"}) {
    auto context = DisplayContext::Make(zone);
    ASSERT_FALSE(context.ok()) << zone;
    EXPECT_EQ(context.error().code, ErrorCode::kValidation);
    ASSERT_EQ(context.error().errors.size(), 1u);
    EXPECT_EQ(context.error().errors[0].field, "timezone");
  }
  EXPECT_TRUE(DisplayContext::Make("UTC").ok());
  EXPECT_TRUE(DisplayContext::Make("").ok());
}

TEST(TimeDisplay, TwelveAndTwentyFourHourClocks) {
  const db::Value afternoon(std::string("14:05"));
  EXPECT_EQ(Display(MakeField(FieldType::kTime), afternoon),
            Q("2:05" + std::string(kNarrowNbsp) + "PM"));
  EXPECT_EQ(Display(WithProperties(FieldType::kTime, R"({"timeFormat":"24-hour"})"), afternoon),
            Q("14:05"));
  EXPECT_EQ(Display(WithProperties(FieldType::kTime, R"({"timeFormat":"12-hour"})"),
                    db::Value(std::string("00:30:15"))),
            Q("12:30" + std::string(kNarrowNbsp) + "AM"));
  EXPECT_EQ(Display(WithProperties(FieldType::kTime, R"({"format":"HH:mm:ss"})"),
                    db::Value(std::string("23:59:59"))),
            Q("23:59:59"));
  // A time of day does not move with the request's zone.
  EXPECT_EQ(Display(WithProperties(FieldType::kTime, R"({"timeFormat":"24-hour"})"), afternoon,
                    "Asia/Tokyo"),
            Q("14:05"));
}

TEST(DurationDisplay, HoursMinutesSecondsAndDecimalHours) {
  const auto h_mm = MakeField(FieldType::kDuration);
  EXPECT_EQ(Display(h_mm, db::Value(std::int64_t{3'900})), Q("1:05"));
  EXPECT_EQ(Display(h_mm, db::Value(std::int64_t{59})), Q("0:00"));
  EXPECT_EQ(Display(h_mm, db::Value(std::int64_t{99 * 3600 + 60})), Q("99:01"));
  const auto h_mm_ss = WithProperties(FieldType::kDuration, R"({"displayFormat":"h:mm:ss"})");
  EXPECT_EQ(Display(h_mm_ss, db::Value(std::int64_t{3'905})), Q("1:05:05"));
  EXPECT_EQ(Display(h_mm_ss, db::Value(std::int64_t{0})), Q("0:00:00"));
  const auto decimal = WithProperties(FieldType::kDuration, R"({"displayFormat":"decimal"})");
  EXPECT_EQ(Display(decimal, db::Value(std::int64_t{3'900})), Q("1.08"));  // 1.0833…
  EXPECT_EQ(Display(decimal, db::Value(std::int64_t{5'418})), Q("1.51"));  // 1.505 rounds up
  EXPECT_EQ(Display(decimal, db::Value(std::int64_t{5'417})), Q("1.50"));
  EXPECT_EQ(Display(decimal, db::Value(std::int64_t{3'600'000'000})), Q("1,000,000.00"));
  EXPECT_EQ(Display(decimal, db::Value(db::Null{})), "null");
}

TEST(AttachmentDisplay, AddsDisplayNameAndSize) {
  const auto attachment = MakeField(FieldType::kAttachment);
  EXPECT_EQ(
      J(Display(
          attachment,
          db::Value(db::Json{
              R"({"path":"docs/q3/report.pdf","size":1234567,"mimeType":"application/pdf"})"}))),
      J(R"({"path":"docs/q3/report.pdf","size":1234567,"mimeType":"application/pdf",
            "displayName":"report.pdf","displaySize":"1.2 MB"})"));
  EXPECT_EQ(J(Display(attachment,
                      db::Value(db::Json{R"({"path":"a.png","filename":"Logo.png","size":512})"}))),
            J(R"({"path":"a.png","filename":"Logo.png","size":512,"displayName":"Logo.png",
                  "displaySize":"512 byte"})"));
  const auto many = MakeField(FieldType::kMultipleAttachments);
  EXPECT_EQ(
      J(Display(many,
                db::Value(db::Json{R"([{"path":"x/one.txt","size":2500},{"path":"two.txt"}])"}))),
      J(R"([{"path":"x/one.txt","size":2500,"displayName":"one.txt","displaySize":"2.5 kB"},
                  {"path":"two.txt","displayName":"two.txt"}])"));
}

TEST(AttachmentDisplay, AddsLinksWithFileStorage) {
  const test::FakeAttachmentFiles files;
  auto context = DisplayContext::Make("", &files);
  ASSERT_TRUE(context.ok());
  auto many = MakeField(FieldType::kMultipleAttachments);
  many.bucket = "photos";
  const FakeRow row(
      {db::Value(db::Null{}), db::Value(db::Json{R"([{"path":"x/one.png","size":2500}])"})});
  std::string out;
  CodecOf(many).AppendDisplay(many, row, 1, *context, out);
  ExpectMatchesDisplaySchema(many, out);
  EXPECT_EQ(J(out), J(R"([{"path":"x/one.png","size":2500,"displayName":"one.png",
                           "displaySize":"2.5 kB",
                           "signedUrl":"https://files.test/photos/x/one.png?token=t",
                           "signedUrlExpiresAt":"2030-01-01T01:00:00.000Z"}])"));
  const FakeRow none({db::Value(db::Null{}), db::Value(db::Null{})});
  out.clear();
  CodecOf(many).AppendDisplay(many, none, 1, *context, out);
  EXPECT_EQ(out, "null");
}

TEST(JsonDisplay, SerializedCompactly) {
  const auto json = MakeField(FieldType::kJson);
  EXPECT_EQ(Display(json, db::Value(db::Json{R"({"a": [1, 2], "b": {"c": "d"}})"})),
            R"("{\"a\":[1,2],\"b\":{\"c\":\"d\"}}")");
  EXPECT_EQ(Display(json, db::Value(db::Json{"\"text\""})), R"("\"text\"")");
  EXPECT_EQ(Display(json, db::Value(db::Null{})), "null");
}

TEST(Display, TypesPeopleAlreadyReadStayRaw) {
  EXPECT_EQ(Display(MakeField(FieldType::kSingleLineText), db::Value(std::string("Zoë"))),
            Q("Zoë"));
  EXPECT_EQ(Display(MakeField(FieldType::kCheckbox), db::Value(true)), "true");
  config::Field tags = MakeField(FieldType::kMultiSelect);
  tags.options = {"a", "b"};  // a config always has options; the schema's enum lists them
  EXPECT_EQ(Display(tags, db::Value(db::Json{R"(["a","b"])"})), R"(["a","b"])");
}

TEST(DatePattern, ConfigChecksPatternsIcuCanUse) {
  EXPECT_TRUE(config::IsValidDatePattern("yyyy-MM-dd"));
  EXPECT_TRUE(config::IsValidDatePattern("DD/MM/YYYY HH:mm A"));
  EXPECT_TRUE(config::IsValidDatePattern("'week' w"));
  EXPECT_FALSE(config::IsValidDatePattern("yyyy-MM-dd 'unclosed"));
  EXPECT_FALSE(config::IsValidDatePattern("yyyy-tt"));  // t is no date symbol
  EXPECT_FALSE(config::IsValidDatePattern("dd.MM.yyyy nnn"));
  EXPECT_FALSE(config::IsValidDatePattern(""));
  EXPECT_FALSE(config::IsValidDatePattern(std::string(config::kMaxDatePatternLength + 1, 'y')));
  EXPECT_EQ(config::IcuDatePattern("YYYY-MM-DD 'YD' A"), "yyyy-MM-dd 'YD' a");
}

}  // namespace
}  // namespace cairn::records::testing
