// The JSON Schema validator on its own: one test per keyword, plus paths, messages and compile
// errors.
#include "common/json_schema.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <boost/json/parse.hpp>

namespace cairn::json {
namespace {

using ::testing::HasSubstr;

JsonSchema MustCompile(std::string_view schema) {
  auto compiled = JsonSchema::Compile(boost::json::parse(schema));
  if (!compiled.ok()) ADD_FAILURE() << compiled.error().message;
  return std::move(compiled).value();
}

std::vector<SchemaIssue> Issues(std::string_view schema, std::string_view instance) {
  const JsonSchema compiled = MustCompile(schema);
  std::vector<SchemaIssue> issues;
  const boost::json::value value = boost::json::parse(instance);
  const bool valid = compiled.Validate(value, issues);
  EXPECT_EQ(valid, issues.empty());
  EXPECT_EQ(compiled.IsValid(value), issues.empty());
  return issues;
}

bool Valid(std::string_view schema, std::string_view instance) {
  return Issues(schema, instance).empty();
}

std::string OnlyMessage(std::string_view schema, std::string_view instance) {
  auto issues = Issues(schema, instance);
  EXPECT_EQ(issues.size(), 1u);
  return issues.empty() ? "" : issues[0].message;
}

TEST(JsonSchemaTest, BooleanSchemas) {
  EXPECT_TRUE(Valid("true", "42"));
  EXPECT_TRUE(Valid("{}", R"({"a": [1]})"));
  EXPECT_FALSE(Valid("false", "null"));
}

TEST(JsonSchemaTest, TypeSingleAndList) {
  EXPECT_TRUE(Valid(R"({"type": "string"})", R"("x")"));
  EXPECT_EQ(OnlyMessage(R"({"type": "string"})", "3"), "expected a string, got an integer");
  EXPECT_TRUE(Valid(R"({"type": ["string", "null"]})", "null"));
  EXPECT_EQ(OnlyMessage(R"({"type": ["string", "null"]})", "true"),
            "expected a string or null, got a boolean");
  EXPECT_TRUE(Valid(R"({"type": "integer"})", "3.0"));
  EXPECT_FALSE(Valid(R"({"type": "integer"})", "3.5"));
  EXPECT_TRUE(Valid(R"({"type": "number"})", "3"));
  EXPECT_TRUE(Valid(R"({"type": "integer"})", "18446744073709551615"));
  EXPECT_TRUE(Valid(R"({"type": "object"})", "{}"));
  EXPECT_TRUE(Valid(R"({"type": "array"})", "[]"));
  EXPECT_TRUE(Valid(R"({"type": "boolean"})", "false"));
}

TEST(JsonSchemaTest, PropertiesAndRequired) {
  const char* schema = R"({"type": "object", "required": ["name", "age"],
    "properties": {"name": {"type": "string"}, "age": {"type": "integer"}}})";
  EXPECT_TRUE(Valid(schema, R"({"name": "a", "age": 3, "other": 1})"));
  auto issues = Issues(schema, R"({"age": "x"})");
  ASSERT_EQ(issues.size(), 2u);
  EXPECT_EQ(issues[0].path, "name");
  EXPECT_EQ(issues[0].message, "missing required property 'name'");
  EXPECT_EQ(issues[1].path, "age");
}

TEST(JsonSchemaTest, AdditionalPropertiesFalseSuggestsCloseName) {
  const char* schema = R"({"type": "object", "additionalProperties": false,
    "properties": {"precision": {}, "min": {}, "max": {}}})";
  auto issues = Issues(schema, R"({"precison": 2, "colour": "red"})");
  ASSERT_EQ(issues.size(), 2u);
  EXPECT_EQ(issues[0].path, "precison");
  EXPECT_EQ(issues[0].message, "unknown property 'precison' (did you mean 'precision'?)");
  EXPECT_EQ(issues[1].path, "colour");
  EXPECT_EQ(issues[1].message, "unknown property 'colour'; allowed: precision, min, max");
}

TEST(JsonSchemaTest, AdditionalPropertiesSchema) {
  const char* schema = R"({"properties": {"a": {}}, "additionalProperties": {"type": "integer"}})";
  EXPECT_TRUE(Valid(schema, R"({"a": "x", "b": 1})"));
  auto issues = Issues(schema, R"({"b": "x"})");
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].path, "b");
}

