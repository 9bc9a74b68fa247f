// The durable mail queue: nothing promised by mail is lost to a transient SMTP failure.
//
// QueuedMailer::Send checks the message, stores it in `_cairn_mail_queue` and tries to deliver it
// at once through the transport (SMTP or the outbox), so the usual mail still leaves before the
// answer does. A delivery that fails for a transient reason (the SMTP server is down, refuses for
// now, times out) stays queued and is retried by a background sender with exponential backoff
// (kFirstRetryDelay doubling to kMaxRetryDelay, kMaxDeliveryAttempts in all); the caller is told
// the mail is on its way. A message the transport refuses for good (a bad recipient) is not
// kept, and Send answers that error. After the last attempt a message stays in the table with
// `failed_at` set and an error is logged (never its body, which holds tokens).
//
// Every node of a PostgreSQL deployment runs a sender; a message is claimed by one conditional
// UPDATE before it is sent, so two nodes do not send it twice while the claim lasts.
#pragma once

#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

#include "common/result.hpp"
#include "common/time.hpp"
#include "db/database.hpp"
#include "mail/address.hpp"
#include "mail/mailer.hpp"

namespace cairn::mail {

struct MailQueueOptions {
  Mailbox from;  // the From of every message (SMTP_FROM): checked with it before storing
  // Epoch milliseconds; empty: the system clock. Tests step it past a retry delay.
  std::function<time::EpochMillis()> now_ms;
  // Run the background sender (off in tests that drive RetryDue themselves).
  bool start_sender = true;
};

// Creates the queue's table (idempotent, under the migration lock).
Status EnsureMailQueueSchema(db::Database& database);

class QueuedMailer final : public Mailer {
 public:
  // `database` must outlive the mailer; EnsureMailQueueSchema must have run.
  QueuedMailer(db::Database& database, std::unique_ptr<Mailer> transport, MailQueueOptions options);
  ~QueuedMailer() override;
  QueuedMailer(const QueuedMailer&) = delete;
  QueuedMailer& operator=(const QueuedMailer&) = delete;

  // Error::Validation for a message that can never be sent; Error::Unavailable only when the
  // database cannot store it. Otherwise the message is delivered or queued for a retry.
  Status Send(const Message& message) override;
  std::string_view Kind() const override { return transport_->Kind(); }

  // One pass of the sender: delivers every due message it can claim. Returns how many were
  // delivered.
  Result<int> RetryDue();
  // Stops the sender (a delivery in progress finishes; the rest stays queued). Idempotent.
  void Stop();

 private:
  void RunSender();
  // True: sent; false: queued for a retry; an error: refused for good (no longer queued).
  Result<bool> Deliver(const std::string& id, const Message& message, int attempts_before);

  db::Database& database_;
  std::unique_ptr<Mailer> transport_;
  MailQueueOptions options_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread sender_;
};

}  // namespace cairn::mail
