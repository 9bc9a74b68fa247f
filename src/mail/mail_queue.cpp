#include "mail/mail_queue.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "common/log.hpp"
#include "mail/limits.hpp"
#include "mail/message_builder.hpp"
#include "mail/mime.hpp"

namespace cairn::mail {
namespace {

// Times are epoch milliseconds; `claimed_until` is when a node's claim to send a message lapses
// (0: unclaimed); `failed_at` is set after the last attempt.
constexpr std::string_view kSchemaSql = R"SQL(
CREATE TABLE IF NOT EXISTS "_cairn_mail_queue" (
  "id" TEXT PRIMARY KEY,
  "recipient" TEXT NOT NULL,
  "subject" TEXT NOT NULL,
  "text_body" TEXT NOT NULL,
  "html_body" TEXT NOT NULL,
  "attempts" INTEGER NOT NULL DEFAULT 0,
  "next_attempt_at" BIGINT NOT NULL,
  "claimed_until" BIGINT NOT NULL DEFAULT 0,
  "failed_at" BIGINT,
  "last_error" TEXT,
  "created_at" BIGINT NOT NULL
);
CREATE INDEX IF NOT EXISTS "_cairn_mail_queue_due" ON "_cairn_mail_queue" ("next_attempt_at");
)SQL";

constexpr std::string_view kInsertSql =
    "INSERT INTO \"_cairn_mail_queue\" (\"id\", \"recipient\", \"subject\", \"text_body\", "
    "\"html_body\", \"attempts\", \"next_attempt_at\", \"claimed_until\", \"created_at\") "
    "VALUES (?, ?, ?, ?, ?, 0, ?, ?, ?)";
constexpr std::string_view kDeleteSql = "DELETE FROM \"_cairn_mail_queue\" WHERE \"id\" = ?";
// Parameters: attempts, next attempt, failed at (or NULL), last error, id.
constexpr std::string_view kRescheduleSql =
    "UPDATE \"_cairn_mail_queue\" SET \"attempts\" = ?, \"next_attempt_at\" = ?, "
    "\"claimed_until\" = 0, \"failed_at\" = ?, \"last_error\" = ? WHERE \"id\" = ?";
// Parameters: now, now, batch size.
constexpr std::string_view kDueSql =
    "SELECT \"id\" FROM \"_cairn_mail_queue\" WHERE \"failed_at\" IS NULL AND "
    "\"next_attempt_at\" <= ? AND \"claimed_until\" <= ? ORDER BY \"next_attempt_at\" LIMIT ?";
// One node wins a message: the claim holds only if nobody else's is live. Parameters: claimed
// until, id, now.
constexpr std::string_view kClaimSql =
    "UPDATE \"_cairn_mail_queue\" SET \"claimed_until\" = ? WHERE \"id\" = ? AND "
    "\"claimed_until\" <= ? AND \"failed_at\" IS NULL "
    "RETURNING \"recipient\", \"subject\", \"text_body\", \"html_body\", \"attempts\"";

constexpr std::size_t kIdBytes = 16;

// A transport error that a later attempt cannot fix: the message itself is refused.
bool IsPermanent(const Error& error) {
  return error.code == ErrorCode::kValidation;
}

// kFirstRetryDelay after the first failed attempt, doubling up to kMaxRetryDelay.
std::int64_t RetryDelayMs(int failed_attempts) {
  std::int64_t delay = kFirstRetryDelay.count();
  for (int i = 1; i < failed_attempts && delay < kMaxRetryDelay.count(); ++i) delay *= 2;
  return std::min<std::int64_t>(delay, kMaxRetryDelay.count());
}

}  // namespace

Status EnsureMailQueueSchema(db::Database& database) {
  return database.Transaction(db::Access::kSchema, [](db::Connection& connection) -> Status {
    if (auto lock = connection.dialect().MigrationLockSql()) {
      CAIRN_TRY(connection.Execute(*lock, {}));
    }
    return connection.ExecuteScript(kSchemaSql);
  });
}

QueuedMailer::QueuedMailer(db::Database& database, std::unique_ptr<Mailer> transport,
                           MailQueueOptions options)
    : database_(database), transport_(std::move(transport)), options_(std::move(options)) {
  if (!options_.now_ms) options_.now_ms = time::NowMillis;
  if (options_.start_sender) sender_ = std::thread([this] { RunSender(); });
}

QueuedMailer::~QueuedMailer() {
  Stop();
}

void QueuedMailer::Stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (sender_.joinable()) sender_.join();
}

