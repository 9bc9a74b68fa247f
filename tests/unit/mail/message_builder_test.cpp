#include "mail/message_builder.hpp"

#include <gtest/gtest.h>

#include "mail/address.hpp"
#include "support/mail_reader.hpp"

namespace cairn::mail {
namespace {

constexpr time::EpochMillis kNow = 1'700'000'000'123;

Mailbox From() {
  return Mailbox{"cairn", "no-reply@example.org"};
}

std::string Build(const Message& message) {
  Result<BuiltMessage> built = BuildMessage(message, From(), kNow);
  EXPECT_TRUE(built.ok()) << (built.ok() ? "" : built.error().message);
  return built.ok() ? built->data : "";
}

std::string HeaderBlock(const std::string& data) {
  return data.substr(0, data.find("\r\n\r\n") + 2);
}

void ExpectCrlfOnly(const std::string& data) {
  for (std::size_t i = 0; i < data.size(); ++i) {
    if (data[i] == '\r') {
      ASSERT_TRUE(i + 1 < data.size() && data[i + 1] == '\n') << "bare CR at " << i;
    }
    if (data[i] == '\n') {
      ASSERT_TRUE(i > 0 && data[i - 1] == '\r') << "bare LF at " << i;
    }
  }
  EXPECT_TRUE(data.ends_with("\r\n"));
}

void ExpectHeaderLinesWithin78(const std::string& data) {
  const std::string headers = HeaderBlock(data);
  std::size_t start = 0;
  for (std::size_t end; (end = headers.find("\r\n", start)) != std::string::npos; start = end + 2) {
    EXPECT_LE(end - start, 78u) << headers.substr(start, end - start);
  }
}

TEST(MailboxTest, ParsesOneAddressWithOrWithoutDisplayName) {
  struct Case {
    const char* text;
    const char* name;
    const char* address;
  };
  for (const Case& c : {
           Case{"user@example.com", "", "user@example.com"},
           Case{"  user@example.com ", "", "user@example.com"},
           Case{"<user@example.com>", "", "user@example.com"},
           Case{"Jane Doe <jane@example.com>", "Jane Doe", "jane@example.com"},
           Case{"\"Doe, Jane \\\"JD\\\"\" <jane@example.com>", "Doe, Jane \"JD\"",
                "jane@example.com"},
           Case{"J. Doe <j.doe+tag@mail.example.co.uk>", "J. Doe", "j.doe+tag@mail.example.co.uk"},
           Case{"Jürgen <j@example.de>", "Jürgen", "j@example.de"},
           Case{"cairn <no-reply@localhost>", "cairn", "no-reply@localhost"},
           // The WHATWG grammar every address from users meets (common/email.hpp) allows dots
           // anywhere in the local part.
           Case{"a..b@example.com", "", "a..b@example.com"},
       }) {
    Result<Mailbox> parsed = ParseMailbox(c.text, "to");
    ASSERT_TRUE(parsed.ok()) << c.text;
    EXPECT_EQ(parsed->display_name, c.name) << c.text;
    EXPECT_EQ(parsed->address, c.address) << c.text;
  }
}

TEST(MailboxTest, RejectsAnythingButOneAddress) {
  for (const char* bad : {
           "",
           "user",
           "@example.com",
           "user@",
           "a@b@example.com",
           "a b@example.com",
           "a@-example.com",
           "a@example..com",
           "a@exa_mple.com",
           "a@example.com, b@example.com",
           "A <a@example.com>, B <b@example.com>",
           "A <a@example.com> B",
           "<a@example.com",
           "Doe, Jane <jane@example.com>",
           "\"unterminated <a@example.com>",
           "jürgen@example.de",
           "a@example.com\r\nBcc: victim@example.com",
           "a@example.com\nBcc: victim@example.com",
           "Name\r\n <a@example.com>",
           "a@example.com\t",
       }) {
    Result<Mailbox> parsed = ParseMailbox(bad, "to");
    ASSERT_FALSE(parsed.ok()) << bad;
    EXPECT_EQ(parsed.error().code, ErrorCode::kValidation) << bad;
    ASSERT_EQ(parsed.error().errors.size(), 1u);
    EXPECT_EQ(parsed.error().errors[0].field, "to");
  }
  EXPECT_FALSE(ParseMailbox(std::string(65, 'a') + "@example.com", "to").ok());
  EXPECT_FALSE(ParseMailbox("a@" + std::string(64, 'b') + ".com", "to").ok());
}

TEST(MailboxTest, FormatsDisplayNamesSafely) {
  EXPECT_EQ(FormatMailbox({"", "a@example.com"}), "a@example.com");
  EXPECT_EQ(FormatMailbox({"Jane Doe", "a@example.com"}), "Jane Doe <a@example.com>");
  EXPECT_EQ(FormatMailbox({"Doe, \"J\"", "a@example.com"}), "\"Doe, \\\"J\\\"\" <a@example.com>");
  EXPECT_EQ(FormatMailbox({"=?x?", "a@example.com"}), "\"=?x?\" <a@example.com>");
  EXPECT_EQ(FormatMailbox({"Grüße", "a@example.com"}), "=?utf-8?B?R3LDvMOfZQ==?= <a@example.com>");
}

TEST(MessageBuilderTest, WritesTheRfc5322Headers) {
  Result<BuiltMessage> built = BuildMessage(
      {"Jane Doe <jane@example.com>", "Verify your email", "Open https://x.test/v?t=abc\n", ""},
      From(), kNow);
  ASSERT_TRUE(built.ok());
  EXPECT_EQ(built->envelope_from, "no-reply@example.org");
  EXPECT_EQ(built->envelope_to, "jane@example.com");
  ExpectCrlfOnly(built->data);
  ExpectHeaderLinesWithin78(built->data);

  const test::ParsedMail mail = test::ParseMail(built->data);  // throws on duplicate headers
  EXPECT_EQ(mail.Header("date"), "Tue, 14 Nov 2023 22:13:20 +0000");
  EXPECT_EQ(mail.Header("from"), "cairn <no-reply@example.org>");
  EXPECT_EQ(mail.Header("to"), "Jane Doe <jane@example.com>");
  EXPECT_EQ(mail.Header("subject"), "Verify your email");
  EXPECT_EQ(mail.Header("message-id"), built->message_id);
  EXPECT_TRUE(built->message_id.starts_with("<"));
  EXPECT_TRUE(built->message_id.ends_with("@example.org>"));
  EXPECT_EQ(mail.Header("mime-version"), "1.0");
  EXPECT_EQ(mail.Header("content-type"), "text/plain; charset=utf-8");
  EXPECT_EQ(mail.Header("content-transfer-encoding"), "quoted-printable");
  EXPECT_EQ(mail.headers.size(), 8u);
  EXPECT_EQ(mail.text, "Open https://x.test/v?t=abc\n");
  EXPECT_NE(built->data.find("https://x.test/v?t=3Dabc"), std::string::npos);
}

TEST(MessageBuilderTest, MessageIdsAreUnique) {
  Result<BuiltMessage> a = BuildMessage({"a@example.com", "s", "t", ""}, From(), kNow);
  Result<BuiltMessage> b = BuildMessage({"a@example.com", "s", "t", ""}, From(), kNow);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_NE(a->message_id, b->message_id);
}

TEST(MessageBuilderTest, EncodesNonAsciiSubjectsAsEncodedWords) {
  const std::string subject = "Bestätigen Sie Ihre E-Mail-Adresse – Ihr Code lautet 123456 ✓";
  const std::string data = Build({"a@example.com", subject, "Hallo\n", ""});
  ExpectHeaderLinesWithin78(data);
  EXPECT_NE(HeaderBlock(data).find("Subject: =?utf-8?B?"), std::string::npos);
  EXPECT_EQ(test::ParseMail(data).subject, subject);
  // ASCII that looks like an encoded-word is encoded too, so readers show it literally.
  EXPECT_EQ(test::ParseMail(Build({"a@example.com", "=?utf-8?B?SGk=?=", "x", ""})).subject,
            "=?utf-8?B?SGk=?=");
}

TEST(MessageBuilderTest, FoldsLongAsciiSubjectsWithoutChangingThem) {
  std::string subject;
  for (int i = 0; i < 30; ++i) subject += "word" + std::to_string(i) + " ";
  subject += " double  space";
  const std::string data = Build({"a@example.com", subject, "x", ""});
  ExpectHeaderLinesWithin78(data);
  const test::ParsedMail mail = test::ParseMail(data);
  EXPECT_EQ(mail.Header("subject"), subject);  // unfolding only removes the CRLFs
  EXPECT_EQ(mail.subject, subject);
}

TEST(MessageBuilderTest, HtmlMakesAMultipartAlternative) {
  const std::string text = "Your code is 123456.\nIt expires in 5 minutes.\n";
  const std::string html =
      "<!doctype html><p style=\"font-family: sans-serif\">Your code is <b>123456</b>.</p>"
      "<p>Zurück zur <a href=\"https://app.example.com/?a=1&b=2\">Anmeldung</a></p>";
  const std::string data = Build({"a@example.com", "Code", text, html});
  ExpectCrlfOnly(data);
  const test::ParsedMail mail = test::ParseMail(data);
  EXPECT_TRUE(mail.Header("content-type").starts_with("multipart/alternative; boundary=\"=_"));
  EXPECT_EQ(mail.Header("content-transfer-encoding"), "");
  EXPECT_EQ(mail.text, text);
  EXPECT_EQ(mail.html, html);
}

TEST(MessageBuilderTest, RejectsHeaderInjection) {
  for (const Message& message : {
           Message{"a@example.com\r\nBcc: victim@example.com", "Hi", "x", ""},
           Message{"a@example.com\nBcc: victim@example.com", "Hi", "x", ""},
           Message{"a@example.com", "Hi\r\nBcc: victim@example.com", "x", ""},
           Message{"a@example.com", "Hi\nBcc: victim@example.com", "x", ""},
           Message{"a@example.com", "Hi\rBcc: victim@example.com", "x", ""},
           Message{"a@example.com", std::string("Hi\0there", 8), "x", ""},
       }) {
    Result<BuiltMessage> built = BuildMessage(message, From(), kNow);
    ASSERT_FALSE(built.ok()) << message.to << " / " << message.subject;
    EXPECT_EQ(built.error().code, ErrorCode::kValidation);
  }
}

TEST(MessageBuilderTest, RejectsOverlongSubjects) {
  Result<BuiltMessage> built =
      BuildMessage({"a@example.com", std::string(1000, 'x'), "x", ""}, From(), kNow);
  ASSERT_FALSE(built.ok());
  EXPECT_EQ(built.error().code, ErrorCode::kValidation);
}

}  // namespace
}  // namespace cairn::mail