TEST(JsonSchemaTest, PatternProperties) {
  const char* schema = R"({"patternProperties": {"^x-": {"type": "string"}},
    "additionalProperties": false})";
  EXPECT_TRUE(Valid(schema, R"({"x-a": "1"})"));
  auto issues = Issues(schema, R"({"x-a": 1, "y": 2})");
  ASSERT_EQ(issues.size(), 2u);
  EXPECT_EQ(issues[0].path, "x-a");
  EXPECT_EQ(issues[1].path, "y");
}

TEST(JsonSchemaTest, MinAndMaxProperties) {
  EXPECT_FALSE(Valid(R"({"minProperties": 1})", "{}"));
  EXPECT_FALSE(Valid(R"({"maxProperties": 1})", R"({"a": 1, "b": 2})"));
  EXPECT_TRUE(Valid(R"({"maxProperties": 1})", R"({"a": 1})"));
}

TEST(JsonSchemaTest, ItemsAndPrefixItems) {
  const char* schema = R"({"prefixItems": [{"type": "string"}], "items": {"type": "integer"}})";
  EXPECT_TRUE(Valid(schema, R"(["a", 1, 2])"));
  auto issues = Issues(schema, R"([1, 2, "x"])");
  ASSERT_EQ(issues.size(), 2u);
  EXPECT_EQ(issues[0].path, "[0]");
  EXPECT_EQ(issues[1].path, "[2]");
}

TEST(JsonSchemaTest, MinItemsMaxItems) {
  EXPECT_EQ(OnlyMessage(R"({"minItems": 1})", "[]"), "must have at least 1 item");
  EXPECT_EQ(OnlyMessage(R"({"minItems": 2})", "[1]"), "must have at least 2 items");
  EXPECT_EQ(OnlyMessage(R"({"maxItems": 1})", "[1, 2]"), "must have at most 1 items (got 2)");
}

TEST(JsonSchemaTest, UniqueItems) {
  auto issues = Issues(R"({"uniqueItems": true})", R"(["a", "b", "a"])");
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].path, "[2]");
  EXPECT_THAT(issues[0].message, HasSubstr("duplicate item 'a'"));
  EXPECT_FALSE(Valid(R"({"uniqueItems": true})", R"([1, 1.0])"));
  EXPECT_FALSE(Valid(R"({"uniqueItems": true})", R"([{"a": 1, "b": 2}, {"b": 2, "a": 1}])"));
  EXPECT_TRUE(Valid(R"({"uniqueItems": true})", R"([1, "1", [1], {"a": 1}])"));
}

TEST(JsonSchemaTest, EnumWithHint) {
  const char* schema = R"({"enum": ["integer", "decimal", "currency"]})";
  EXPECT_TRUE(Valid(schema, R"("decimal")"));
  EXPECT_EQ(OnlyMessage(schema, R"("intger")"),
            "unknown value 'intger' (did you mean 'integer'?); expected one of: integer, "
            "decimal, currency");
  EXPECT_EQ(OnlyMessage(R"({"enum": [1, 2]})", "3"), "must be one of: 1, 2 (got 3)");
  EXPECT_TRUE(Valid(R"({"enum": [1, null]})", "1.0"));
}

TEST(JsonSchemaTest, Const) {
  EXPECT_TRUE(Valid(R"({"const": {"a": [1]}})", R"({"a": [1]})"));
  EXPECT_EQ(OnlyMessage(R"({"const": "x"})", R"("y")"), "must be 'x'");
}

TEST(JsonSchemaTest, PatternIsUnanchoredEcmaScript) {
  EXPECT_TRUE(Valid(R"({"pattern": "b+"})", R"("abbbc")"));
  EXPECT_FALSE(Valid(R"({"pattern": "^b+$"})", R"("abbbc")"));
  EXPECT_THAT(OnlyMessage(R"({"pattern": "^[a-z]+$"})", R"("ABC")"),
              HasSubstr("does not match the pattern ^[a-z]+$"));
  EXPECT_TRUE(Valid(R"({"pattern": "^[a-z]+$"})", "3")) << "pattern applies to strings only";
}

TEST(JsonSchemaTest, LengthCountsCodePoints) {
  EXPECT_TRUE(Valid(R"({"maxLength": 3})", R"("héé")"));  // 5 bytes, 3 code points
  EXPECT_TRUE(Valid(R"({"minLength": 2, "maxLength": 2})", R"("😀😀")"));
  EXPECT_EQ(OnlyMessage(R"({"minLength": 1})", R"("")"), "must not be empty");
  EXPECT_EQ(OnlyMessage(R"({"minLength": 3})", R"("ab")"), "must be at least 3 characters long");
  EXPECT_EQ(OnlyMessage(R"({"maxLength": 2})", R"("abc")"),
            "must be at most 2 characters long (got 3)");
}

