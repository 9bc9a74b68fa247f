// What the WebSocket and the Server-Sent Events connections of a subscription share: the send
// queue, bounded (kMaxQueuedMessages, kMaxQueuedBytes: past them the subscriber is closed as too
// slow), and the close request, both touched only on the connection's network thread. Messages
// and closes from the hub arrive through Deliver and Close, posted onto that thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>

#include "http/upgrade.hpp"
#include "realtime/subscription.hpp"

namespace cairn::realtime {

class SubscriberConnection : public Subscription, public http::UpgradeHandler {
 public:
  SubscriberConnection(Hub& hub, SubscriptionSpec spec, std::unique_ptr<SubscriptionSlot> slot)
      : Subscription(std::move(spec), std::move(slot)), hub_(hub) {}

  void Deliver(SharedFrames frames) override;
  void DeliverAll(Batch batch) override;
  const void* thread() const override { return thread_; }
  void Close(std::uint16_t code, std::string reason) override;

 protected:
  // Called on the connection's thread once it can send: queues `subscribed` and goes live.
  void Start(const boost::asio::any_io_executor& executor, boost::asio::ip::tcp::socket& socket);
  void Enqueue(SharedFrames frames);
  void EnqueueMessage(std::string_view message);  // one message of this connection's own
  void RequestClose(std::uint16_t code, std::string reason);
  // The writer waits here for a message, a close or `deadline` (the next heartbeat).
  boost::asio::awaitable<void> WaitUntil(std::chrono::steady_clock::time_point deadline);
  // Ends the writer's wait at once (the reader is done).
  void Wake();
  // The writer: queued messages in order, a heartbeat after kHeartbeatInterval without one, the
  // close once requested. Ends when the reader is done, the close is sent or a send fails.
  // Everything waiting when it wakes goes out in one write, from the shared frames themselves:
  // under load the cost of a send (a system call, and on loopback the receiver's TCP work too)
  // is paid per backlog, not per message, and no message is copied per subscriber.
  boost::asio::awaitable<void> WriteLoop();

  std::vector<SharedFrames> queue_;  // a vector: an empty deque still holds 576 bytes
  std::string outgoing_;  // bytes Beast wrote while the writer owned the socket (a pong, a close)
  std::optional<std::pair<std::uint16_t, std::string>> close_;  // the writer closes with it
  bool reader_done_ = false;

 private:
  // The transport under WriteLoop. Settled: the writer holds no more bytes, so what the
  // transport held back for that may proceed. SendClose: the close, after every queued byte.
  virtual void Settled() {}
  virtual boost::asio::awaitable<void> SendClose(std::uint16_t code, const std::string& reason) = 0;

  Hub& hub_;
  std::optional<boost::asio::any_io_executor> executor_;  // set by Start
  std::optional<boost::asio::steady_timer> wake_;
  // Sends the queued frames, then outgoing_ (both moved aside first: more may come while they
  // are written); false when the connection failed.
  boost::asio::awaitable<bool> Flush();

  boost::asio::ip::tcp::socket* socket_ = nullptr;  // set by Start
  std::string sending_;                             // Beast's bytes in the write under way
  const void* thread_ = nullptr;                    // the executor's context, set by Start
  std::size_t queued_bytes_ = 0;
  std::size_t queued_messages_ = 0;
  bool coalescing_ = false;  // the writer waits out kCoalesceWindow: new messages need not wake it
};

}  // namespace cairn::realtime
