#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "codec_test_util.hpp"

namespace cairn::records::testing {
namespace {

using config::FieldType;
using ::testing::HasSubstr;

std::string Repeat(std::string_view unit, std::size_t times) {
  std::string out;
  for (std::size_t i = 0; i < times; ++i) out += unit;
  return out;
}

std::string JsonString(std::string_view text) {
  return boost::json::serialize(boost::json::value(text));
}

TEST(SingleLineTextCodec, AcceptsOneLineUpTo255Characters) {
  const auto field = MakeField(FieldType::kSingleLineText);
  EXPECT_EQ(RoundTrip(field, R"("Ada Lovelace")"), R"("Ada Lovelace")");
  EXPECT_EQ(RoundTrip(field, R"("")"), R"("")");
  EXPECT_EQ(RoundTrip(field, R"("tab\there")"), R"("tab\there")");
  EXPECT_EQ(RoundTrip(field, R"("Zoë 東京 🚀")"), R"("Zoë 東京 🚀")");
  // 255 code points of 2-byte é (510 bytes) count as 255 characters.
  EXPECT_TRUE(Parse(field, JsonString(Repeat("é", 255))).ok());
  EXPECT_EQ(RoundTrip(field, "null"), "null");
}

TEST(SingleLineTextCodec, RefusesLongMultiLineAndNonStrings) {
  const auto field = MakeField(FieldType::kSingleLineText);
  EXPECT_THAT(ErrorOf(field, JsonString(Repeat("é", 256))),
              HasSubstr("at most 255 characters long (has 256)"));
  EXPECT_THAT(ErrorOf(field, R"("line\nbreak")"), HasSubstr("single line"));
  EXPECT_THAT(ErrorOf(field, R"("nul\u0000")"), HasSubstr("control characters"));
  EXPECT_THAT(ErrorOf(field, R"("c1\u0085")"), HasSubstr("control characters"));
  EXPECT_THAT(ErrorOf(field, "42"), HasSubstr("not a number"));
  EXPECT_THAT(ErrorOf(field, "[]"), HasSubstr("must be a single line of text, not an array"));
}

TEST(SingleLineTextCodec, RefusesInvalidUtf8) {
  const auto field = MakeField(FieldType::kSingleLineText);
  for (const char* bad : {"\xC3", "\xC0\xAF", "\xED\xA0\x80", "\xF4\x90\x80\x80", "a\xFFz"}) {
    auto parsed = CodecOf(field).Parse(field, boost::json::value(std::string_view(bad)));
    ASSERT_FALSE(parsed.ok()) << bad;
    EXPECT_THAT(parsed.error().message, HasSubstr("valid UTF-8"));
  }
}

TEST(LongTextCodec, AcceptsLinesUpTo100000Characters) {
  const auto field = MakeField(FieldType::kLongText);
  EXPECT_EQ(RoundTrip(field, R"("first\nsecond\r\n\tthird")"), R"("first\nsecond\r\n\tthird")");
  EXPECT_TRUE(Parse(field, JsonString(Repeat("ü", 100'000))).ok());
  EXPECT_THAT(ErrorOf(field, JsonString(Repeat("a", 100'001))),
              HasSubstr("at most 100000 characters"));
  EXPECT_THAT(ErrorOf(field, R"("bell\u0007")"), HasSubstr("tab, line feed and carriage return"));
  EXPECT_THAT(ErrorOf(field, R"("nul\u0000")"), HasSubstr("control characters"));
  EXPECT_THAT(ErrorOf(field, "true"), HasSubstr("not a boolean"));
  EXPECT_THAT(ErrorOf(field, "{}"), HasSubstr("not an object"));
}

TEST(PhoneNumberCodec, AcceptsPlausibleNumbersAsWritten) {
  const auto field = MakeField(FieldType::kPhoneNumber);
  EXPECT_EQ(RoundTrip(field, R"("+1 (555) 010-0100")"), R"("+1 (555) 010-0100")");
  ExpectAccepted(field, {R"("112")", R"("+44 20 7946 0958")", R"("030.123.456")", "null"});
}

// People write extensions; the value is kept exactly as written.
TEST(PhoneNumberCodec, AcceptsExtensions) {
  const auto field = MakeField(FieldType::kPhoneNumber);
  EXPECT_EQ(RoundTrip(field, R"("+1 (555) 010-0000 ext. 7")"), R"("+1 (555) 010-0000 ext. 7")");
  ExpectAccepted(field, {R"("555-0100 x12")", R"("555-0100 ext 3")", R"("555-0100 EXT.42")",
                         R"("555-0100 extension 123456")", R"("555-0100 #9")", R"("555-0100x1")"});
}

TEST(PhoneNumberCodec, RefusesMalformedExtensions) {
  const auto field = MakeField(FieldType::kPhoneNumber);
  ExpectRefused(field, {R"("555-0100 ext")", R"("555-0100 x1234567")", R"("555-0100 ext 3 4")",
                        R"("12 x34")", R"("x12 555-0100")", R"("555-0100 ext. 7 x8")",
                        R"("555-0100 ex 7")", R"("555-0100 x-7")"});
}

TEST(PhoneNumberCodec, RefusesImplausibleNumbers) {
  const auto field = MakeField(FieldType::kPhoneNumber);
  ExpectRefused(field,
                {R"("12")", R"("call me")", R"("555-0100 call 3")", R"("1+2345")", R"("+()-. ")",
                 R"("12345678901234567890123456789012345678901")", "5550100"});
  EXPECT_THAT(ErrorOf(field, R"("abc")"),
              HasSubstr("digits, spaces and + - ( ) ., optionally with an extension"));
}

TEST(EmailCodec, AcceptsAddresses) {
  const auto field = MakeField(FieldType::kEmail);
  EXPECT_EQ(RoundTrip(field, R"("ada@example.com")"), R"("ada@example.com")");
  // The WHATWG grammar (common/email.hpp): a domain without a dot is an address too.
  ExpectAccepted(field, {R"("first.last+tag@mail.example.co.uk")", R"("ada@example")", "null"});
}

TEST(EmailCodec, RefusesNonAddresses) {
  const auto field = MakeField(FieldType::kEmail);
  ExpectRefused(field,
                {R"("")", R"("ada")", R"("zoë@exämple.de")", R"("<script>@example.com")",
                 R"("ada@@example.com")", R"("ada @example.com")", R"("ada@example.com\n")", "1"});
  EXPECT_THAT(ErrorOf(field, R"("nope")"),
              HasSubstr("must be an email address such as name@example.com; got \"nope\""));
  EXPECT_THAT(ErrorOf(field, JsonString(Repeat("a", 250) + "@example.com")),
              HasSubstr("at most 254"));
}

TEST(UrlCodec, AcceptsTheAllowedSchemes) {
  const auto field = MakeField(FieldType::kUrl);
  EXPECT_EQ(RoundTrip(field, R"("https://example.com/a?b=c#d")"),
            R"("https://example.com/a?b=c#d")");
  ExpectAccepted(field, {R"("http://localhost:8080")", R"("ftp://files.example.com/x")",
                         R"("mailto:ada@example.com")", R"("tel:+15550100")",
                         R"("HTTPS://EXAMPLE.COM/Page")", R"("https://example.com/docs#install")"});
}

TEST(UrlCodec, RefusesOtherSchemesAndRelativeUrls) {
  const auto field = MakeField(FieldType::kUrl);
  ExpectRefused(field, {R"x("javascript:alert(1)")x", R"("file:///etc/passwd")", R"("/relative")",
                        R"("example.com")", R"("https://")", R"("https://exa mple.com")",
                        R"("mailto:")", R"("https:///path-only")", "{}"});
  EXPECT_THAT(ErrorOf(field, R"("data:text/plain,hi")"),
              HasSubstr("with scheme http, https, ftp, mailto or tel"));
}

TEST(TextCodecs, MessagesQuoteLongValuesShortened) {
  const auto field = MakeField(FieldType::kEmail);
  const std::string message = ErrorOf(field, JsonString(Repeat("x", 200)));
  EXPECT_THAT(message, HasSubstr("…\""));
  EXPECT_LT(message.size(), 160u);
}

TEST(TextCodecs, SchemasCarryFormatsAndLimits) {
  auto field = MakeField(FieldType::kSingleLineText);
  EXPECT_EQ(CodecOf(field).JsonSchema(field), J(R"({"type":["string","null"],"maxLength":255})"));
  field.required = true;
  EXPECT_EQ(CodecOf(field).JsonSchema(field), J(R"({"type":"string","maxLength":255})"));
  const auto email = MakeField(FieldType::kEmail);
  EXPECT_EQ(CodecOf(email).JsonSchema(email).at("format"), "email");
  const auto url = MakeField(FieldType::kUrl);
  EXPECT_EQ(CodecOf(url).JsonSchema(url).at("format"), "uri");
}

}  // namespace
}  // namespace cairn::records::testing
