// The bounded pool where everything that may block runs (database, disk, remote I/O, password
// hashing), so a network thread never waits: it hands a job over and serves its other
// connections until the job's result comes back to it.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <optional>
#include <type_traits>
#include <utility>

#include <boost/asio/async_result.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace cairn::http {

class WorkerPool {
 public:
  using Clock = std::chrono::steady_clock;

  // `threads` workers; at most `max_queued` jobs wait for one beyond those running, each for
  // at most `max_wait`.
  WorkerPool(int threads, std::size_t max_queued, std::chrono::milliseconds max_wait)
      : pool_(static_cast<std::size_t>(threads)),
        capacity_(static_cast<std::size_t>(threads) + max_queued),
        max_wait_(max_wait) {}

  // Runs `job` on a worker and resumes the calling coroutine on its own executor with the
  // result. A new request's job is refused (nullopt, nothing runs) while the pool is full, so
  // the caller can answer 503 at once instead of queueing without bound, and also when it
  // waited longer than max_wait for a worker (nullopt too: it never runs).
  template <class Job>
  boost::asio::awaitable<std::optional<std::invoke_result_t<Job&>>> TryRun(Job job) {
    using Value = std::invoke_result_t<Job&>;
    if (pending_.fetch_add(1, std::memory_order_relaxed) >= capacity_) {
      pending_.fetch_sub(1, std::memory_order_relaxed);
      co_return std::nullopt;
    }
    co_return co_await Submit(
        [job = std::move(job),
         deadline = Clock::now() + max_wait_]() mutable -> std::optional<Value> {
          if (Clock::now() > deadline) return std::nullopt;
          return job();
        });
  }

  // Like TryRun, never refused: for the later steps of work already admitted (the chunks of a
  // streamed body), which must not fail halfway because other requests filled the queue.
  template <class Job>
  boost::asio::awaitable<std::invoke_result_t<Job&>> Run(Job job) {
    pending_.fetch_add(1, std::memory_order_relaxed);
    co_return co_await Submit(std::move(job));
  }

  // Lets queued jobs finish, then joins the threads.
  void Join() { pool_.join(); }

 private:
  // `pending_` was incremented for this job; the worker decrements it when the job is done.
  template <class Job>
  auto Submit(Job job) {
    using Value = std::invoke_result_t<Job&>;
    return boost::asio::async_initiate<decltype(boost::asio::use_awaitable), void(Value)>(
        [this](auto handler, Job job) {
          auto home = boost::asio::make_work_guard(boost::asio::get_associated_executor(handler));
          boost::asio::post(pool_, [this, job = std::move(job), handler = std::move(handler),
                                    home = std::move(home)]() mutable {
            Value value = job();
            pending_.fetch_sub(1, std::memory_order_relaxed);
            auto executor = home.get_executor();
            boost::asio::post(executor,
                              [handler = std::move(handler), value = std::move(value)]() mutable {
                                std::move(handler)(std::move(value));
                              });
          });
        },
        boost::asio::use_awaitable, std::move(job));
  }

  boost::asio::thread_pool pool_;
  const std::size_t capacity_;
  const std::chrono::milliseconds max_wait_;
  std::atomic<std::size_t> pending_{0};
};

}  // namespace cairn::http
