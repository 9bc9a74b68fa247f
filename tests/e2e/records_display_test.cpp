// format=display and timezone (D39) over HTTP on the backend of this run: values come back in
// their display form on GET record, lists, the trash and view records, the raw form is
// unchanged, unreadable fields stay out, and bad parameters are 400s naming them.
#include <gtest/gtest.h>

#include "e2e/records_support.hpp"
#include "support/fake_attachment_files.hpp"

namespace cairn::test {
namespace {

constexpr const char* kTables = R"(tables:
  - id: 1
    name: invoices
    fields:
      - { id: 1, name: title, type: single-line-text }
      - { id: 2, name: amount, type: currency, currency: EUR, symbolPosition: after,
          negativeFormat: parentheses, thousandsSeparator: period }
      - { id: 3, name: total, type: currency, currency: USD }
      - { id: 4, name: due, type: date, dateFormat: European }
      - { id: 5, name: sent, type: datetime, dateFormat: ISO, timezone: Europe/Paris }
      - { id: 6, name: opened, type: datetime }
      - { id: 7, name: spent, type: duration, displayFormat: "h:mm:ss" }
      - { id: 8, name: meta, type: json }
      - { id: 9, name: scan, type: attachment }
      - { id: 10, name: lines, type: integer }
      - { id: 11, name: margin, type: percentage, precision: 1 }
      - { id: 12, name: cost, type: currency, currency: USD }
      - { id: 13, name: paid, type: checkbox }
    permissions:
      fields:
        - { field: cost, read: [admin] }
    views:
      - id: recent
        name: Recent
        sorts: [ { field: due, direction: desc } ]
)";

const std::string kInvoices = "/api/tables/invoices/records";
constexpr const char* kNarrowNbsp = "\u202F";
constexpr const char* kNbsp = "\u00A0";

boost::json::value Text(std::string text) {
  return boost::json::value(std::move(text));
}

class RecordsDisplay : public ::testing::Test {
 protected:
  RecordsDisplay() : app_(kTables, "", &files_) {
    files_.Put("default", "scans/q3.pdf", 1234567, "application/pdf");
  }

  std::string CreateInvoice() {
    const auto created = app_.Send(
        app_.admin(), "POST", kInvoices,
        R"({"fields":{"title":"Q3","amount":"-1234567.5","total":"92233720368547758.07",)"
        R"("due":"2026-03-07","sent":"2024-05-01T07:00:00Z","opened":"2024-05-01T23:30:00Z",)"
        R"("spent":3905,"meta":{"b":[1, 2],"a":"x"},)"
        R"("scan":{"path":"scans/q3.pdf","size":1234567,"mimeType":"application/pdf"},)"
        R"("lines":1234567,"margin":12.5,"cost":10,"paid":true}})");
    EXPECT_EQ(created.status, 201) << created.body;
    return std::string(created.Json().at("id").as_string());
  }

