#include "http/server.hpp"

#include <atomic>
#include <condition_variable>
#include <limits>
#include <mutex>
#include <thread>
#include <unordered_set>
#include <vector>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>

#include "common/log.hpp"
#include "http/limits.hpp"

namespace cairn::http {
namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
using tcp = asio::ip::tcp;

namespace {

constexpr auto kUseTuple = asio::as_tuple(asio::use_awaitable);
// After an unrecoverable parse error we answer, half-close, and drain what the client still
// sends for at most this long so that it reads our answer instead of a reset.
constexpr std::chrono::seconds kDrainTimeout{2};
constexpr std::size_t kDrainBytes = 4 * kMaxBodyBytes;

// Deadlines are plain numbers checked by one sweeper (Impl::Sweep) instead of a timer per
// socket operation: arming a deadline is a store, not a timer-queue update and a syscall.
using Clock = std::chrono::steady_clock;
constexpr std::int64_t kNoDeadline = std::numeric_limits<std::int64_t>::max();
constexpr std::chrono::milliseconds kSweepInterval{250};

struct Connection {
  explicit Connection(tcp::socket s) : socket(std::move(s)) {}
  void ExpiresAfter(std::chrono::milliseconds timeout) {
    deadline.store((Clock::now() + timeout).time_since_epoch().count(), std::memory_order_relaxed);
  }
  void NoDeadline() { deadline.store(kNoDeadline, std::memory_order_relaxed); }
  bool Expired(Clock::time_point now) const {
    return deadline.load(std::memory_order_relaxed) < now.time_since_epoch().count();
  }

  tcp::socket socket;
  std::atomic<std::int64_t> deadline{kNoDeadline};
  std::atomic<bool> busy{false};
};

bhttp::response<bhttp::string_body> ToBeast(Response&& response, const Request& request,
                                            unsigned version, bool keep_alive) {
  bhttp::response<bhttp::string_body> out{static_cast<bhttp::status>(response.status), version};
  if (!response.content_type.empty()) out.set(bhttp::field::content_type, response.content_type);
  out.set("X-Request-Id", request.request_id);
  for (auto& [name, value] : response.headers) out.insert(name, value);
  out.body() = std::move(response.body);
  out.keep_alive(keep_alive);
  out.prepare_payload();
  return out;
}

// The answer for a request that could not be parsed; the connection closes after it.
std::optional<Error> ReadError(const beast::error_code& ec) {
  if (ec == bhttp::error::header_limit) {
    return Error{ErrorCode::kHeadersTooLarge,
                 "Request headers exceed " + std::to_string(kMaxHeaderBytes) + " bytes"};
  }
  if (ec == bhttp::error::body_limit) {
    return Error::PayloadTooLarge("Request body exceeds " + std::to_string(kMaxBodyBytes) +
                                  " bytes");
  }
  const bool parse_failure =
      ec.category() == bhttp::make_error_code(bhttp::error::bad_method).category() &&
      ec != bhttp::error::end_of_stream && ec != bhttp::error::partial_message;
  if (parse_failure) return Error::Validation("Malformed HTTP request: " + ec.message());
  return std::nullopt;  // timeouts, resets: nothing to answer
}

}  // namespace

struct Server::Impl {
  Impl(ServerOptions opts, Dispatcher disp)
      : options(std::move(opts)),
        dispatcher(std::move(disp)),
        contexts(MakeContexts(options.io_threads > 0 ? options.io_threads : Cores())),
        workers(options.worker_threads > 0 ? options.worker_threads : 4 * Cores()),
        acceptor(*contexts.front()) {}

  static int Cores() { return static_cast<int>(std::max(1u, std::thread::hardware_concurrency())); }

  // One single-threaded io_context per I/O thread: a connection lives on one thread for its
  // whole life, so its handlers need no strand and wake no other thread.
  static std::vector<std::unique_ptr<asio::io_context>> MakeContexts(int count) {
    std::vector<std::unique_ptr<asio::io_context>> contexts;
    for (int i = 0; i < count; ++i) contexts.push_back(std::make_unique<asio::io_context>(1));
    return contexts;
  }

  ServerOptions options;
  Dispatcher dispatcher;
  std::vector<std::unique_ptr<asio::io_context>> contexts;
  std::size_t next_context = 0;
  asio::thread_pool workers;
  tcp::acceptor acceptor;
  std::vector<std::thread> threads;
  std::atomic<bool> stopping{false};
  bool started = false;
  bool shut_down = false;

