// Against a real SMTP server (tests/support/smtp_sink.py, python3-aiosmtpd).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <set>
#include <thread>

#include "mail/limits.hpp"
#include "mail/mailer.hpp"
#include "support/mail_reader.hpp"
#include "support/smtp_sink.hpp"

namespace cairn::mail {
namespace {

MailSettings SmtpSettings(std::uint16_t port) {
  MailSettings settings;
  settings.smtp_host = "127.0.0.1";
  settings.smtp_port = port;
  settings.from = "Cairn Notifications <no-reply@cairn.test>";
  return settings;
}

std::unique_ptr<Mailer> Make(const MailSettings& settings) {
  Result<std::unique_ptr<Mailer>> mailer = MakeMailer(settings);
  EXPECT_TRUE(mailer.ok()) << (mailer.ok() ? "" : mailer.error().message);
  return mailer.ok() ? std::move(mailer).value() : nullptr;
}

// A local TCP port that is bound but not listening: connecting is refused at once.
class ClosedPort {
 public:
  ClosedPort() : fd_(::socket(AF_INET, SOCK_STREAM, 0)) {
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    if (::bind(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 &&
        ::getsockname(fd_, reinterpret_cast<sockaddr*>(&address), &length) == 0) {
      port_ = ntohs(address.sin_port);
    }
  }
  ~ClosedPort() { ::close(fd_); }
  std::uint16_t port() const { return port_; }

 private:
  int fd_;
  std::uint16_t port_ = 0;
};

TEST(SmtpMailerTest, DeliversToARealServer) {
  test::SmtpSink sink;
  std::unique_ptr<Mailer> mailer = Make(SmtpSettings(sink.port()));
  ASSERT_TRUE(mailer);
  EXPECT_EQ(mailer->Kind(), "smtp");

  const std::string text =
      "Hello Jane,\n\nYour sign-in code is 384756.\n.\nA line starting with a dot, and a link:\n"
      "https://app.example.com/api/auth/magic-link/verify?token=q1w2e3r4t5&callbackURL=%2F\n";
  const std::string html = "<p>Your sign-in code is <b>384756</b>.</p>";
  const Status sent = mailer->Send({"Jane Doe <jane@example.com>", "Ihr Anmeldecode", text, html});
  ASSERT_TRUE(sent.ok()) << sent.error().detail;

  const std::vector<test::ReceivedMail> received = sink.Messages();
  ASSERT_EQ(received.size(), 1u);
  EXPECT_EQ(received[0].mail_from, "no-reply@cairn.test");
  EXPECT_EQ(received[0].rcpt_to, std::vector<std::string>{"jane@example.com"});
  const test::ParsedMail mail = test::ParseMail(received[0].data);
  EXPECT_EQ(mail.Header("to"), "Jane Doe <jane@example.com>");
  EXPECT_EQ(mail.Header("from"), "Cairn Notifications <no-reply@cairn.test>");
  EXPECT_EQ(mail.subject, "Ihr Anmeldecode");
  EXPECT_EQ(mail.text, text);
  EXPECT_EQ(mail.html, html);
}

TEST(SmtpMailerTest, ConcurrentSendsEachDeliverTheirMessage) {
  test::SmtpSink sink;
  std::unique_ptr<Mailer> mailer = Make(SmtpSettings(sink.port()));
  ASSERT_TRUE(mailer);
  constexpr int kThreads = 4, kEach = 3;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kEach; ++i) {
        const std::string user = "user" + std::to_string(t * kEach + i);
        const Status sent = mailer->Send({user + "@example.com", user, "for " + user + "\n", ""});
        EXPECT_TRUE(sent.ok()) << sent.error().detail;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  std::set<std::string> users;
  for (const test::ReceivedMail& received : sink.Messages()) {
    const test::ParsedMail mail = test::ParseMail(received.data);
    ASSERT_EQ(received.rcpt_to.size(), 1u);
    EXPECT_EQ(received.rcpt_to[0], mail.subject + "@example.com");
    EXPECT_EQ(mail.text, "for " + mail.subject + "\n");
    users.insert(mail.subject);
  }
  EXPECT_EQ(users.size(), std::size_t{kThreads * kEach});
}

TEST(SmtpMailerTest, CredentialsAreNeverSentWithoutTls) {
  test::SmtpSink sink;  // offers no STARTTLS
  MailSettings settings = SmtpSettings(sink.port());
  settings.smtp_user = "cairn";
  settings.smtp_pass = "s3cret-password";
  std::unique_ptr<Mailer> mailer = Make(settings);
  ASSERT_TRUE(mailer);
  const Status sent = mailer->Send({"a@example.com", "Hi", "x", ""});
  ASSERT_FALSE(sent.ok());
  EXPECT_EQ(sent.error().code, ErrorCode::kUnavailable);
  EXPECT_EQ(sent.error().detail.find("s3cret-password"), std::string::npos);
  EXPECT_TRUE(sink.Messages().empty());
}

TEST(SmtpMailerTest, UnreachableServerIsUnavailableWithinTheTimeout) {
  ClosedPort closed;
  ASSERT_NE(closed.port(), 0);
  MailSettings settings = SmtpSettings(closed.port());
  settings.smtp_user = "cairn";
  settings.smtp_pass = "s3cret-password";
  std::unique_ptr<Mailer> mailer = Make(settings);
  ASSERT_TRUE(mailer);
  const auto start = std::chrono::steady_clock::now();
  const Status sent = mailer->Send({"a@example.com", "Hi", "x", ""});
  const auto elapsed = std::chrono::steady_clock::now() - start;
  ASSERT_FALSE(sent.ok());
  EXPECT_EQ(sent.error().code, ErrorCode::kUnavailable);
  EXPECT_LT(elapsed, kConnectTimeout);
  EXPECT_NE(sent.error().detail.find("127.0.0.1:" + std::to_string(closed.port())),
            std::string::npos)
      << sent.error().detail;
  EXPECT_EQ(sent.error().detail.find("s3cret-password"), std::string::npos);
  EXPECT_EQ(sent.error().message.find("127.0.0.1"), std::string::npos) << "detail is log-only";
}

TEST(SmtpMailerTest, InvalidMessagesAreRefusedBeforeConnecting) {
  test::SmtpSink sink;
  std::unique_ptr<Mailer> mailer = Make(SmtpSettings(sink.port()));
  ASSERT_TRUE(mailer);
  const Status sent = mailer->Send({"a@example.com", "Hi\r\nBcc: victim@example.com", "x", ""});
  ASSERT_FALSE(sent.ok());
  EXPECT_EQ(sent.error().code, ErrorCode::kValidation);
  EXPECT_TRUE(sink.Messages().empty());
}

TEST(SmtpMailerTest, SettingsAreValidated) {
  struct Case {
    std::string host;
    int port;
    std::string user, pass;
    const char* field;
  };
  for (const Case& c : {
           Case{"smtp.example.com/path", 587, "", "", "SMTP_HOST"},
           Case{"user@smtp.example.com", 587, "", "", "SMTP_HOST"},
           Case{"smtp.example.com:25", 587, "", "", "SMTP_HOST"},
           Case{"smtp.example.com ", 587, "", "", "SMTP_HOST"},
           Case{"smtp.example.com", 0, "", "", "SMTP_PORT"},
           Case{"smtp.example.com", 70000, "", "", "SMTP_PORT"},
           Case{"smtp.example.com", 587, "", "secret", "SMTP_USER"},
       }) {
    MailSettings settings;
    settings.smtp_host = c.host;
    settings.smtp_port = c.port;
    settings.smtp_user = c.user;
    settings.smtp_pass = c.pass;
    Result<std::unique_ptr<Mailer>> mailer = MakeMailer(settings);
    ASSERT_FALSE(mailer.ok()) << c.host;
    EXPECT_EQ(mailer.error().code, ErrorCode::kValidation);
    ASSERT_EQ(mailer.error().errors.size(), 1u);
    EXPECT_EQ(mailer.error().errors[0].field, c.field);
  }
  MailSettings ipv6;
  ipv6.smtp_host = "::1";
  ipv6.smtp_port = 465;
  EXPECT_TRUE(MakeMailer(ipv6).ok());
}

}  // namespace
}  // namespace cairn::mail
