#include "realtime/subscriber_connection.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "realtime/hub.hpp"
#include "realtime/limits.hpp"
#include "realtime/messages.hpp"

namespace cairn::realtime {

namespace asio = boost::asio;

void SubscriberConnection::Start(const asio::any_io_executor& executor) {
  executor_ = executor;
  wake_.emplace(executor);
  Enqueue(std::make_shared<const std::string>(SubscribedMessage(spec().table->name)));
  GoLive(hub_);
}

void SubscriberConnection::Enqueue(std::shared_ptr<const std::string> message) {
  if (close_ || reader_done_) return;
  if (queue_.size() >= kMaxQueuedMessages || queued_bytes_ + message->size() > kMaxQueuedBytes) {
    RequestClose(1013, "subscriber too slow: send queue full");
    return;
  }
  queued_bytes_ += message->size();
  queue_.push_back(std::move(message));
  wake_->cancel();
}

std::shared_ptr<const std::string> SubscriberConnection::Pop() {
  std::shared_ptr<const std::string> message = std::move(queue_.front());
  queue_.pop_front();
  queued_bytes_ -= message->size();
  return message;
}

void SubscriberConnection::RequestClose(std::uint16_t code, std::string reason) {
  if (close_) return;
  close_.emplace(code, std::move(reason));
  queue_.clear();
  queued_bytes_ = 0;
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

void SubscriberConnection::Deliver(std::shared_ptr<const std::string> message) {
  if (!executor_) return;
  asio::post(*executor_, [weak = weak_from_this(), message = std::move(message)]() mutable {
    if (auto self = weak.lock()) {
      static_cast<SubscriberConnection&>(*self).Enqueue(std::move(message));
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

asio::awaitable<void> SubscriberConnection::WriteLoop() {
  auto last_sent = std::chrono::steady_clock::now();
  while (!reader_done_) {
    if (close_) {
      co_await SendClose(close_->first, close_->second);
      co_return;
    }
    if (!queue_.empty()) {
      const std::shared_ptr<const std::string> message = Pop();
      if (!co_await SendMessage(*message)) co_return;
      last_sent = std::chrono::steady_clock::now();
      continue;
    }
    if (std::chrono::steady_clock::now() - last_sent >= kHeartbeatInterval) {
      Enqueue(std::make_shared<const std::string>(HeartbeatMessage()));
      continue;
    }
    co_await WaitUntil(last_sent + kHeartbeatInterval);
  }
}

}  // namespace cairn::realtime
