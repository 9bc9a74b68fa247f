// HTTP limits (D61). Every limit answers with a clear 4xx, never a 500 or a hang.
#pragma once

#include <chrono>
#include <cstddef>

namespace cairn::http {

inline constexpr std::size_t kMaxHeaderBytes = 16 * 1024;       // 431 past this
inline constexpr std::size_t kMaxBodyBytes = 10 * 1024 * 1024;  // 413 past this
inline constexpr int kMaxJsonDepth = 64;                        // 400 past this
inline constexpr std::size_t kMaxRequestIdLength = 128;         // longer incoming ids are replaced
// A request's headers and body must arrive within this time once its first byte has.
inline constexpr std::chrono::seconds kRequestReadTimeout{30};
// A keep-alive connection with no request in flight is closed after this.
inline constexpr std::chrono::seconds kIdleTimeout{60};
inline constexpr std::chrono::seconds kWriteTimeout{30};
// Graceful shutdown waits this long for in-flight requests (D5).
inline constexpr std::chrono::seconds kShutdownGrace{10};
// Open connections (CAIRN_MAX_CONNECTIONS); the one over the cap is answered 503 and closed.
inline constexpr int kDefaultMaxConnections = 10'000;
// After a failed accept (EMFILE/ENFILE: out of descriptors) the acceptor waits this long before
// trying again, so the listening socket, readable all the while, does not make it spin.
inline constexpr std::chrono::milliseconds kAcceptRetryDelay{50};
// Jobs that may wait for a worker, per worker thread; past that a new request gets 503 with
// Retry-After instead of an unbounded wait. A connection has at most one request in flight, so
// this must leave room for every busy keep-alive client of an ordinary load: at 64 per worker,
// 250 keep-alive clients of a 2-core SQLite node (2 workers) were answered 96% 503s.
inline constexpr std::size_t kMaxQueuedJobsPerWorker = 1024;
// A request that waited this long for a worker is answered 503 with Retry-After instead of
// running: its client has likely given up, and the queue drains instead of serving stale work.
inline constexpr std::chrono::seconds kMaxQueueWait{10};
// Streamed bodies move through a buffer of this size per connection, in both directions.
inline constexpr std::size_t kStreamChunkBytes = 256 * 1024;

}  // namespace cairn::http