  FakeAttachmentFiles files_;  // declared before app_, which reads it until it stops
  RecordsApp app_;
};

TEST_F(RecordsDisplay, GetRecordRendersEveryConfiguredForm) {
  const std::string id = CreateInvoice();
  const Caller member = app_.NewUser("member");
  const auto shown = app_.Send(member, "GET", kInvoices + "/" + id + "?format=display");
  ASSERT_EQ(shown.status, 200) << shown.body;
  const auto fields = shown.Json().at("fields");
  EXPECT_EQ(fields.at("title"), "Q3");
  EXPECT_EQ(fields.at("amount"), Text(std::string("(1.234.567,50") + kNbsp + "€)"));
  EXPECT_EQ(fields.at("total"), "$92,233,720,368,547,758.07");  // exact on both databases
  EXPECT_EQ(fields.at("due"), "07/03/2026");
  EXPECT_EQ(fields.at("sent"), "2024-05-01 09:00");  // the field's zone, Paris
  EXPECT_EQ(fields.at("opened"), Text(std::string("May 1, 2024, 11:30") + kNarrowNbsp + "PM"));
  EXPECT_EQ(fields.at("spent"), "1:05:05");
  EXPECT_EQ(boost::json::parse(fields.at("meta").as_string()),
            boost::json::parse(R"({"b":[1,2],"a":"x"})"));
  EXPECT_EQ(fields.at("meta").as_string().find(' '), std::string::npos) << fields.at("meta");
  EXPECT_EQ(fields.at("scan").at("displayName"), "q3.pdf");
  EXPECT_EQ(fields.at("scan").at("displaySize"), "1.2 MB");
  EXPECT_EQ(fields.at("scan").at("path"), "scans/q3.pdf");
  EXPECT_EQ(fields.at("lines"), "1,234,567");
  EXPECT_EQ(fields.at("margin"), "12.5%");
  EXPECT_EQ(fields.at("paid"), true);
  // Field rules hold in display form as in raw form.
  EXPECT_FALSE(fields.as_object().contains("cost")) << shown.body;
  // The envelope's own timestamps stay ISO 8601.
  EXPECT_EQ(shown.Json().at("createdAt").as_string().back(), 'Z');

  const auto raw = app_.Send(member, "GET", kInvoices + "/" + id + "?format=raw");
  ASSERT_EQ(raw.status, 200) << raw.body;
  EXPECT_EQ(raw.Json().at("fields").at("amount"), -1234567.5);
  EXPECT_EQ(raw.Json().at("fields").at("sent"), "2024-05-01T07:00:00.000Z");
  EXPECT_EQ(raw.body, app_.Send(member, "GET", kInvoices + "/" + id).body);

  EXPECT_EQ(app_.Send(app_.admin(), "GET", kInvoices + "/" + id + "?format=display")
                .Json()
                .at("fields")
                .at("cost"),
            "$10.00");
}

TEST_F(RecordsDisplay, TimezoneOverridesEveryDatetimeField) {
  const std::string id = CreateInvoice();
  const auto tokyo =
      app_.Send(app_.admin(), "GET", kInvoices + "/" + id + "?format=display&timezone=Asia/Tokyo");
  ASSERT_EQ(tokyo.status, 200) << tokyo.body;
  EXPECT_EQ(tokyo.Json().at("fields").at("sent"), "2024-05-01 16:00");
  EXPECT_EQ(tokyo.Json().at("fields").at("opened"),
            Text(std::string("May 2, 2024, 8:30") + kNarrowNbsp + "AM"));
  EXPECT_EQ(tokyo.Json().at("fields").at("due"), "07/03/2026");  // a date has no zone
  // timezone alone changes nothing in the raw form.
  const auto raw = app_.Send(app_.admin(), "GET", kInvoices + "/" + id + "?timezone=Asia/Tokyo");
  ASSERT_EQ(raw.status, 200) << raw.body;
  EXPECT_EQ(raw.Json().at("fields").at("sent"), "2024-05-01T07:00:00.000Z");
}

TEST_F(RecordsDisplay, ListsTrashAndViewsRenderToo) {
  const std::string first = CreateInvoice();
  const std::string second = CreateInvoice();
  const auto list = app_.Send(app_.admin(), "GET",
                              kInvoices + "?format=display&timezone=America/New_York&sort=title");
  ASSERT_EQ(list.status, 200) << list.body;
  const auto listed = list.Json();
  ASSERT_EQ(listed.at("records").as_array().size(), 2u);
  for (const auto& record : listed.at("records").as_array()) {
    EXPECT_EQ(record.at("fields").at("sent"), "2024-05-01 03:00");
    EXPECT_EQ(record.at("fields").at("total"), "$92,233,720,368,547,758.07");
  }
  EXPECT_EQ(list.Json().at("pagination").at("total"), 2);

  ASSERT_EQ(app_.Send(app_.admin(), "DELETE", kInvoices + "/" + second).status, 204);
  const auto trash = app_.Send(app_.admin(), "GET", "/api/tables/invoices/trash?format=display");
  ASSERT_EQ(trash.status, 200) << trash.body;
  ASSERT_EQ(trash.Json().at("records").as_array().size(), 1u);
  EXPECT_EQ(trash.Json().at("records").at(0).at("fields").at("lines"), "1,234,567");

  const auto view =
      app_.Send(app_.admin(), "GET", "/api/tables/invoices/views/recent/records?format=display");
  ASSERT_EQ(view.status, 200) << view.body;
  ASSERT_EQ(view.Json().at("records").as_array().size(), 1u);
  EXPECT_EQ(view.Json().at("records").at(0).at("id"), boost::json::value(first));
  EXPECT_EQ(view.Json().at("records").at(0).at("fields").at("spent"), "1:05:05");
}

TEST_F(RecordsDisplay, NullsStayNull) {
  const auto created =
      app_.Send(app_.admin(), "POST", kInvoices, R"({"fields":{"title":"empty"}})");
  ASSERT_EQ(created.status, 201) << created.body;
  const auto shown = app_.Send(
      app_.admin(), "GET",
      kInvoices + "/" + std::string(created.Json().at("id").as_string()) + "?format=display");
  ASSERT_EQ(shown.status, 200) << shown.body;
  for (const char* name : {"amount", "due", "sent", "spent", "meta", "scan", "lines"}) {
    EXPECT_TRUE(shown.Json().at("fields").at(name).is_null()) << name << ": " << shown.body;
  }
}

TEST_F(RecordsDisplay, BadFormatOrTimezoneIs400NamingIt) {
  const std::string id = CreateInvoice();
  const struct {
    std::string target;
    const char* parameter;
  } kCases[] = {
      {kInvoices + "/" + id + "?format=pretty", "format"},
      {kInvoices + "?format=DISPLAY", "format"},
      {"/api/tables/invoices/trash?format=", "format"},
      {kInvoices + "/" + id + "?format=display&timezone=Mars/Olympus", "timezone"},
      {kInvoices + "?format=display&timezone=%2E%2E%2Fetc%2Fpasswd", "timezone"},
      {kInvoices + "?timezone=", "timezone"},
      {"/api/tables/invoices/views/recent/records?timezone=UTC%2B2", "timezone"},
  };
  for (const auto& bad : kCases) {
    SCOPED_TRACE(bad.target);
    const auto answer = app_.Send(app_.admin(), "GET", bad.target);
    EXPECT_EQ(answer.status, 400) << answer.body;
    EXPECT_EQ(ErrorFields(answer), std::vector<std::string>{bad.parameter}) << answer.body;
  }
}

}  // namespace
}  // namespace cairn::test