TEST(JsonSchemaTest, NumericBounds) {
  EXPECT_EQ(OnlyMessage(R"({"minimum": 1})", "0"), "must be at least 1 (got 0)");
  EXPECT_EQ(OnlyMessage(R"({"maximum": 10})", "10.5"), "must be at most 10 (got 10.5)");
  EXPECT_TRUE(Valid(R"({"minimum": 1, "maximum": 10})", "10"));
  EXPECT_EQ(OnlyMessage(R"({"exclusiveMinimum": 0})", "0"), "must be greater than 0 (got 0)");
  EXPECT_TRUE(Valid(R"({"exclusiveMinimum": 0})", "0.001"));
  EXPECT_EQ(OnlyMessage(R"({"exclusiveMaximum": 1.5})", "1.5"), "must be less than 1.5 (got 1.5)");
  EXPECT_TRUE(Valid(R"({"multipleOf": 0.01})", "19.99"));
  EXPECT_FALSE(Valid(R"({"multipleOf": 2})", "3"));
  EXPECT_TRUE(Valid(R"({"minimum": 5})", R"("text")")) << "bounds apply to numbers only";
}

TEST(JsonSchemaTest, AllOfReportsEveryFailure) {
  const char* schema = R"({"allOf": [{"minLength": 3}, {"pattern": "^[0-9]+$"}]})";
  EXPECT_TRUE(Valid(schema, R"("123")"));
  EXPECT_EQ(Issues(schema, R"("a")").size(), 2u);
}

TEST(JsonSchemaTest, AnyOfReportsTheMatchingTypeBranchOnly) {
  const char* schema = R"({"anyOf": [{"enum": ["all", "authenticated"]},
    {"type": "array", "items": {"type": "string"}}]})";
  EXPECT_TRUE(Valid(schema, R"("all")"));
  EXPECT_TRUE(Valid(schema, R"(["admin"])"));
  // A string can only have meant the first branch.
  EXPECT_THAT(OnlyMessage(schema, R"("everyone")"), HasSubstr("unknown value 'everyone'"));
  // An array only the second; its issue keeps the item's path.
  auto issues = Issues(schema, R"(["admin", 3])");
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].path, "[1]");
  // Neither type: one message naming both.
  EXPECT_EQ(OnlyMessage(schema, "5"), "expected an array or a string, got an integer");
}

TEST(JsonSchemaTest, OneOf) {
  const char* schema = R"({"oneOf": [{"type": "integer"}, {"minimum": 2}]})";
  EXPECT_TRUE(Valid(schema, "1"));    // integer only
  EXPECT_TRUE(Valid(schema, "2.5"));  // minimum only
  EXPECT_EQ(OnlyMessage(schema, "3"), "matches more than one of the allowed forms");
  EXPECT_FALSE(Valid(schema, "1.5"));
}

TEST(JsonSchemaTest, Not) {
  EXPECT_FALSE(Valid(R"({"not": {"type": "null"}})", "null"));
  EXPECT_TRUE(Valid(R"({"not": {"type": "null"}})", "1"));
}

TEST(JsonSchemaTest, IfThenElseDispatchesOnDiscriminator) {
  const char* schema = R"({
    "type": "object", "required": ["type"],
    "properties": {"type": {"enum": ["a", "b"]}},
    "allOf": [
      {"if": {"properties": {"type": {"const": "a"}}},
       "then": {"properties": {"type": true, "x": {"type": "integer"}}, "additionalProperties": false}},
      {"if": {"properties": {"type": {"const": "b"}}},
       "then": {"properties": {"type": true, "y": {}}, "required": ["y"], "additionalProperties": false}}
    ]})";
  EXPECT_TRUE(Valid(schema, R"({"type": "a", "x": 1})"));
  EXPECT_TRUE(Valid(schema, R"({"type": "b", "y": null})"));
  auto issues = Issues(schema, R"({"type": "a", "y": 1})");
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].path, "y");
  // An unknown discriminator gives exactly one issue, no cascade from the branches.
  issues = Issues(schema, R"({"type": "c", "z": 1})");
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].path, "type");
  EXPECT_TRUE(Valid(R"({"if": {"type": "string"}, "else": {"type": "integer"}})", "3"));
  EXPECT_FALSE(Valid(R"({"if": {"type": "string"}, "else": {"type": "integer"}})", "3.5"));
}