Status QueuedMailer::Send(const Message& message) {
  const time::EpochMillis now = options_.now_ms();
  // Refused now rather than queued: a message that can never be built can never be sent.
  CAIRN_TRY(BuildMessage(message, options_.from, now));
  const std::string id = RandomHex(kIdBytes);
  // Stored claimed by this node, which tries it at once.
  const std::int64_t claimed_until = now + kDeliveryClaim.count();
  const Status stored =
      database_.Transaction(db::Access::kWrite, [&](db::Connection& connection) -> Status {
        CAIRN_TRY(connection.Execute(
            kInsertSql, {db::Value(id), db::Value(message.to), db::Value(message.subject),
                         db::Value(message.text), db::Value(message.html), db::Value(now),
                         db::Value(claimed_until), db::Value(now)}));
        return {};
      });
  if (!stored.ok()) {
    return Error::Unavailable("The email could not be queued; try again later",
                              stored.error().message);
  }
  // Delivered or queued for a retry: either way the mail is on its way.
  CAIRN_TRY(Deliver(id, message, 0));
  return {};
}

Result<bool> QueuedMailer::Deliver(const std::string& id, const Message& message,
                                   int attempts_before) {
  const Status sent = transport_->Send(message);
  if (sent.ok() || IsPermanent(sent.error())) {
    const Status removed =
        database_.Transaction(db::Access::kWrite, [&](db::Connection& connection) -> Status {
          CAIRN_TRY(connection.Execute(kDeleteSql, {db::Value(id)}));
          return {};
        });
    if (!removed.ok()) {
      // The message went out but stays queued: it may be sent once more after its claim lapses.
      log::Warn("mail queue: a delivered message could not be removed: " + removed.error().message);
    }
    if (!sent.ok()) {
      log::Error("mail queue: the " + std::string(transport_->Kind()) +
                 " transport refused a message for good: " + sent.error().message);
      return sent.error();
    }
    return true;
  }
  const int attempts = attempts_before + 1;
  const time::EpochMillis now = options_.now_ms();
  const bool last = attempts >= kMaxDeliveryAttempts;
  const std::string reason = sent.error().message + " " + sent.error().detail;
  const db::Value failed_at = last ? db::Value(now) : db::Value(db::Null{});
  const Status rescheduled =
      database_.Transaction(db::Access::kWrite, [&](db::Connection& connection) -> Status {
        CAIRN_TRY(connection.Execute(kRescheduleSql,
                                     {db::Value(attempts), db::Value(now + RetryDelayMs(attempts)),
                                      failed_at, db::Value(reason), db::Value(id)}));
        return {};
      });
  if (!rescheduled.ok()) {
    log::Warn("mail queue: cannot reschedule a message (retried once its claim lapses): " +
              rescheduled.error().message);
  }
  if (last) {
    log::Error("mail queue: a message could not be delivered after " + std::to_string(attempts) +
               " attempts and is given up (kept in _cairn_mail_queue): " + reason);
  } else {
    log::Warn("mail queue: delivery attempt " + std::to_string(attempts) + " failed, retrying in " +
              std::to_string(RetryDelayMs(attempts) / 1000) + " s: " + reason);
  }
  return false;
}

Result<int> QueuedMailer::RetryDue() {
  const time::EpochMillis now = options_.now_ms();
  std::vector<std::string> due;
  CAIRN_TRY(database_.Transaction(db::Access::kRead, [&](db::Connection& connection) -> Status {
    due.clear();
    CAIRN_TRY(connection.Execute(
        kDueSql, {db::Value(now), db::Value(now), db::Value(std::int64_t{kRetryBatchSize})},
        [&](const db::Row& row) { due.emplace_back(row.GetText(0)); }));
    return {};
  }));
  int delivered = 0;
  for (const std::string& id : due) {
    Message message;
    int attempts = 0;
    bool claimed = false;
    CAIRN_TRY(database_.Transaction(db::Access::kWrite, [&](db::Connection& connection) -> Status {
      claimed = false;
      CAIRN_TRY(connection.Execute(
          kClaimSql, {db::Value(now + kDeliveryClaim.count()), db::Value(id), db::Value(now)},
          [&](const db::Row& row) {
            message.to = row.GetText(0);
            message.subject = row.GetText(1);
            message.text = row.GetText(2);
            message.html = row.GetText(3);
            attempts = static_cast<int>(row.GetInt64(4));
            claimed = true;
          }));
      return {};
    }));
    if (!claimed) continue;  // another node took it
    if (Result<bool> sent = Deliver(id, message, attempts); sent.ok() && *sent) ++delivered;
  }
  return delivered;
}

void QueuedMailer::RunSender() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    wake_.wait_for(lock, kSenderPollInterval, [this] { return stopping_; });
    if (stopping_) break;
    lock.unlock();
    if (Result<int> pass = RetryDue(); !pass.ok()) {
      log::Warn("mail queue: a retry pass failed: " + pass.error().message);
    }
    lock.lock();
  }
}

}  // namespace cairn::mail