  std::mutex sessions_mutex;
  std::condition_variable sessions_done;
  std::unordered_set<std::shared_ptr<Connection>> sessions;

  asio::awaitable<void> Accept() {
    for (;;) {
      asio::io_context& target = *contexts[next_context++ % contexts.size()];
      auto [ec, socket] = co_await acceptor.async_accept(target, kUseTuple);
      if (stopping) co_return;
      if (ec) {
        if (ec == asio::error::operation_aborted) co_return;
        log::Warn("accept failed: " + ec.message());
        // Out of descriptors and similar: back off instead of spinning.
        asio::steady_timer timer(acceptor.get_executor(), std::chrono::milliseconds(50));
        co_await timer.async_wait(kUseTuple);
        continue;
      }
      beast::error_code ignored;
      socket.set_option(tcp::no_delay(true), ignored);
      auto connection = std::make_shared<Connection>(std::move(socket));
      {
        std::lock_guard lock(sessions_mutex);
        sessions.insert(connection);
      }
      asio::co_spawn(connection->socket.get_executor(), Serve(connection), asio::detached);
    }
  }

  // Cancels the pending operation of every connection whose deadline has passed; the cancel
  // runs on the connection's own thread.
  asio::awaitable<void> Sweep() {
    asio::steady_timer timer(acceptor.get_executor());
    while (!stopping) {
      timer.expires_after(kSweepInterval);
      co_await timer.async_wait(kUseTuple);
      const auto now = Clock::now();
      std::lock_guard lock(sessions_mutex);
      for (const auto& connection : sessions) {
        if (!connection->Expired(now)) continue;
        // Checked again on the connection's thread: by then it may have moved on and re-armed.
        asio::post(connection->socket.get_executor(), [connection] {
          if (!connection->Expired(Clock::now())) return;
          beast::error_code ignored;
          connection->socket.cancel(ignored);
        });
      }
    }
  }

  void Forget(const std::shared_ptr<Connection>& connection) {
    std::lock_guard lock(sessions_mutex);
    sessions.erase(connection);
    if (sessions.empty()) sessions_done.notify_all();
  }

  asio::awaitable<void> Serve(std::shared_ptr<Connection> connection) {
    try {
      co_await ServeLoop(*connection);
    } catch (const std::exception& e) {
      log::Error(std::string("connection failed: ") + e.what());
    }
    beast::error_code ignored;
    connection->socket.shutdown(tcp::socket::shutdown_send, ignored);
    connection->socket.close(ignored);
    Forget(connection);
  }

  asio::awaitable<void> ServeLoop(Connection& connection) {
    tcp::socket& socket = connection.socket;
    beast::flat_buffer buffer;
    std::string peer;
    {
      beast::error_code ec;
      auto endpoint = socket.remote_endpoint(ec);
      if (!ec) peer = endpoint.address().to_string();
    }
    while (!stopping) {
      bhttp::request_parser<bhttp::string_body> parser;
      parser.header_limit(kMaxHeaderBytes);
      parser.body_limit(kMaxBodyBytes);

      connection.ExpiresAfter(options.idle_timeout);
      auto [header_ec, header_bytes] =
          co_await bhttp::async_read_header(socket, buffer, parser, kUseTuple);
      connection.busy = true;
      if (!header_ec && !parser.is_done()) {
        if (parser.get()[bhttp::field::expect] == "100-continue") {
          bhttp::response<bhttp::empty_body> proceed{bhttp::status::continue_, 11};
          co_await bhttp::async_write(socket, proceed, kUseTuple);
        }
        connection.ExpiresAfter(options.request_read_timeout);
        auto [body_ec, body_bytes] = co_await bhttp::async_read(socket, buffer, parser, kUseTuple);
        header_ec = body_ec;
      }
      if (header_ec) {
        if (auto error = ReadError(header_ec)) co_await AnswerAndClose(connection, *error);
        co_return;
      }

      connection.NoDeadline();
      const BeastRequest& raw = parser.get();
      Request request;
      request.client_address = peer;
      Dispatcher::Prepared prepared = dispatcher.Prepare(raw, request);
      Response response;
      if (prepared.response) {
        response = std::move(*prepared.response);
      } else if (prepared.route->route.spec.execution == Execution::kWorker) {
        response = co_await asio::co_spawn(
            workers,
            [&]() -> asio::awaitable<Response> {
              co_return dispatcher.Invoke(*prepared.route, request);
            },
            asio::use_awaitable);
      } else {
        response = dispatcher.Invoke(*prepared.route, request);
      }
      dispatcher.Finish(request, response);

      const bool keep_alive = raw.keep_alive() && !stopping;
      auto out = ToBeast(std::move(response), request, raw.version(), keep_alive);
      connection.ExpiresAfter(kWriteTimeout);
      auto [write_ec, written] = co_await bhttp::async_write(socket, out, kUseTuple);
      connection.busy = false;
      if (write_ec || !keep_alive) co_return;
    }
  }

