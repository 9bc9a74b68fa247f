#include "api/database_liveness.hpp"

#include "common/log.hpp"

namespace cairn::api {

DatabaseLiveness::DatabaseLiveness(db::Database& database, LivenessOptions options)
    : database_(database), options_(std::move(options)) {
  Refresh();
  if (!options_.background) return;
  thread_ = std::thread([this] {
    std::unique_lock lock(mutex_);
    while (!stop_requested_.wait_for(lock, options_.interval, [this] { return stopping_; })) {
      lock.unlock();
      Refresh();
      lock.lock();
    }
  });
}

DatabaseLiveness::~DatabaseLiveness() {
  Stop();
}

void DatabaseLiveness::Stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  stop_requested_.notify_all();
  if (thread_.joinable()) thread_.join();
}

std::int64_t DatabaseLiveness::Now() const {
  if (options_.now_ms) return options_.now_ms();
  // Monotonic: a wall-clock step must not make a fresh answer look stale, or the reverse.
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void DatabaseLiveness::Refresh() {
  const Status ping = database_.Ping();
  if (ping.ok()) {
    answered_at_ms_.store(Now(), std::memory_order_relaxed);
    if (failing_.exchange(false, std::memory_order_relaxed))
      log::Info("the database answers again");
    return;
  }
  // Logged on the change only: a database that is down for an hour is one line, not 7200.
  if (!failing_.exchange(true, std::memory_order_relaxed)) {
    log::Error("the database does not answer: " + ping.error().detail);
  }
}

Status DatabaseLiveness::Current() const {
  if (failing_.load(std::memory_order_relaxed)) return Error::Unavailable("Database unavailable");
  const std::int64_t answered = answered_at_ms_.load(std::memory_order_relaxed);
  if (answered == 0 || Now() - answered > options_.stale_after.count()) {
    return Error::Unavailable("Database unavailable", "the database has not answered lately");
  }
  return {};
}

}  // namespace cairn::api
