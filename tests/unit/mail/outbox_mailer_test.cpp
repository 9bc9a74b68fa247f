#include <sys/stat.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

#include "mail/mailer.hpp"
#include "support/mail_reader.hpp"

namespace cairn::mail {
namespace {

namespace fs = std::filesystem;

class OutboxMailerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "cairn-outbox-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    root_ = pattern;
    outbox_ = root_ / "data" / "outbox";  // not there yet: MakeMailer creates it
  }
  void TearDown() override { fs::remove_all(root_); }

  std::unique_ptr<Mailer> Make() {
    MailSettings settings;
    settings.outbox_dir = outbox_.string();
    Result<std::unique_ptr<Mailer>> mailer = MakeMailer(settings);
    EXPECT_TRUE(mailer.ok()) << (mailer.ok() ? "" : mailer.error().detail);
    return mailer.ok() ? std::move(mailer).value() : nullptr;
  }

  fs::path root_, outbox_;
};

TEST_F(OutboxMailerTest, WritesOneParseableFilePerMessage) {
  std::unique_ptr<Mailer> mailer = Make();
  ASSERT_TRUE(mailer);
  EXPECT_EQ(mailer->Kind(), "outbox");
  ASSERT_TRUE(fs::is_directory(outbox_));

  const std::string link = "https://app.example.com/api/auth/verify-email?token=abc.def-ghi";
  ASSERT_TRUE(mailer
                  ->Send({"Jane <jane@example.com>", "Verify your email", "Click " + link + "\n",
                          "<a href=\"" + link + "\">Verify</a>"})
                  .ok());
  const std::vector<fs::path> files = test::ListOutbox(outbox_);
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(std::distance(fs::directory_iterator(outbox_), fs::directory_iterator()), 1)
      << "a temporary file was left behind";
  // `<13-digit millis>-<8 hex>.eml`
  EXPECT_EQ(files[0].filename().string().size(), 13u + 1 + 8 + 4) << files[0];

  const test::ParsedMail mail = test::ParseMail(test::ReadFileBytes(files[0]));
  EXPECT_EQ(mail.Header("to"), "Jane <jane@example.com>");
  EXPECT_EQ(mail.Header("from"), "cairn <no-reply@localhost>");
  EXPECT_EQ(mail.subject, "Verify your email");
  EXPECT_EQ(mail.text, "Click " + link + "\n");
  EXPECT_NE(mail.html.find(link), std::string::npos);

  struct stat info {};
  ASSERT_EQ(::stat(files[0].c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600u) << "mail holds tokens: owner-only";
}

TEST_F(OutboxMailerTest, NamesSortInSendOrder) {
  std::unique_ptr<Mailer> mailer = Make();
  ASSERT_TRUE(mailer);
  for (int i = 0; i < 20; ++i) {
    ASSERT_TRUE(mailer->Send({"a@example.com", "message " + std::to_string(i), "x", ""}).ok());
  }
  const std::vector<fs::path> files = test::ListOutbox(outbox_);
  ASSERT_EQ(files.size(), 20u);
  for (int i = 0; i < 20; ++i) {
    EXPECT_EQ(test::ParseMail(test::ReadFileBytes(files[i])).subject,
              "message " + std::to_string(i));
  }
}

TEST_F(OutboxMailerTest, ConcurrentSendsWriteDistinctFiles) {
  std::unique_ptr<Mailer> mailer = Make();
  ASSERT_TRUE(mailer);
  constexpr int kThreads = 8, kEach = 10;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kEach; ++i) {
        const std::string tag = std::to_string(t) + "-" + std::to_string(i);
        EXPECT_TRUE(mailer->Send({"a@example.com", tag, "body " + tag, ""}).ok());
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  std::set<std::string> subjects;
  for (const fs::path& file : test::ListOutbox(outbox_)) {
    const test::ParsedMail mail = test::ParseMail(test::ReadFileBytes(file));
    EXPECT_EQ(mail.text, "body " + mail.subject + "\n");
    subjects.insert(mail.subject);
  }
  EXPECT_EQ(subjects.size(), std::size_t{kThreads * kEach});
}

TEST_F(OutboxMailerTest, InvalidMessagesWriteNothing) {
  std::unique_ptr<Mailer> mailer = Make();
  ASSERT_TRUE(mailer);
  const Status sent = mailer->Send({"a@example.com\r\nBcc: b@example.com", "Hi", "x", ""});
  ASSERT_FALSE(sent.ok());
  EXPECT_EQ(sent.error().code, ErrorCode::kValidation);
  EXPECT_TRUE(fs::is_empty(outbox_));
}

TEST_F(OutboxMailerTest, SettingsAreValidated) {
  MailSettings settings;
  settings.outbox_dir = outbox_.string();
  settings.from = "cairn <no-reply@example.com>\r\nBcc: victim@example.com";
  Result<std::unique_ptr<Mailer>> mailer = MakeMailer(settings);
  ASSERT_FALSE(mailer.ok());
  EXPECT_EQ(mailer.error().code, ErrorCode::kValidation);
  ASSERT_EQ(mailer.error().errors.size(), 1u);
  EXPECT_EQ(mailer.error().errors[0].field, "SMTP_FROM");

  // The outbox path is taken by a file: the directory cannot be created.
  fs::create_directories(root_ / "data");
  { std::ofstream(root_ / "data" / "outbox") << "not a directory"; }
  settings.from = "a@example.com";
  mailer = MakeMailer(settings);
  ASSERT_FALSE(mailer.ok());
  EXPECT_EQ(mailer.error().code, ErrorCode::kInternal);
}

}  // namespace
}  // namespace cairn::mail
