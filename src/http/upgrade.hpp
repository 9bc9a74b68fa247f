// Switching protocols (WebSocket): a route answers with Response::upgrade set, and the server
// hands the connection to that handler instead of writing the response. The route's middleware
// (session, rate limit) has run by then, so the handler knows who is calling.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>

#include "http/request.hpp"

namespace cairn::http {

class UpgradeHandler {
 public:
  virtual ~UpgradeHandler() = default;
  // Owns the connection until it returns; the server closes the socket afterwards. Runs on the
  // connection's network thread, so it must not block: blocking work goes to the worker pool.
  // `buffer` holds bytes the client already sent past the request (the first frames), and
  // `request` is the upgrade request itself (for the WebSocket handshake). At shutdown the
  // server cancels and closes the socket, which ends the handler's pending operations.
  virtual boost::asio::awaitable<void> Run(boost::asio::ip::tcp::socket& socket,
                                           boost::beast::flat_buffer& buffer,
                                           const BeastRequest& request) = 0;
};

}  // namespace cairn::http
