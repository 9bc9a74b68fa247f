// Every field type over HTTP on the backend of this run (D8, D9, D31): valid values go through
// the database and come back in their canonical form, on create, on read and on patch; invalid
// ones answer 400 naming the field and write nothing. Server-stamped types refuse writes,
// `required`, `unique` and defaults hold.
#include <gtest/gtest.h>

#include "e2e/records_support.hpp"
#include "support/fake_attachment_files.hpp"

namespace cairn::test {
namespace {

constexpr const char* kTables = R"(tables:
  - id: 1
    name: targets
    fields:
      - { id: 1, name: label, type: single-line-text }
  - id: 2
    name: everything
    fields:
      - { id: 1, name: line, type: single-line-text }
      - { id: 2, name: text, type: long-text }
      - { id: 3, name: phone, type: phone-number }
      - { id: 4, name: email, type: email }
      - { id: 5, name: link, type: url }
      - { id: 6, name: count, type: integer, min: -5, max: 1000000 }
      - { id: 7, name: ratio, type: decimal, precision: 3 }
      - { id: 8, name: price, type: currency, currency: EUR }
      - { id: 9, name: share, type: percentage, precision: 1 }
      - { id: 10, name: day, type: date }
      - { id: 11, name: moment, type: datetime }
      - { id: 12, name: clock, type: time }
      - { id: 13, name: flag, type: checkbox }
      - { id: 14, name: stage, type: single-select, options: [lead, won] }
      - { id: 15, name: tags, type: multi-select, options: [a, b, c], maxSelections: 2 }
      - { id: 16, name: target, type: relationship, relatedTable: targets }
      - { id: 17, name: file, type: attachment }
      - { id: 18, name: files, type: multiple-attachments, maxFiles: 2 }
      - { id: 19, name: spent, type: duration }
      - { id: 20, name: data, type: json }
      - { id: 21, name: author, type: created-by }
      - { id: 22, name: editor, type: updated-by }
      - { id: 23, name: remover, type: deleted-by }
      - { id: 24, name: touched, type: updated-at }
  - id: 3
    name: rules
    fields:
      - { id: 1, name: code, type: single-line-text, required: true, unique: true }
      - { id: 2, name: level, type: integer, default: 3 }
      - { id: 3, name: kind, type: single-select, options: [x, y], default: y }
)";

const std::string kEverything = "/api/tables/everything/records";

struct Valid {
  const char* field;
  const char* input;   // JSON
  const char* stored;  // the JSON the API answers with
};

// Each input goes in and comes back as `stored`, exactly.
const Valid kValid[] = {
    {"line", R"("Zoë 東京 🚀")", R"("Zoë 東京 🚀")"},
    {"line", R"("")", R"("")"},
    {"text", R"("first\nsecond\r\n\tthird")", R"("first\nsecond\r\n\tthird")"},
    {"phone", R"("+1 (555) 010-0100")", R"("+1 (555) 010-0100")"},
    {"phone", R"("+1 (555) 010-0000 ext. 7")", R"("+1 (555) 010-0000 ext. 7")"},
    {"phone", R"("555-0100 x12")", R"("555-0100 x12")"},
    {"email", R"("ada@example.com")", R"("ada@example.com")"},
    {"link", R"("https://example.com/a?b=c#d")", R"("https://example.com/a?b=c#d")"},
    {"count", "42", "42"},
    {"count", "-5", "-5"},
    {"count", "5.0", "5"},
    {"count", R"("1000000")", "1000000"},
    {"ratio", "0.125", "0.125"},
    {"ratio", R"("-3.1")", "-3.100"},
    {"price", "19.99", "19.99"},
    {"price", "12.5", "12.50"},
    {"price", R"("92233720368547758.07")", "92233720368547758.07"},
    {"share", "12.5", "12.5"},
    {"day", R"("2024-02-29")", R"("2024-02-29")"},
    {"moment", R"("2024-05-01T09:00:00+02:00")", R"("2024-05-01T07:00:00.000Z")"},
    {"moment", R"("2024-12-31T23:59:59.999-01:00")", R"("2025-01-01T00:59:59.999Z")"},
    {"clock", R"("09:30")", R"("09:30")"},
    {"clock", R"("23:59:59")", R"("23:59:59")"},
    {"flag", "true", "true"},
    {"flag", "false", "false"},
    {"stage", R"("won")", R"("won")"},
    {"tags", R"(["c","a"])", R"(["c","a"])"},
    {"tags", "[]", "[]"},
    // Size and type come from storage (kFiles below), never from the client.
    {"file", R"("docs/readme.txt")",
     R"({"path":"docs/readme.txt","filename":"readme.txt","size":12,"mimeType":"text/plain",)"
     R"("signedUrl":"https://files.test/default/docs/readme.txt?token=t",)"
     R"("signedUrlExpiresAt":"2030-01-01T01:00:00.000Z"})"},
    {"files", R"(["a.png",{"path":"b.png","size":3}])",
     R"([{"path":"a.png","filename":"a.png","size":70,"mimeType":"image/png",)"
     R"("signedUrl":"https://files.test/default/a.png?token=t",)"
     R"("signedUrlExpiresAt":"2030-01-01T01:00:00.000Z"},)"
     R"({"path":"b.png","filename":"b.png","size":80,"mimeType":"image/png",)"
     R"("signedUrl":"https://files.test/default/b.png?token=t",)"
     R"("signedUrlExpiresAt":"2030-01-01T01:00:00.000Z"}])"},
    {"spent", "3600", "3600"},
    {"data", R"({"a":[1,2.5,"x"],"b":{"c":null}})", R"({"a":[1,2.5,"x"],"b":{"c":null}})"},
    {"data", "false", "false"},
};

struct Invalid {
  const char* field;
  const char* input;
};

// Each answers 400 naming `fields.<field>`.
const Invalid kInvalid[] = {
    {"line", R"("line\nbreak")"},
    {"line", "42"},
    {"text", R"("bell\u0007")"},
    {"phone", R"("abc")"},
    {"phone", R"("555-0100 ext")"},
    {"email", R"("not-an-email")"},
    {"link", R"("data:text/plain,hi")"},
    {"count", "1.5"},
    {"count", "-6"},
    {"count", "1000001"},
    {"count", "true"},
    {"ratio", "0.0001"},
    {"ratio", R"("12,5")"},
    {"price", "19.999"},
    {"share", "12.55"},
    {"day", R"("2023-02-29")"},
    {"day", R"("01/02/2024")"},
    {"moment", R"("2024-05-01T09:00:00")"},
    {"clock", R"("25:00")"},
    {"flag", R"("false")"},
    {"stage", R"("lost")"},
    {"tags", R"(["a","a"])"},
    {"tags", R"(["a","b","c"])"},
    {"tags", R"("a")"},
    {"target", R"("abc")"},
    {"target", R"("999")"},
    {"file", R"({"path":"../etc/passwd"})"},
    {"files", R"(["a","b","c"])"},
    {"spent", "-1"},
    {"spent", R"("1:30")"},
    {"author", R"("someone")"},
    {"editor", R"("someone")"},
    {"remover", R"("someone")"},
    {"touched", R"("2024-05-01T07:00:00Z")"},
    {"nosuch", "1"},
};

std::string Body(const std::string& field, const std::string& value) {
  return R"({"fields":{")" + field + R"(":)" + value + "}}";
}

std::int64_t Total(RecordsApp& app, const std::string& table) {
  const auto list = app.Send(app.admin(), "GET", "/api/tables/" + table + "/records?limit=1");
  return list.status == 200 ? list.Json().at("pagination").at("total").as_int64() : -1;
}

TEST(RecordsFieldTypes, ValidValuesRoundTripThroughTheDatabase) {
  FakeAttachmentFiles files;
  files.Put("default", "docs/readme.txt", 12, "text/plain");
  files.Put("default", "a.png", 70, "image/png");
  files.Put("default", "b.png", 80, "image/png");
  RecordsApp app(kTables, "", &files);
  const auto target =
      app.Send(app.admin(), "POST", "/api/tables/targets/records", R"({"fields":{"label":"t"}})");
  ASSERT_EQ(target.status, 201);
  const std::string target_id(target.Json().at("id").as_string());
  std::vector<Valid> cases(std::begin(kValid), std::end(kValid));
  const std::string quoted_id = "\"" + target_id + "\"";
  cases.push_back({"target", quoted_id.c_str(), quoted_id.c_str()});
  const std::string bare_id = target_id;
  cases.push_back({"target", bare_id.c_str(), quoted_id.c_str()});

  // Every value on a record of its own: create, read back, and patch onto a blank record.
  const auto blank = app.Send(app.admin(), "POST", kEverything, R"({"fields":{}})");
  ASSERT_EQ(blank.status, 201) << blank.body;
  const std::string blank_url = kEverything + "/" + std::string(blank.Json().at("id").as_string());
  for (const Valid& valid : cases) {
    SCOPED_TRACE(std::string(valid.field) + " = " + valid.input);
    const boost::json::value expected = boost::json::parse(valid.stored);
    const auto created = app.Send(app.admin(), "POST", kEverything, Body(valid.field, valid.input));
    ASSERT_EQ(created.status, 201) << created.body;
    const boost::json::value record = created.Json();
    EXPECT_EQ(record.at("fields").at(valid.field), expected) << created.body;
    const auto read =
        app.Send(app.admin(), "GET", kEverything + "/" + std::string(record.at("id").as_string()));
    EXPECT_EQ(read.Json().at("fields").at(valid.field), expected) << read.body;
    // Numbers keep their exact digits on the wire (no float rounding in between). Arrays and
    // objects compare as JSON: PostgreSQL's JSONB spaces them out.
    if (!expected.is_structured()) {
      EXPECT_NE(read.body.find(std::string("\"") + valid.field + "\":" + valid.stored),
                std::string::npos)
          << read.body;
    }
    const auto patched = app.Send(app.admin(), "PATCH", blank_url, Body(valid.field, valid.input));
    ASSERT_EQ(patched.status, 200) << patched.body;
    EXPECT_EQ(patched.Json().at("fields").at(valid.field), expected);
  }
  // Null clears a value of any writable type.
  const auto cleared = app.Send(app.admin(), "PATCH", blank_url, Body("price", "null"));
  EXPECT_TRUE(cleared.Json().at("fields").at("price").is_null());
  // Server-stamped types carry the writer and the time.
  const boost::json::value stamped = app.Send(app.admin(), "GET", blank_url).Json();
  EXPECT_EQ(stamped.at("fields").at("author"), boost::json::value(app.admin().user_id));
  EXPECT_EQ(stamped.at("fields").at("editor"), boost::json::value(app.admin().user_id));
  EXPECT_TRUE(stamped.at("fields").at("remover").is_null());
  EXPECT_EQ(stamped.at("fields").at("touched"), stamped.at("updatedAt"));
}

TEST(RecordsFieldTypes, InvalidValuesNameTheFieldAndWriteNothing) {
  RecordsApp app(kTables);
  const auto existing = app.Send(app.admin(), "POST", kEverything, Body("count", "7"));
  ASSERT_EQ(existing.status, 201);
  const std::string url = kEverything + "/" + std::string(existing.Json().at("id").as_string());
  const std::string before = app.Send(app.admin(), "GET", url).body;
  for (const Invalid& invalid : kInvalid) {
    SCOPED_TRACE(std::string(invalid.field) + " = " + invalid.input);
    const std::vector<std::string> named{std::string("fields.") + invalid.field};
    const auto created =
        app.Send(app.admin(), "POST", kEverything, Body(invalid.field, invalid.input));
    EXPECT_EQ(created.status, 400) << created.body;
    EXPECT_EQ(CodeOf(created), "VALIDATION_ERROR");
    EXPECT_EQ(ErrorFields(created), named) << created.body;
    const auto patched = app.Send(app.admin(), "PATCH", url, Body(invalid.field, invalid.input));
    EXPECT_EQ(patched.status, 400) << patched.body;
    EXPECT_EQ(ErrorFields(patched), named);
  }
  EXPECT_EQ(Total(app, "everything"), 1);
  EXPECT_EQ(app.Send(app.admin(), "GET", url).body, before);  // not even updatedAt moved
  // Several bad fields are all named at once.
  const auto many =
      app.Send(app.admin(), "POST", kEverything, R"({"fields":{"count":"x","day":"y","flag":1}})");
  EXPECT_EQ(ErrorFields(many),
            (std::vector<std::string>{"fields.count", "fields.day", "fields.flag"}));
}

TEST(RecordsFieldTypes, RequiredUniqueAndDefaultsHold) {
  RecordsApp app(kTables);
  const std::string rules = "/api/tables/rules/records";
  const auto missing = app.Send(app.admin(), "POST", rules, R"({"fields":{"level":1}})");
  EXPECT_EQ(missing.status, 400);
  EXPECT_EQ(ErrorFields(missing), std::vector<std::string>{"fields.code"});
  const auto null_code = app.Send(app.admin(), "POST", rules, R"({"fields":{"code":null}})");
  EXPECT_EQ(ErrorFields(null_code), std::vector<std::string>{"fields.code"});

  const auto created = app.Send(app.admin(), "POST", rules, R"({"fields":{"code":"A1"}})");
  ASSERT_EQ(created.status, 201) << created.body;
  const boost::json::value record = created.Json();
  EXPECT_EQ(record.at("fields").at("level"), 3);  // defaults fill absent fields
  EXPECT_EQ(record.at("fields").at("kind"), "y");
  const auto given = app.Send(app.admin(), "POST", rules, R"({"fields":{"code":"B2","level":9}})");
  EXPECT_EQ(given.Json().at("fields").at("level"), 9);

  const auto duplicate = app.Send(app.admin(), "POST", rules, R"({"fields":{"code":"A1"}})");
  EXPECT_EQ(duplicate.status, 400);
  EXPECT_EQ(ErrorFields(duplicate), std::vector<std::string>{"fields.code"});
  const auto renamed =
      app.Send(app.admin(), "PATCH", rules + "/" + std::string(given.Json().at("id").as_string()),
               R"({"fields":{"code":"A1"}})");
  EXPECT_EQ(renamed.status, 400);
  EXPECT_EQ(ErrorFields(renamed), std::vector<std::string>{"fields.code"});
  const auto cleared =
      app.Send(app.admin(), "PATCH", rules + "/" + std::string(record.at("id").as_string()),
               R"({"fields":{"code":null}})");
  EXPECT_EQ(ErrorFields(cleared), std::vector<std::string>{"fields.code"});
  EXPECT_EQ(Total(app, "rules"), 2);
}

}  // namespace
}  // namespace cairn::test
