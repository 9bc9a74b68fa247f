// The lock around SQLite's one writer connection. Writers take it in arrival order with a
// timeout; the WAL checkpointer may jump the queue. (A bare std::timed_mutex lets a writer that
// commits in a loop re-take it before a waiting checkpointer wakes, starving the checkpoint
// that keeps the WAL bounded.)
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>

namespace cairn::db::sqlite {

class WriterLock {
 public:
  // Waits until no one holds the lock and no checkpoint is waiting for it. False on timeout.
  bool LockForWrite(std::chrono::milliseconds timeout) {
    std::unique_lock lock(mutex_);
    if (!changed_.wait_for(lock, timeout, [this] { return !held_ && priority_waiters_ == 0; })) {
      return false;
    }
    held_ = true;
    return true;
  }

  // Takes the lock ahead of waiting writers. False on timeout.
  bool LockForCheckpoint(std::chrono::milliseconds timeout) {
    std::unique_lock lock(mutex_);
    ++priority_waiters_;
    const bool acquired = changed_.wait_for(lock, timeout, [this] { return !held_; });
    --priority_waiters_;
    if (acquired) held_ = true;
    lock.unlock();
    if (!acquired) changed_.notify_all();
    return acquired;
  }

  void Unlock() {
    {
      std::lock_guard lock(mutex_);
      held_ = false;
    }
    changed_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  bool held_ = false;
  int priority_waiters_ = 0;
};

// Releases a WriterLock taken by one of its Lock functions.
class WriterLockHold {
 public:
  explicit WriterLockHold(WriterLock& lock) : lock_(&lock) {}
  ~WriterLockHold() {
    if (lock_ != nullptr) lock_->Unlock();
  }
  WriterLockHold(const WriterLockHold&) = delete;
  WriterLockHold& operator=(const WriterLockHold&) = delete;
  void Release() {
    if (lock_ != nullptr) lock_->Unlock();
    lock_ = nullptr;
  }

 private:
  WriterLock* lock_;
};

}  // namespace cairn::db::sqlite
