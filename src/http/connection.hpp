// One accepted connection, as the server's parts share it (internal to cairn_http).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <limits>

#include <boost/asio/ip/tcp.hpp>

namespace cairn::http {

// Deadlines are plain numbers checked by one sweeper (Server's Sweep) instead of a timer per
// socket operation: arming a deadline is a store, not a timer-queue update and a syscall.
struct Connection {
  using Clock = std::chrono::steady_clock;
  static constexpr std::int64_t kNoDeadline = std::numeric_limits<std::int64_t>::max();

  explicit Connection(boost::asio::ip::tcp::socket s) : socket(std::move(s)) {}
  void ExpiresAfter(std::chrono::milliseconds timeout) {
    deadline.store((Clock::now() + timeout).time_since_epoch().count(), std::memory_order_relaxed);
  }
  void NoDeadline() { deadline.store(kNoDeadline, std::memory_order_relaxed); }
  bool Expired(Clock::time_point now) const {
    return deadline.load(std::memory_order_relaxed) < now.time_since_epoch().count();
  }

  boost::asio::ip::tcp::socket socket;
  std::atomic<std::int64_t> deadline{kNoDeadline};
  std::atomic<bool> busy{false};      // a request is in flight: shutdown lets it finish
  std::atomic<bool> upgraded{false};  // handed to an UpgradeHandler: shutdown closes it
};

}  // namespace cairn::http
