// Bodies that do not fit the JSON path: request bodies streamed to a sink (uploads) and response
// bodies streamed from a source (downloads). The server moves them through fixed-size buffers,
// so memory stays flat whatever the size; the blocking parts (disk, database, remote I/O) run on
// the worker pool, never on a network thread.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string_view>

#include "common/result.hpp"
#include "http/response.hpp"

namespace cairn::http {

struct Request;

// Receives a streamed request body. Created by the route's StreamHandler after the middleware
// (session, rate limit) and the route's own checks passed, so no byte of the body is read for a
// caller the route refuses.
class BodySink {
 public:
  virtual ~BodySink() = default;
  // The largest body this sink takes: a Content-Length above it is a 413 before the body is
  // read, and a chunked body is cut off with a 413 once it passes it.
  virtual std::uint64_t max_bytes() const = 0;
  // The next piece of the body, in order.
  virtual Status Write(std::string_view chunk) = 0;
  // The whole body arrived: commit it and answer.
  virtual Result<Response> Finish() = 0;
  // The body did not arrive whole (the client left, a limit or a Write failed): undo whatever
  // Write did. Called at most once, never after Finish.
  virtual void Abort() = 0;
};

// The handler of a route whose request body is streamed (Route::stream_handler).
using StreamHandler = std::function<Result<std::unique_ptr<BodySink>>(Request&)>;

// Produces a streamed response body (Response::stream).
class BodySource {
 public:
  virtual ~BodySource() = default;
  // Fills the front of `buffer` with the next bytes; 0 means the body is complete.
  virtual Result<std::size_t> Read(std::span<char> buffer) = 0;
};

}  // namespace cairn::http
