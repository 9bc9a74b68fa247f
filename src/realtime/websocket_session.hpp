// A subscription over a WebSocket (Boost.Beast), run on the connection's network thread by the
// server's upgrade hook (http/upgrade.hpp). Two loops share the stream: the reader answers pings
// and notices the client leaving; the writer sends queued messages, a heartbeat after 30 s of
// silence, and the close frame.
#pragma once

#include <boost/beast/websocket/stream.hpp>

#include "realtime/subscriber_connection.hpp"
#include "realtime/websocket_channel.hpp"

namespace cairn::realtime {

class WebSocketSession final : public SubscriberConnection {
 public:
  using SubscriberConnection::SubscriberConnection;

  boost::asio::awaitable<void> Run(boost::asio::ip::tcp::socket& socket,
                                   boost::beast::flat_buffer& buffer,
                                   const http::BeastRequest& request) override;

 private:
  // Without permessage-deflate (never negotiated: the frames are shared by every subscriber),
  // which also keeps its state out of each connection.
  using Stream = boost::beast::websocket::stream<WebSocketChannel&, false>;
  boost::asio::awaitable<void> ReadLoop(Stream& stream);
  Transport transport() const override { return Transport::kWebSocket; }
  void Settled() override { channel_->ReleaseTeardown(); }
  boost::asio::awaitable<void> SendClose(std::uint16_t code, const std::string& reason) override;

  Stream* stream_ = nullptr;             // while Run runs
  WebSocketChannel* channel_ = nullptr;  // while Run runs
};

}  // namespace cairn::realtime
