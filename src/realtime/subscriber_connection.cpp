#include "realtime/subscriber_connection.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>

#include "realtime/hub.hpp"
#include "realtime/limits.hpp"
#include "realtime/messages.hpp"

namespace cairn::realtime {

namespace asio = boost::asio;

void SubscriberConnection::Start(const asio::any_io_executor& executor,
                                 asio::ip::tcp::socket& socket) {
  executor_ = executor;
  socket_ = &socket;
  thread_ = &asio::query(executor, asio::execution::context_as<asio::execution_context&>);
  wake_.emplace(executor);
  EnqueueMessage(SubscribedMessage(spec().table->name));
  GoLive(hub_);
}

void SubscriberConnection::Enqueue(SharedFrames frames) {
  if (close_ || reader_done_) return;
  if (FallenBehind(queued_messages_, queued_bytes_, *frames)) {
    RequestClose(1013, "subscriber too slow: send queue full");
    return;
  }
  queued_messages_ += frames->messages;
  queued_bytes_ += frames->bytes.size();
  queue_.push_back(std::move(frames));
  if (!coalescing_) wake_->cancel();  // a writer coalescing wakes at the window's end anyway
}

void SubscriberConnection::EnqueueMessage(std::string_view message) {
  Enqueue(FrameOne(transport(), message));
}

void SubscriberConnection::RequestClose(std::uint16_t code, std::string reason) {
  if (close_) return;
  close_.emplace(code, std::move(reason));
  queue_.clear();
  queued_bytes_ = 0;
  queued_messages_ = 0;
  wake_->cancel();
}

asio::awaitable<void> SubscriberConnection::WaitUntil(
    std::chrono::steady_clock::time_point deadline) {
  wake_->expires_at(deadline);
  co_await wake_->async_wait(asio::as_tuple(asio::use_awaitable));
}

void SubscriberConnection::Wake() {
  wake_->cancel();
}

void SubscriberConnection::Deliver(SharedFrames frames) {
  if (!executor_) return;
  asio::post(*executor_, [weak = weak_from_this(), frames = std::move(frames)]() mutable {
    if (auto self = weak.lock())
      static_cast<SubscriberConnection&>(*self).Enqueue(std::move(frames));
  });
}

void SubscriberConnection::DeliverAll(Batch batch) {
  if (!executor_) return;
  asio::post(*executor_, [batch = std::move(batch)]() mutable {
    for (auto& [subscriber, frames] : batch) {
      static_cast<SubscriberConnection&>(*subscriber).Enqueue(std::move(frames));
    }
  });
}

void SubscriberConnection::Close(std::uint16_t code, std::string reason) {
  if (!executor_) return;
  asio::post(*executor_, [weak = weak_from_this(), code, reason = std::move(reason)]() mutable {
    if (auto self = weak.lock()) {
      static_cast<SubscriberConnection&>(*self).RequestClose(code, std::move(reason));
    }
  });
}

asio::awaitable<bool> SubscriberConnection::Flush() {
  // The frames stay alive (and unchanged: they are shared) until the write is done.
  std::vector<SharedFrames> frames;
  frames.swap(queue_);
  queued_bytes_ = 0;
  queued_messages_ = 0;
  sending_.swap(outgoing_);
  outgoing_.clear();
  std::vector<asio::const_buffer> buffers;
  buffers.reserve(frames.size() + 1);
  for (const SharedFrames& framed : frames) buffers.emplace_back(asio::buffer(framed->bytes));
  if (!sending_.empty()) buffers.emplace_back(asio::buffer(sending_));
  auto [error, bytes] =
      co_await asio::async_write(*socket_, buffers, asio::as_tuple(asio::use_awaitable));
  sending_.clear();
  co_return !error;
}

asio::awaitable<void> SubscriberConnection::WriteLoop() {
  auto last_sent = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point last_write;  // none yet: the first goes at once
  while (!reader_done_) {
    if (close_) {
      if (!outgoing_.empty() && !co_await Flush()) co_return;
      co_await SendClose(close_->first, close_->second);
      co_return;
    }
    if (!queue_.empty() || !outgoing_.empty()) {
      if (std::chrono::steady_clock::now() < last_write + kCoalesceWindow) {
        coalescing_ = true;
        co_await WaitUntil(last_write + kCoalesceWindow);
        coalescing_ = false;
        continue;
      }
      if (!co_await Flush()) co_return;
      if (outgoing_.empty()) Settled();
      last_write = std::chrono::steady_clock::now();
      last_sent = last_write;
      continue;
    }
    if (std::chrono::steady_clock::now() - last_sent >= kHeartbeatInterval) {
      EnqueueMessage(HeartbeatMessage());
      continue;
    }
    Settled();
    co_await WaitUntil(last_sent + kHeartbeatInterval);
  }
}

}  // namespace cairn::realtime
