// A subscription over a WebSocket (Boost.Beast), run on the connection's network thread by the
// server's upgrade hook (http/upgrade.hpp). Two loops share the stream: the reader answers pings
// and notices the client leaving; the writer sends queued messages, a heartbeat after 30 s of
// silence, and the close frame. Messages from the hub arrive through Deliver, posted onto the
// connection's thread, so the queue is only touched there.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/websocket/stream.hpp>

#include "http/upgrade.hpp"
#include "realtime/subscription.hpp"

namespace cairn::realtime {

class WebSocketSession final : public Subscription, public http::UpgradeHandler {
 public:
  WebSocketSession(Hub& hub, SubscriptionSpec spec, std::unique_ptr<SubscriptionSlot> slot);

  boost::asio::awaitable<void> Run(boost::asio::ip::tcp::socket& socket,
                                   boost::beast::flat_buffer& buffer,
                                   const http::BeastRequest& request) override;

  void Deliver(std::shared_ptr<const std::string> message) override;
  void Close(std::uint16_t code, std::string reason) override;

 private:
  using Stream = boost::beast::websocket::stream<boost::asio::ip::tcp::socket&>;
  boost::asio::awaitable<void> ReadLoop(Stream& stream);
  boost::asio::awaitable<void> WriteLoop(Stream& stream);
  // On the connection's thread.
  void Enqueue(std::shared_ptr<const std::string> message);
  void RequestClose(std::uint16_t code, std::string reason);

  Hub& hub_;
  std::optional<boost::asio::any_io_executor> executor_;  // set once the handshake is done
  std::optional<boost::asio::steady_timer> wake_;         // the writer waits on it
  std::deque<std::shared_ptr<const std::string>> queue_;
  std::size_t queued_bytes_ = 0;
  std::optional<std::pair<std::uint16_t, std::string>> close_;  // the writer closes with it
  bool reader_done_ = false;
};

}  // namespace cairn::realtime
