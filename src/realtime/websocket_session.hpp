// A subscription over a WebSocket (Boost.Beast), run on the connection's network thread by the
// server's upgrade hook (http/upgrade.hpp). Two loops share the stream: the reader answers pings
// and notices the client leaving; the writer sends queued messages, a heartbeat after 30 s of
// silence, and the close frame.
#pragma once

#include <boost/beast/websocket/stream.hpp>

#include "realtime/subscriber_connection.hpp"

namespace cairn::realtime {

class WebSocketSession final : public SubscriberConnection {
 public:
  using SubscriberConnection::SubscriberConnection;

  boost::asio::awaitable<void> Run(boost::asio::ip::tcp::socket& socket,
                                   boost::beast::flat_buffer& buffer,
                                   const http::BeastRequest& request) override;

 private:
  using Stream = boost::beast::websocket::stream<boost::asio::ip::tcp::socket&>;
  boost::asio::awaitable<void> ReadLoop(Stream& stream);
  boost::asio::awaitable<void> WriteLoop(Stream& stream);
};

}  // namespace cairn::realtime
