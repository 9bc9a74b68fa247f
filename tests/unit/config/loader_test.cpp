// Loading: YAML and JSON parsing, scalar typing, $ref includes, line numbers, reporting every
// issue at once, and the printed JSON Schema.
#include "config/loader.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include "common/json_schema.hpp"
#include "config/document_reader.hpp"
#include "test_util.hpp"

namespace cairn::config {
namespace {

using testing::DescribeIssues;
using testing::FixturePath;
using ::testing::HasSubstr;
using testing::LoadYaml;

const ConfigIssue* FindIssue(const LoadOutcome& outcome, std::string_view path) {
  for (const ConfigIssue& issue : outcome.issues) {
    if (issue.path == path) return &issue;
  }
  return nullptr;
}

// A scratch directory for tests that write their own include files.
class TempDir {
 public:
  TempDir() {
    path_ =
        std::filesystem::temp_directory_path() /
        ("cairn_config_test_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
         "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  const std::filesystem::path& path() const { return path_; }
  void Write(const std::string& name, const std::string& text) const {
    std::filesystem::create_directories((path_ / name).parent_path());
    std::ofstream(path_ / name) << text;
  }

 private:
  std::filesystem::path path_;
};

TEST(LoaderTest, ReportsEveryIssueAtOnce) {
  // Three independent defects: a schema rule, a semantic rule and a reference.
  const auto outcome = LoadYaml(R"(name: three-defects
tables:
  - name: items
    fields:
      - { name: count, type: integer, min: 1, max: 0 }
      - { name: status, type: single-select, options: [] }
      - { name: owner, type: relationship, relatedTable: people }
)");
  ASSERT_FALSE(outcome.ok());
  ASSERT_EQ(outcome.issues.size(), 3u) << DescribeIssues(outcome);
  EXPECT_EQ(outcome.issues[0].path, "tables[0].fields[0].min");
  EXPECT_EQ(outcome.issues[0].line, 5);
  EXPECT_EQ(outcome.issues[1].path, "tables[0].fields[1].options");
  EXPECT_EQ(outcome.issues[1].line, 6);
  EXPECT_EQ(outcome.issues[2].path, "tables[0].fields[2].relatedTable");
  EXPECT_EQ(outcome.issues[2].line, 7);
}

TEST(LoaderTest, UnknownFieldTypeGivesOneIssueListingTypes) {
  const auto outcome = LoadYaml(R"(name: app
tables:
  - name: items
    fields:
      - name: total
        type: money
        currency: USD
        whatever: 1
)");
  ASSERT_EQ(outcome.issues.size(), 1u) << DescribeIssues(outcome);
  EXPECT_EQ(outcome.issues[0].path, "tables[0].fields[0].type");
  EXPECT_EQ(outcome.issues[0].line, 6);
  EXPECT_THAT(outcome.issues[0].message, HasSubstr("single-line-text"));
  EXPECT_THAT(outcome.issues[0].message, HasSubstr("multiple-attachments"));
}

TEST(LoaderTest, YamlLineNumbersForKeysItemsAndMissingKeys) {
  const auto outcome = LoadYaml(R"(name: app
tables:
  - name: items
    fields:
      - name: a
        type: integer

      - name: b
        type: single-select
        options:
          - x
          - x
  - name: other
)");
  ASSERT_EQ(outcome.issues.size(), 2u) << DescribeIssues(outcome);
  const ConfigIssue* duplicate = FindIssue(outcome, "tables[0].fields[1].options[1]");
  ASSERT_NE(duplicate, nullptr) << DescribeIssues(outcome);
  EXPECT_EQ(duplicate->line, 12);
  EXPECT_EQ(duplicate->file, "test.yaml");
  // A missing key is reported at the line of the object that lacks it.
  const ConfigIssue* missing = FindIssue(outcome, "tables[1].fields");
  ASSERT_NE(missing, nullptr);
  EXPECT_EQ(missing->line, 13);
}

TEST(LoaderTest, JsonLineNumbers) {
  const auto outcome = LoadConfigText(R"({
  "name": "app",
  "tables": [
    {
      "name": "items",
      "fields": [
        {"name": "a", "type": "integer"},
        {"name": "b",
         "type": "decimal", "precision": 0}
      ]
    }
  ]
})",
                                      /*yaml=*/false, ".", "app.json");
  ASSERT_EQ(outcome.issues.size(), 1u) << DescribeIssues(outcome);
  EXPECT_EQ(outcome.issues[0].path, "tables[0].fields[1].precision");
  EXPECT_EQ(outcome.issues[0].line, 9);
  EXPECT_EQ(FormatIssue(outcome.issues[0]),
            "app.json:9: tables[0].fields[1].precision: must be at least 1 (got 0)");
}

TEST(LoaderTest, ParseErrorsHaveLineAndColumn) {
  auto yaml = LoadYaml("name: app\ntables:\n  - name: [unclosed\n");
  ASSERT_EQ(yaml.issues.size(), 1u) << DescribeIssues(yaml);
  EXPECT_THAT(yaml.issues[0].message, HasSubstr("YAML syntax error at column"));
  EXPECT_GT(yaml.issues[0].line, 0);

  auto json = LoadConfigText("{\n  \"name\": \"app\"\n  \"tables\": []\n}", false, ".", "a.json");
  ASSERT_EQ(json.issues.size(), 1u) << DescribeIssues(json);
  EXPECT_EQ(json.issues[0].line, 3);
  EXPECT_THAT(json.issues[0].message, HasSubstr("JSON syntax error at column 3"));
}

TEST(LoaderTest, YamlScalarsFollowTheCoreSchema) {
  const auto outcome = LoadYaml(R"(name: app
theme:
  quoted_number: "123"
  plain_number: 123
  negative: -7
  hex: 0x1F
  octal: 0o17
  float: 1.5
  exponent: 1e3
  yes_is_text: yes
  bool: true
  null_word: null
  tilde: ~
  empty:
  quoted_null: 'null'
  version_like: 1.2.3
  block: |
    two
    lines
)");
  ASSERT_TRUE(outcome.ok()) << DescribeIssues(outcome);
  const auto& theme = outcome.config->document.at("theme").as_object();
  EXPECT_EQ(theme.at("quoted_number"), boost::json::value("123"));
  EXPECT_EQ(theme.at("plain_number"), boost::json::value(123));
  EXPECT_EQ(theme.at("negative"), boost::json::value(-7));
  EXPECT_EQ(theme.at("hex"), boost::json::value(31));
  EXPECT_EQ(theme.at("octal"), boost::json::value(15));
  EXPECT_EQ(theme.at("float"), boost::json::value(1.5));
  EXPECT_EQ(theme.at("exponent"), boost::json::value(1000.0));
  EXPECT_EQ(theme.at("yes_is_text"), boost::json::value("yes"));
  EXPECT_EQ(theme.at("bool"), boost::json::value(true));
  EXPECT_TRUE(theme.at("null_word").is_null());
  EXPECT_TRUE(theme.at("tilde").is_null());
  EXPECT_TRUE(theme.at("empty").is_null());
  EXPECT_EQ(theme.at("quoted_null"), boost::json::value("null"));
  EXPECT_EQ(theme.at("version_like"), boost::json::value("1.2.3"));
  EXPECT_EQ(theme.at("block"), boost::json::value("two\nlines\n"));
}

TEST(LoaderTest, YamlNumberWhereStringExpectedSuggestsQuoting) {
  const auto outcome = LoadYaml("name: app\ndescription: 12\n");
  ASSERT_EQ(outcome.issues.size(), 1u);
  EXPECT_EQ(outcome.issues[0].message,
            "expected a string, got an integer (quote the value in YAML to make it a string)");
}

TEST(LoaderTest, DuplicateKeysAreReported) {
  const auto outcome = LoadYaml("name: app\ntheme: {}\ntheme: {}\n");
  ASSERT_EQ(outcome.issues.size(), 1u) << DescribeIssues(outcome);
  EXPECT_EQ(outcome.issues[0].path, "theme");
  EXPECT_EQ(outcome.issues[0].line, 3);
}

TEST(LoaderTest, IncludesResolveRelativeToTheIncludingFile) {
  TempDir dir;
  dir.Write("app.yaml", "name: app\ntables:\n  - $ref: tables/people.yaml\n");
  dir.Write("tables/people.yaml", "name: people\nfields:\n  $ref: ../fields/people.json\n");
  dir.Write("fields/people.json",
            "[\n  {\"name\": \"full_name\", \"type\": \"single-line-text\"}\n]\n");
  const auto outcome = LoadConfigFile(dir.path() / "app.yaml");
  ASSERT_TRUE(outcome.ok()) << DescribeIssues(outcome);
  ASSERT_EQ(outcome.config->tables.size(), 1u);
  EXPECT_EQ(outcome.config->tables[0].name, "people");
  ASSERT_NE(outcome.config->tables[0].FindField("full_name"), nullptr);
  // The kept document has the includes resolved.
  EXPECT_EQ(outcome.config->document.at("tables").at(0).at("name"), boost::json::value("people"));
}

TEST(LoaderTest, IssuesInIncludedFilesNameThatFileAndLine) {
  TempDir dir;
  dir.Write("app.yaml", "name: app\ntables:\n  - $ref: tables/people.yaml\n");
  dir.Write("tables/people.yaml",
            "name: people\nfields:\n  - name: age\n    type: integer\n    min: 5\n    max: 1\n");
  const auto outcome = LoadConfigFile(dir.path() / "app.yaml");
  ASSERT_EQ(outcome.issues.size(), 1u) << DescribeIssues(outcome);
  EXPECT_EQ(outcome.issues[0].path, "tables[0].fields[0].min");
  EXPECT_EQ(outcome.issues[0].line, 5);
  EXPECT_EQ(outcome.issues[0].file, (dir.path() / "tables/people.yaml").string());
}

TEST(LoaderTest, IncludeCyclesAreDetected) {
  TempDir dir;
  dir.Write("app.yaml", "name: app\ntables:\n  - $ref: a.yaml\n");
  dir.Write("a.yaml", "name: a\nfields:\n  $ref: b.yaml\n");
  dir.Write("b.yaml", "$ref: a.yaml\n");
  const auto outcome = LoadConfigFile(dir.path() / "app.yaml");
  ASSERT_EQ(outcome.issues.size(), 1u) << DescribeIssues(outcome);
  EXPECT_EQ(outcome.issues[0].path, "tables[0].fields.$ref");
  EXPECT_THAT(outcome.issues[0].message, HasSubstr("include cycle"));
  EXPECT_EQ(outcome.issues[0].line, 1);
  EXPECT_EQ(outcome.issues[0].file, (dir.path() / "b.yaml").string());

  dir.Write("self.yaml", "name: app\ntheme:\n  $ref: self.yaml\n");
  const auto self = LoadConfigFile(dir.path() / "self.yaml");
  ASSERT_EQ(self.issues.size(), 1u) << DescribeIssues(self);
  EXPECT_EQ(self.issues[0].path, "theme.$ref");
  EXPECT_EQ(self.issues[0].line, 3);
}

TEST(LoaderTest, MissingIncludeIsAnErrorWithItsPath) {
  TempDir dir;
  dir.Write("app.yaml", "name: app\ntables:\n  - name: t\n    fields:\n      - $ref: nope.yaml\n");
  const auto outcome = LoadConfigFile(dir.path() / "app.yaml");
  ASSERT_EQ(outcome.issues.size(), 1u) << DescribeIssues(outcome);
  EXPECT_EQ(outcome.issues[0].path, "tables[0].fields[0].$ref");
  EXPECT_EQ(outcome.issues[0].line, 5);
  EXPECT_THAT(outcome.issues[0].message, HasSubstr("file not found"));
}

TEST(LoaderTest, PointerRefsAreNotIncludes) {
  const auto outcome = LoadYaml(R"(name: app
tables:
  - name: items
    fields:
      - name: data
        type: json
        schema:
          type: object
          properties:
            size: { $ref: "#/$defs/size" }
          $defs:
            size: { type: integer }
        default: { size: 3 }
)");
  ASSERT_TRUE(outcome.ok()) << DescribeIssues(outcome);
}

TEST(LoaderTest, MissingConfigFile) {
  const auto outcome = LoadConfigFile(FixturePath("does-not-exist.yaml"));
  ASSERT_EQ(outcome.issues.size(), 1u);
  EXPECT_THAT(outcome.issues[0].message, HasSubstr("file not found"));
  const auto wrong = LoadConfigFile(FixturePath("valid/minimal.txt"));
  ASSERT_EQ(wrong.issues.size(), 1u);
  EXPECT_THAT(wrong.issues[0].message, HasSubstr(".yaml, .yml or .json"));
}

TEST(LoaderTest, LoadConfigDocumentHasPathsButNoLines) {
  const auto outcome = LoadConfigDocument(boost::json::parse(R"({"name": "app", "tabels": []})"));
  ASSERT_EQ(outcome.issues.size(), 1u);
  EXPECT_EQ(outcome.issues[0].path, "tabels");
  EXPECT_EQ(outcome.issues[0].line, 0);
  EXPECT_EQ(FormatIssue(outcome.issues[0]),
            "tabels: unknown property 'tabels' (did you mean 'tables'?)");
  EXPECT_TRUE(LoadConfigDocument(boost::json::parse(R"({"name": "app"})")).ok());
}

TEST(LoaderTest, FormatIssue) {
  EXPECT_EQ(
      FormatIssue({"tables[1].fields[3].options", "must have at least 1 item", "app.yaml", 14}),
      "app.yaml:14: tables[1].fields[3].options: must have at least 1 item");
  EXPECT_EQ(FormatIssue({"", "the config is empty", "app.yaml", 1}),
            "app.yaml:1: the config is empty");
  EXPECT_EQ(FormatIssue({"name", "bad", "", 2}), "line 2: name: bad");
  EXPECT_EQ(FormatIssue({"name", "bad", "app.json", 0}), "app.json: name: bad");
}

TEST(LoaderTest, ParentPath) {
  EXPECT_EQ(ParentPath("tables[1].fields[3].options"), "tables[1].fields[3]");
  EXPECT_EQ(ParentPath("tables[1].fields[3]"), "tables[1].fields");
  EXPECT_EQ(ParentPath("tables"), "");
  EXPECT_EQ(ParentPath(R"(theme["a.b[c]"])"), "theme");
  EXPECT_EQ(ParentPath(R"(theme["a\"]"].x)"), R"(theme["a\"]"])");
}

// --- the printed schema ---------------------------------------------------------------------

json::JsonSchema PrintedSchema() {
  // Round-trip through text, as `cairn schema` prints it.
  auto compiled =
      json::JsonSchema::Compile(boost::json::parse(boost::json::serialize(ConfigJsonSchema())));
  EXPECT_TRUE(compiled.ok()) << compiled.error().message;
  return std::move(compiled).value();
}

std::vector<std::filesystem::path> ValidFixtures() {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(FixturePath("valid"))) {
    if (entry.is_regular_file()) files.push_back(entry.path());
  }
  files.push_back(std::filesystem::path(CAIRN_SOURCE_DIR) / "examples/app.yaml");
  std::sort(files.begin(), files.end());
  return files;
}

TEST(ConfigSchemaTest, IsDraft202012AndCoversEveryFieldType) {
  const auto& schema = ConfigJsonSchema().as_object();
  EXPECT_EQ(schema.at("$schema"),
            boost::json::value("https://json-schema.org/draft/2020-12/schema"));
  const auto& defs = schema.at("$defs").as_object();
  for (FieldType type : AllFieldTypes()) {
    EXPECT_TRUE(defs.contains("field-" + std::string(FieldTypeName(type)))) << FieldTypeName(type);
  }
  const auto& root_keys = schema.at("properties").as_object();
  for (const char* key : {"name", "version", "description", "tables", "theme", "languages", "auth",
                          "analytics", "components", "pages", "buckets"}) {
    EXPECT_TRUE(root_keys.contains(key)) << key;
  }
  EXPECT_EQ(root_keys.size(), 11u);
}

TEST(ConfigSchemaTest, AcceptsEveryValidFixture) {
  const json::JsonSchema schema = PrintedSchema();
  const auto fixtures = ValidFixtures();
  ASSERT_GE(fixtures.size(), 5u);
  for (const auto& file : fixtures) {
    const auto outcome = LoadConfigFile(file);
    ASSERT_TRUE(outcome.ok()) << file << "\n" << DescribeIssues(outcome);
    std::vector<json::SchemaIssue> issues;
    EXPECT_TRUE(schema.Validate(outcome.config->document, issues)) << file;
    for (const auto& issue : issues)
      ADD_FAILURE() << file << ": " << issue.path << ": " << issue.message;
  }
}

TEST(ConfigSchemaTest, ValidFixturesUseEveryTypeSpecificFieldProperty) {
  const auto& defs = ConfigJsonSchema().at("$defs").as_object();
  std::map<std::string, std::set<std::string>> used;
  for (const auto& file : ValidFixtures()) {
    const auto outcome = LoadConfigFile(file);
    ASSERT_TRUE(outcome.ok()) << file;
    for (const Table& table : outcome.config->tables) {
      for (const Field& field : table.fields) {
        auto& keys = used[std::string(FieldTypeName(field.type))];
        for (const auto& property : field.properties) keys.insert(property.key());
        if (!field.default_value.is_null()) keys.insert("default");
      }
    }
  }
  for (FieldType type : AllFieldTypes()) {
    const std::string name(FieldTypeName(type));
    const auto& properties = defs.at("field-" + name).at("properties").as_object();
    for (const auto& property : properties) {
      const std::string key = property.key();
      if (key == "id" || key == "name" || key == "type" || key == "required" || key == "unique" ||
          key == "indexed") {
        continue;
      }
      EXPECT_TRUE(used[name].contains(key)) << "no valid fixture uses " << name << "." << key;
    }
  }
}

TEST(ConfigSchemaTest, ExampleAppValidates) {
  const auto outcome =
      LoadConfigFile(std::filesystem::path(CAIRN_SOURCE_DIR) / "examples/app.yaml");
  ASSERT_TRUE(outcome.ok()) << DescribeIssues(outcome);
  EXPECT_EQ(outcome.config->name, "tiny-crm");
  EXPECT_EQ(outcome.config->tables.size(), 3u);
}

}  // namespace
}  // namespace cairn::config
