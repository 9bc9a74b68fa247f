#include "common/json_input.hpp"

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>

namespace cairn::json {
namespace {

InputDocument Parsed(std::string_view text) {
  auto parsed = ParseInput(text, 16, "body");
  EXPECT_TRUE(parsed.ok()) << text << ": " << (parsed.ok() ? "" : parsed.error().message);
  return parsed.ok() ? std::move(parsed).value() : InputDocument{};
}

std::string TextAt(const InputDocument& document, std::string_view pointer) {
  const std::string* text = document.numbers.Find(document.value.at_pointer(pointer));
  return text ? *text : "(none)";
}

TEST(ParseInput, BuildsTheSameValueAsBoostJson) {
  const std::string_view text =
      R"({"a":[1,-2,18446744073709551615,2.5,"x",true,null,{}],"b":{"c\"d":"é\n"},"e":[]})";
  EXPECT_EQ(Parsed(text).value, boost::json::parse(text));
  EXPECT_EQ(Parsed(" [1] ").value, boost::json::parse("[1]"));
}

TEST(ParseInput, KeepsTheWrittenTextOfEveryDouble) {
  const InputDocument document =
      Parsed(R"({"price":1.0000000000000000000001,"tiny":1e-400,"huge":1E400,)"
             R"("big":123456789012345678901234,"list":[7,2.50,{"a/b~c":-0.0}],"int":42})");
  EXPECT_EQ(TextAt(document, "/price"), "1.0000000000000000000001");
  EXPECT_EQ(TextAt(document, "/tiny"), "1e-400");
  EXPECT_EQ(TextAt(document, "/huge"), "1E400");
  EXPECT_EQ(TextAt(document, "/big"), "123456789012345678901234");  // beyond uint64
  EXPECT_EQ(TextAt(document, "/list/1"), "2.50");
  EXPECT_EQ(TextAt(document, "/list/2/a~1b~0c"), "-0.0");
  // Integers within 64 bits are exact as they are.
  EXPECT_EQ(TextAt(document, "/list/0"), "(none)");
  EXPECT_EQ(TextAt(document, "/int"), "(none)");
  // A copy has nodes of its own: the texts belong to the parsed document only.
  const boost::json::value copy = document.value;
  EXPECT_EQ(document.numbers.Find(copy.at("price")), nullptr);
}

TEST(ParseInput, NumberTextsSurviveMovingTheDocument) {
  InputDocument document = Parsed(R"({"fields":{"price":19.990000000000000001}})");
  const boost::json::value moved = std::move(document.value);
  const std::string* text = document.numbers.Find(moved.at("fields").at("price"));
  ASSERT_NE(text, nullptr);
  EXPECT_EQ(*text, "19.990000000000000001");
}

// Parsers disagree on which of two equal keys wins, so a key written twice is refused, at any
// depth and however many keys the object has, naming where.
TEST(ParseInput, RefusesAKeyWrittenTwiceNamingWhere) {
  struct Case {
    std::string text;
    std::string path;
  };
  std::string many = R"({"fields":{)";
  for (int i = 0; i < 100; ++i) many += "\"k" + std::to_string(i) + "\":1,";
  many += R"("k42":2}})";
  for (const Case& c :
       {Case{R"({"a":1.25,"a":2.50})", "a"},
        Case{R"({"fields":{"title":"a","title":"b"}})", "fields.title"},
        Case{R"({"records":[{"fields":{}},{"fields":{"x":1,"x":1}}]})", "records[1].fields.x"},
        Case{many, "fields.k42"}}) {
    const auto parsed = ParseInput(c.text, 64, "JSON body", "");
    ASSERT_FALSE(parsed.ok()) << c.text;
    EXPECT_EQ(parsed.error().code, ErrorCode::kValidation);
    ASSERT_EQ(parsed.error().errors.size(), 1u) << c.text;
    EXPECT_EQ(parsed.error().errors[0].field, c.path);
  }
  // The same key in different objects is fine.
  EXPECT_TRUE(
      ParseInput(R"({"a":{"x":1},"b":{"x":2},"c":[{"x":1},{"x":2}]})", 64, "JSON body", "").ok());
}

TEST(ParseInput, RefusesNulInStringsAndKeysNamingWhere) {
  struct Case {
    const char* text;
    const char* path;
  };
  for (const Case& c : {
           Case{R"({"fields":{"name":"a\u0000b"}})", "fields.name"},
           Case{R"({"records":[{"fields":{}},{"fields":{"x":["ok","\u0000"]}}]})",
                "records[1].fields.x[1]"},
           Case{R"({"a\u0000":1})", R"(["a\u0000"])"},
           Case{R"("\u0000")", ""},
       }) {
    const auto parsed = ParseInput(c.text, 16, "body");
    ASSERT_FALSE(parsed.ok()) << c.text;
    EXPECT_EQ(parsed.error().code, ErrorCode::kValidation);
    ASSERT_EQ(parsed.error().errors.size(), 1u) << c.text;
    EXPECT_EQ(parsed.error().errors[0].field, c.path) << c.text;
    EXPECT_EQ(parsed.error().errors[0].message, "must not contain NUL characters");
  }
  const auto filter = ParseInput(R"({"and":[{"value":"\u0000"}]})", 16, "filter", "filter");
  ASSERT_FALSE(filter.ok());
  EXPECT_EQ(filter.error().errors.at(0).field, "filter.and[0].value");
}

TEST(ParseInput, RefusesMalformedAndTooDeepDocuments) {
  for (const char* bad :
       {"", "{", "[1,]", "{\"a\":1}x", "{\"a\":1} {}", "nul", "01", "1.", "'a'"}) {
    const auto parsed = ParseInput(bad, 16, "JSON body");
    ASSERT_FALSE(parsed.ok()) << bad;
    EXPECT_EQ(parsed.error().code, ErrorCode::kValidation) << bad;
    EXPECT_TRUE(parsed.error().errors.empty()) << bad;
    EXPECT_TRUE(parsed.error().message.starts_with("Malformed JSON body: ")) << bad;
  }
  const auto deep = ParseInput(std::string(5, '[') + std::string(5, ']'), 4, "JSON body");
  ASSERT_FALSE(deep.ok());
  EXPECT_EQ(deep.error().message, "JSON body nesting exceeds 4 levels");
  EXPECT_TRUE(ParseInput(std::string(4, '[') + std::string(4, ']'), 4, "JSON body").ok());
}

}  // namespace
}  // namespace cairn::json
