// One background thread for work whose duration must not show in a response: the mail of
// request-password-reset and send-verification-email goes out after the answer, so a known
// address answers as fast as an unknown one (D12).
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

namespace cairn::auth {

// More queued work than this is dropped with a warning: a flood of reset requests must not
// grow memory without bound.
inline constexpr std::size_t kMaxQueuedTasks = 10'000;

class BackgroundTasks {
 public:
  BackgroundTasks();
  ~BackgroundTasks();
  BackgroundTasks(const BackgroundTasks&) = delete;
  BackgroundTasks& operator=(const BackgroundTasks&) = delete;

  void Post(std::function<void()> task);
  // Returns when everything posted so far has run (tests, shutdown).
  void WaitIdle();

 private:
  void Run();

  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable idle_;
  std::deque<std::function<void()>> queue_;
  bool running_task_ = false;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace cairn::auth
