#include "auth/background_tasks.hpp"

#include <exception>

#include "common/log.hpp"

namespace cairn::auth {

BackgroundTasks::BackgroundTasks() : thread_([this] { Run(); }) {}

BackgroundTasks::~BackgroundTasks() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_one();
  thread_.join();  // Run drains the queue before it returns
}

void BackgroundTasks::Post(std::function<void()> task) {
  {
    std::lock_guard lock(mutex_);
    if (queue_.size() >= kMaxQueuedTasks) {
      log::Warn("background queue full: a task was dropped");
      return;
    }
    queue_.push_back(std::move(task));
  }
  wake_.notify_one();
}

void BackgroundTasks::WaitIdle() {
  std::unique_lock lock(mutex_);
  idle_.wait(lock, [this] { return queue_.empty() && !running_task_; });
}

void BackgroundTasks::Run() {
  std::unique_lock lock(mutex_);
  for (;;) {
    wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, and nothing left to do
    std::function<void()> task = std::move(queue_.front());
    queue_.pop_front();
    running_task_ = true;
    lock.unlock();
    try {
      task();
    } catch (const std::exception& e) {
      log::Error(std::string("background task failed: ") + e.what());
    }
    lock.lock();
    running_task_ = false;
    if (queue_.empty()) idle_.notify_all();
  }
}

}  // namespace cairn::auth