TEST(JsonSchemaTest, RefsToDefsIncludingRecursion) {
  const char* schema = R"({
    "$ref": "#/$defs/node",
    "$defs": {"node": {"type": "object", "additionalProperties": false,
      "properties": {"value": {"type": "integer"},
                     "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}}}}})";
  EXPECT_TRUE(Valid(schema, R"({"value": 1, "children": [{"value": 2, "children": []}]})"));
  auto issues = Issues(schema, R"({"children": [{"children": [{"value": "x"}]}]})");
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].path, "children[0].children[0].value");
  EXPECT_TRUE(Valid(R"({"properties": {"self": {"$ref": "#"}}, "type": "object"})",
                    R"({"self": {"self": {}}})"));
}

TEST(JsonSchemaTest, ErrorMessageReplacesIssues) {
  const char* schema =
      R"({"type": "string", "pattern": "^[A-Z]{3}$", "errorMessage": "must be a code"})";
  auto issues = Issues(schema, "12");
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].message, "must be a code");
}

TEST(JsonSchemaTest, AnnotationsAreIgnored) {
  EXPECT_TRUE(Valid(R"({"title": "t", "description": "d", "default": 1, "examples": [1],
    "format": "email", "$comment": "c", "$schema": "https://json-schema.org/draft/2020-12/schema",
    "x-extra": 1, "deprecated": true, "readOnly": true})",
                    R"("not an email")"));
}

TEST(JsonSchemaTest, PathsUseBaseAndQuoteOddKeys) {
  const JsonSchema schema = MustCompile(R"({"additionalProperties": false})");
  std::vector<SchemaIssue> issues;
  schema.Validate(boost::json::parse(R"({"a b": 1})"), issues, "tables[1].fields[3]");
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].path, R"(tables[1].fields[3]["a b"])");
}

TEST(JsonSchemaTest, CompileErrors) {
  auto expect_error = [](std::string_view schema, std::string_view fragment) {
    auto compiled = JsonSchema::Compile(boost::json::parse(schema));
    ASSERT_FALSE(compiled.ok()) << schema;
    EXPECT_THAT(compiled.error().message, HasSubstr(std::string(fragment)));
  };
  expect_error(R"({"type": "strng"})", "unknown type 'strng'");
  expect_error(R"({"minProps": 1})", "unsupported keyword 'minProps'");
  expect_error(R"({"pattern": "("})", "invalid pattern");
  expect_error(R"({"$ref": "#/$defs/missing"})", "points nowhere");
  expect_error(R"({"$ref": "other.json#/a"})", "unsupported $ref");
  expect_error(R"({"properties": {"a": {"minLength": -1}}})", "/properties/a/minLength");
  expect_error(R"({"items": [{}]})", "prefixItems");
  expect_error("3", "must be an object or a boolean");
}

TEST(JsonSchemaTest, CompiledSchemaIsCopyableAndReusable) {
  const JsonSchema original = MustCompile(R"({"type": "integer"})");
  const JsonSchema copy = original;
  for (int i = 0; i < 100; ++i) {
    EXPECT_TRUE(copy.IsValid(boost::json::value(i)));
    EXPECT_FALSE(original.IsValid(boost::json::value("x")));
  }
}

TEST(JsonSchemaTest, SuggestClosest) {
  const std::vector<std::string> words = {"tables", "theme", "auth", "buckets"};
  EXPECT_EQ(SuggestClosest("tabels", words), "tables");
  EXPECT_EQ(SuggestClosest("Theme", words), "theme");
  EXPECT_EQ(SuggestClosest("auht", words), "auth");
  EXPECT_EQ(SuggestClosest("zzzzzz", words), std::nullopt);
  EXPECT_EQ(SuggestClosest("ab", {std::vector<std::string>{"a"}}), std::nullopt);
}

TEST(JsonSchemaTest, JsonEqualsIsNumericAware) {
  EXPECT_TRUE(JsonEquals(boost::json::parse("1"), boost::json::parse("1.0")));
  EXPECT_TRUE(JsonEquals(boost::json::value(std::uint64_t{5}), boost::json::value(5)));
  EXPECT_FALSE(JsonEquals(boost::json::value(-1), boost::json::value(std::uint64_t{1})));
  EXPECT_FALSE(JsonEquals(boost::json::parse("[1, 2]"), boost::json::parse("[2, 1]")));
  EXPECT_EQ(CodePointCount("a€😀"), 3u);
}

}  // namespace
}  // namespace cairn::json
