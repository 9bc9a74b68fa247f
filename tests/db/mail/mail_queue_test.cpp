// The durable mail queue on SQLite and PostgreSQL: a transient failure keeps the message and a
// later pass delivers it, backoff, a message refused for good is not kept, the last attempt marks
// it failed, and two nodes never both send a claimed message.
#include "mail/mail_queue.hpp"

#include <atomic>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "db/db_test_util.hpp"
#include "mail/limits.hpp"
#include "support/test_database.hpp"

namespace cairn::test {
namespace {

constexpr time::EpochMillis kStart = 1'700'000'000'000;

// A transport that fails while `down` is set, and records what it delivered.
class FlakyTransport final : public mail::Mailer {
 public:
  Status Send(const mail::Message& message) override {
    ++attempts;
    if (refuse) return Error::Validation("recipient refused");
    if (down) return Error::Unavailable("SMTP server unreachable", "connection refused");
    std::lock_guard lock(mutex);
    delivered.push_back(message.to + "|" + message.subject + "|" + message.text);
    return {};
  }
  std::string_view Kind() const override { return "test"; }

  std::atomic<bool> down{false};
  std::atomic<bool> refuse{false};
  std::atomic<int> attempts{0};
  std::mutex mutex;
  std::vector<std::string> delivered;
};

class MailQueueTest : public DatabaseTest {
 protected:
  void SetUp() override {
    DatabaseTest::SetUp();
    ASSERT_TRUE(mail::EnsureMailQueueSchema(database()).ok());
  }

  // A queue without its background sender: the test runs the passes, on its own clock.
  std::unique_ptr<mail::QueuedMailer> MakeQueue(db::Database& database, FlakyTransport*& out) {
    auto transport = std::make_unique<FlakyTransport>();
    out = transport.get();
    mail::MailQueueOptions options;
    options.from = mail::Mailbox{"cairn", "no-reply@example.com"};
    options.now_ms = [this] { return now_.load(); };
    options.start_sender = false;
    return std::make_unique<mail::QueuedMailer>(database, std::move(transport), std::move(options));
  }

  static mail::Message Reset(std::string to) {
    return mail::Message{std::move(to), "Reset your password", "the link\r\n", ""};
  }

  std::int64_t Queued() { return QueryInt(database(), "SELECT COUNT(*) FROM _cairn_mail_queue"); }

  int Pass(mail::QueuedMailer& queue) {
    auto delivered = queue.RetryDue();
    EXPECT_TRUE(delivered.ok()) << Describe(delivered.error());
    return delivered.ok() ? *delivered : -1;
  }

  std::atomic<time::EpochMillis> now_{kStart};
};

TEST_F(MailQueueTest, DeliveredAtOnceLeavesNothingQueued) {
  FlakyTransport* transport = nullptr;
  auto queue = MakeQueue(database(), transport);
  ASSERT_TRUE(queue->Send(Reset("ada@example.com")).ok());
  EXPECT_EQ(transport->delivered,
            std::vector<std::string>{"ada@example.com|Reset your password|the link\r\n"});
  EXPECT_EQ(Queued(), 0);
}

TEST_F(MailQueueTest, ATransientFailureIsRetriedWithBackoffUntilItGoesOut) {
  FlakyTransport* transport = nullptr;
  auto queue = MakeQueue(database(), transport);
  transport->down = true;
  // The caller is told the mail is on its way: it is stored, not lost.
  ASSERT_TRUE(queue->Send(Reset("ada@example.com")).ok());
  EXPECT_EQ(Queued(), 1);
  EXPECT_EQ(QueryInt(database(), "SELECT attempts FROM _cairn_mail_queue"), 1);

  // Not due before the first delay; then each failure doubles it.
  now_ += mail::kFirstRetryDelay.count() - 1;
  EXPECT_EQ(Pass(*queue), 0);
  EXPECT_EQ(transport->attempts, 1);
  now_ += 1;
  EXPECT_EQ(Pass(*queue), 0);
  EXPECT_EQ(transport->attempts, 2);
  EXPECT_EQ(QueryInt(database(), "SELECT next_attempt_at FROM _cairn_mail_queue"),
            now_.load() + 2 * mail::kFirstRetryDelay.count());

  transport->down = false;
  now_ += 2 * mail::kFirstRetryDelay.count();
  EXPECT_EQ(Pass(*queue), 1);
  EXPECT_EQ(transport->delivered.size(), 1u);
  EXPECT_EQ(Queued(), 0);
}

TEST_F(MailQueueTest, AMessageRefusedForGoodIsAnErrorAndNotKept) {
  FlakyTransport* transport = nullptr;
  auto queue = MakeQueue(database(), transport);
  transport->refuse = true;
  const Status sent = queue->Send(Reset("ada@example.com"));
  ASSERT_FALSE(sent.ok());
  EXPECT_EQ(sent.error().code, ErrorCode::kValidation);
  EXPECT_EQ(Queued(), 0);
  // A message that cannot even be built never reaches the transport or the table.
  const Status injected = queue->Send(Reset("ada@example.com\r\nBcc: eve@example.com"));
  EXPECT_FALSE(injected.ok());
  EXPECT_EQ(transport->attempts, 1);
  EXPECT_EQ(Queued(), 0);
}

TEST_F(MailQueueTest, TheLastAttemptMarksTheMessageFailed) {
  FlakyTransport* transport = nullptr;
  auto queue = MakeQueue(database(), transport);
  transport->down = true;
  ASSERT_TRUE(queue->Send(Reset("ada@example.com")).ok());
  for (int attempt = 2; attempt <= mail::kMaxDeliveryAttempts; ++attempt) {
    now_ += mail::kMaxRetryDelay.count();
    EXPECT_EQ(Pass(*queue), 0);
  }
  EXPECT_EQ(transport->attempts, mail::kMaxDeliveryAttempts);
  EXPECT_EQ(QueryInt(database(),
                     "SELECT COUNT(*) FROM _cairn_mail_queue WHERE failed_at IS NOT "
                     "NULL AND last_error IS NOT NULL"),
            1);
  // Given up: no further attempt.
  now_ += mail::kMaxRetryDelay.count();
  EXPECT_EQ(Pass(*queue), 0);
  EXPECT_EQ(transport->attempts, mail::kMaxDeliveryAttempts);
}

// Two nodes pass over the same due messages: each message goes out exactly once.
TEST_F(MailQueueTest, TwoNodesNeverBothSendAMessage) {
  auto second = test_database().Reopen();
  ASSERT_TRUE(second.ok()) << Describe(second.error());
  FlakyTransport* first_transport = nullptr;
  FlakyTransport* second_transport = nullptr;
  auto first_node = MakeQueue(database(), first_transport);
  auto second_node = MakeQueue(**second, second_transport);
  first_transport->down = true;
  constexpr int kMessages = 20;
  for (int i = 0; i < kMessages; ++i) {
    ASSERT_TRUE(first_node->Send(Reset("user" + std::to_string(i) + "@example.com")).ok());
  }
  first_transport->down = false;
  now_ += mail::kFirstRetryDelay.count();
  int delivered = 0;
  std::thread other([&] {
    for (int pass = 0; pass < 3; ++pass) delivered += Pass(*second_node);
  });
  int mine = 0;
  for (int pass = 0; pass < 3; ++pass) mine += Pass(*first_node);
  other.join();
  EXPECT_EQ(mine + delivered, kMessages);
  EXPECT_EQ(first_transport->delivered.size() + second_transport->delivered.size(),
            static_cast<std::size_t>(kMessages));
  EXPECT_EQ(Queued(), 0);
}

}  // namespace
}  // namespace cairn::test
