// Runs background jobs on their own thread at fixed intervals (ARCHITECTURE "Background jobs").
// A job's failure is logged and the job runs again at its next turn.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace cairn::jobs {

class Scheduler {
 public:
  struct Job {
    std::string name;
    std::chrono::milliseconds first_delay;
    std::chrono::milliseconds interval;
    std::function<void()> run;
  };

  explicit Scheduler(std::vector<Job> jobs);
  // Stops the thread: a job running now finishes first.
  ~Scheduler();
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  void Stop();

 private:
  void Loop();

  std::vector<Job> jobs_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace cairn::jobs
