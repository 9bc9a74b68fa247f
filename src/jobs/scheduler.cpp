#include "jobs/scheduler.hpp"

#include <algorithm>
#include <exception>

#include "common/log.hpp"

namespace cairn::jobs {

Scheduler::Scheduler(std::vector<Job> jobs) : jobs_(std::move(jobs)) {
  if (!jobs_.empty()) thread_ = std::thread([this] { Loop(); });
}

Scheduler::~Scheduler() {
  Stop();
}

void Scheduler::Stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void Scheduler::Loop() {
  using Clock = std::chrono::steady_clock;
  std::vector<Clock::time_point> due;
  const Clock::time_point start = Clock::now();
  for (const Job& job : jobs_) due.push_back(start + job.first_delay);
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    const auto next = std::min_element(due.begin(), due.end());
    if (wake_.wait_until(lock, *next, [this] { return stopping_; })) return;
    Job& job = jobs_[static_cast<std::size_t>(next - due.begin())];
    lock.unlock();
    try {
      job.run();
    } catch (const std::exception& e) {
      log::Error("background job " + job.name + " failed: " + e.what());
    }
    lock.lock();
    *next = Clock::now() + job.interval;
  }
}

}  // namespace cairn::jobs
