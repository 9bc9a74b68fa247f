// The HTTP/1.1 server: Beast sessions on a pool of I/O threads, keep-alive and pipelining,
// limits and timeouts (http/limits.hpp), graceful shutdown (D5).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "common/result.hpp"
#include "http/dispatcher.hpp"
#include "http/limits.hpp"

namespace cairn::http {

struct ServerOptions {
  std::string host = "127.0.0.1";
  std::uint16_t port = 3000;  // 0 → any free port (tests)
  int io_threads = 0;         // network threads; 0 → hardware concurrency
  int worker_threads = 0;  // the worker pool (http/worker_pool.hpp); 0 → 2 × hardware concurrency
  std::size_t max_queued_jobs = 0;  // 0 → kMaxQueuedJobsPerWorker per worker
  std::chrono::milliseconds max_queue_wait = kMaxQueueWait;
  // The long-query lane (RouteSpec::long_query_params); 0 → half the cores and half the worker
  // threads, whichever is fewer, at least 1.
  int long_query_threads = 0;
  int max_connections = kDefaultMaxConnections;
  std::chrono::milliseconds idle_timeout = kIdleTimeout;
  std::chrono::milliseconds request_read_timeout = kRequestReadTimeout;
  std::chrono::milliseconds shutdown_grace = kShutdownGrace;
};

class Server {
 public:
  Server(ServerOptions options, Dispatcher dispatcher);
  // A server whose dispatcher comes with Start(Dispatcher): Listen() first tells the port, so
  // routes can be built knowing it (BASE_URL on port 0).
  explicit Server(ServerOptions options);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Binds and listens (no accepting yet); Start calls it when needed. Idempotent.
  Status Listen();
  // Binds if needed and starts serving on background threads; fails when the address cannot
  // be bound.
  Status Start();
  Status Start(Dispatcher dispatcher);
  // The bound port (after Listen or Start).
  std::uint16_t port() const;
  // The dispatcher's route table swap (a published schema); safe while serving.
  void SwapRouter(std::shared_ptr<const Router> router);
  // Stops accepting, lets in-flight requests finish (kShutdownGrace at most), closes idle
  // connections, joins every thread. Idempotent.
  void Shutdown();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace cairn::http