  asio::awaitable<void> AnswerAndClose(Connection& connection, const Error& error) {
    tcp::socket& socket = connection.socket;
    Request request;
    request.request_id = MakeRequestId({});
    Response response = Response::FromError(error);
    dispatcher.Finish(request, response);
    auto out = ToBeast(std::move(response), request, 11, false);
    connection.ExpiresAfter(kWriteTimeout);
    auto [write_ec, written] = co_await bhttp::async_write(socket, out, kUseTuple);
    if (write_ec) co_return;
    beast::error_code ignored;
    socket.shutdown(tcp::socket::shutdown_send, ignored);
    std::vector<char> sink(64 * 1024);
    std::size_t drained = 0;
    connection.ExpiresAfter(kDrainTimeout);
    while (drained < kDrainBytes) {
      auto [read_ec, n] = co_await socket.async_read_some(asio::buffer(sink), kUseTuple);
      if (read_ec) break;
      drained += n;
    }
  }
};

Server::Server(ServerOptions options, Dispatcher dispatcher)
    : impl_(std::make_unique<Impl>(std::move(options), std::move(dispatcher))) {}

Server::Server(ServerOptions options)
    : impl_(std::make_unique<Impl>(std::move(options), Dispatcher(Router(), {}))) {}

Server::~Server() {
  Shutdown();
}

Status Server::Listen() {
  Impl& s = *impl_;
  if (s.acceptor.is_open()) return {};
  beast::error_code ec;
  auto address = asio::ip::make_address(s.options.host, ec);
  if (ec) return Error::Validation("HOST is not an IP address: " + s.options.host);
  tcp::endpoint endpoint{address, s.options.port};
  s.acceptor.open(endpoint.protocol(), ec);
  if (!ec) s.acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) s.acceptor.bind(endpoint, ec);
  if (!ec) s.acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    beast::error_code ignored;
    s.acceptor.close(ignored);
    return Error::Unavailable("cannot listen on " + s.options.host + ":" +
                              std::to_string(s.options.port) + ": " + ec.message());
  }
  return {};
}

Status Server::Start(Dispatcher dispatcher) {
  impl_->dispatcher = std::move(dispatcher);
  return Start();
}

Status Server::Start() {
  Impl& s = *impl_;
  CAIRN_TRY(Listen());
  asio::co_spawn(s.acceptor.get_executor(), s.Accept(), asio::detached);
  asio::co_spawn(s.acceptor.get_executor(), s.Sweep(), asio::detached);
  for (auto& context : s.contexts) {
    s.threads.emplace_back([&context] {
      auto guard = asio::make_work_guard(*context);
      context->run();
    });
  }
  s.started = true;
  return {};
}

std::uint16_t Server::port() const {
  return impl_->acceptor.local_endpoint().port();
}

void Server::Shutdown() {
  Impl& s = *impl_;
  if (s.shut_down) return;
  s.shut_down = true;
  if (!s.started) return;
  s.stopping = true;
  asio::post(s.acceptor.get_executor(), [&s] {
    beast::error_code ignored;
    s.acceptor.close(ignored);
  });
  {
    // Idle keep-alive connections are waiting for a request that will never be served: cancel
    // their reads. Busy ones finish their request and close because `stopping` is set.
    std::unique_lock lock(s.sessions_mutex);
    for (const auto& connection : s.sessions) {
      asio::post(connection->socket.get_executor(), [connection] {
        beast::error_code ignored;
        if (!connection->busy) connection->socket.cancel(ignored);
      });
    }
    s.sessions_done.wait_for(lock, s.options.shutdown_grace, [&s] { return s.sessions.empty(); });
    if (!s.sessions.empty()) {
      log::Warn(std::to_string(s.sessions.size()) +
                " connection(s) still busy after the shutdown grace period; closing them");
    }
  }
  for (auto& context : s.contexts) context->stop();
  for (auto& thread : s.threads) thread.join();
  s.workers.join();
}

}  // namespace cairn::http
