// A subscription as Server-Sent Events (`Accept: text/event-stream`), for browsers' EventSource
// with cookies: the same messages as the WebSocket, each an event `data: <json>`. It takes the
// connection over like a WebSocket (the upgrade hook), so waiting for changes holds no worker:
// the answer's header goes out, then events until either side ends it. A close the server
// decides (slow consumer, revoked session, shutdown) is sent as a last message
// `{type:"close", code, reason}` with the WebSocket's code, then the connection ends.
#pragma once

#include "realtime/subscriber_connection.hpp"

namespace cairn::realtime {

class SseSession final : public SubscriberConnection {
 public:
  using SubscriberConnection::SubscriberConnection;

  boost::asio::awaitable<void> Run(boost::asio::ip::tcp::socket& socket,
                                   boost::beast::flat_buffer& buffer,
                                   const http::BeastRequest& request) override;

 private:
  boost::asio::awaitable<void> ReadLoop(boost::asio::ip::tcp::socket& socket);
  Transport transport() const override { return Transport::kEventStream; }
  boost::asio::awaitable<void> SendClose(std::uint16_t code, const std::string& reason) override;

  boost::asio::ip::tcp::socket* socket_ = nullptr;  // while Run runs
};

}  // namespace cairn::realtime
