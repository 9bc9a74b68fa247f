// Writes a Response on a connection: a string body in one write, a streamed body chunk by chunk
// (its source read on the worker pool), and HEAD answers without a body.
#pragma once

#include <boost/asio/awaitable.hpp>

#include "http/connection.hpp"
#include "http/request.hpp"
#include "http/response.hpp"
#include "http/worker_pool.hpp"

namespace cairn::http {

// True when the connection may serve another request: the write succeeded, the body went out
// whole and `keep_alive` holds.
boost::asio::awaitable<bool> WriteResponse(Connection& connection, Response response,
                                           const Request& request, unsigned version,
                                           bool keep_alive, WorkerPool& workers);

}  // namespace cairn::http
