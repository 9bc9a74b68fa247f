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
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>

#include "common/log.hpp"
#include "http/body_stream.hpp"
#include "http/connection.hpp"
#include "http/framing.hpp"
#include "http/limits.hpp"
#include "http/response_writer.hpp"
#include "http/upgrade.hpp"
#include "http/worker_pool.hpp"

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
constexpr std::chrono::milliseconds kSweepInterval{250};
// Refused connections (over max_connections) get this long to read their 503, and at most this
// many linger at once; past that they are closed at once.
constexpr std::chrono::seconds kRefusalLinger{1};
constexpr int kMaxLingeringRefusals = 64;
constexpr std::chrono::milliseconds kBusyLogInterval{10'000};

using HeaderParser = bhttp::request_parser<bhttp::string_body>;

Error TooLarge(std::uint64_t limit) {
  return Error::PayloadTooLarge("Request body exceeds " + std::to_string(limit) + " bytes");
}

// The answer for a request whose bytes could not be read as HTTP; the connection closes after
// it. Timeouts and resets get none.
std::optional<Error> ReadError(const beast::error_code& ec, std::uint64_t body_limit) {
  if (ec == bhttp::error::header_limit) {
    return Error{ErrorCode::kHeadersTooLarge,
                 "Request headers exceed " + std::to_string(kMaxHeaderBytes) + " bytes"};
  }
  if (ec == bhttp::error::body_limit) return TooLarge(body_limit);
  const bool parse_failure =
      ec.category() == bhttp::make_error_code(bhttp::error::bad_method).category() &&
      ec != bhttp::error::end_of_stream && ec != bhttp::error::partial_message;
  if (parse_failure) return Error::Validation("Malformed HTTP request: " + ec.message());
  return std::nullopt;
}

bool ExpectsContinue(const HeaderParser& parser) {
  return !parser.is_done() && parser.get()[bhttp::field::expect] == "100-continue";
}

// The 503 for a connection over the cap, written without waiting: the socket is fresh, so its
// send buffer takes it whole.
std::string RefusalBytes() {
  std::string body = R"({"success":false,"message":"Too many open connections; retry shortly",)"
                     R"("code":"SERVICE_UNAVAILABLE"})";
  return "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n"
         "Retry-After: 1\r\nConnection: close\r\nX-Request-Id: " +
         MakeRequestId({}) + "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" +
         body;
}

}  // namespace

struct Server::Impl {
  Impl(ServerOptions opts, Dispatcher disp)
      : options(std::move(opts)),
        dispatcher(std::move(disp)),
        contexts(MakeContexts(options.io_threads > 0 ? options.io_threads : Cores())),
        workers(WorkerCount(options), QueueLimit(options), options.max_queue_wait),
        long_queries(LongQueryThreads(options),
                     kMaxQueuedJobsPerWorker * static_cast<std::size_t>(LongQueryThreads(options)),
                     options.max_queue_wait),
        acceptor(control) {}

  static int Cores() { return static_cast<int>(std::max(1u, std::thread::hardware_concurrency())); }
  static int WorkerCount(const ServerOptions& options) {
    return options.worker_threads > 0 ? options.worker_threads : 2 * Cores();
  }
  // Each long query keeps a core of the database busy (PostgreSQL may add parallel workers of
  // its own): more at once than half the cores only slows every one of them and, on a machine
  // shared with the database, takes the cores that answer the other requests.
  static int LongQueryThreads(const ServerOptions& options) {
    if (options.long_query_threads > 0) return options.long_query_threads;
    return std::max(1, std::min(WorkerCount(options), Cores()) / 2);
  }
  static std::size_t QueueLimit(const ServerOptions& options) {
    return options.max_queued_jobs > 0
               ? options.max_queued_jobs
               : kMaxQueuedJobsPerWorker * static_cast<std::size_t>(WorkerCount(options));
  }

  // One single-threaded io_context per network thread: a connection lives on one thread for
  // its whole life, so its handlers need no strand and wake no other thread.
  static std::vector<std::unique_ptr<asio::io_context>> MakeContexts(int count) {
    std::vector<std::unique_ptr<asio::io_context>> contexts;
    for (int i = 0; i < count; ++i) contexts.push_back(std::make_unique<asio::io_context>(1));
    return contexts;
  }

  ServerOptions options;
  Dispatcher dispatcher;
  std::vector<std::unique_ptr<asio::io_context>> contexts;
  std::size_t next_context = 0;
  // Accepting and the deadline sweep run here, on a thread of their own that no request runs
  // on, so a busy network thread can delay neither. Declared after `contexts` so it is destroyed
  // first: work still queued on it (a refused connection lingering) holds sockets of theirs.
  asio::io_context control{1};
  WorkerPool workers;
  WorkerPool long_queries;  // the long-query lane (RouteSpec::long_query_params)
  tcp::acceptor acceptor;
  std::vector<std::thread> threads;
  std::atomic<bool> stopping{false};
  bool started = false;
  bool shut_down = false;
  int lingering_refusals = 0;                   // control thread only
  std::atomic<std::uint64_t> busy_refusals{0};  // since the last log line
  std::atomic<std::int64_t> busy_logged_at{std::numeric_limits<std::int64_t>::min() / 2};
  int failed_accepts = 0;  // control thread only: accepts failed in a row

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
        // Out of descriptors and similar: back off instead of spinning, and log the first
        // failure of a run only (the retries would write 20 lines a second).
        if (failed_accepts++ == 0) log::Warn("accept failed: " + ec.message() + "; retrying");
        asio::steady_timer timer(control, kAcceptRetryDelay);
        co_await timer.async_wait(kUseTuple);
        continue;
      }
      if (failed_accepts > 0) {
        log::Info("accepting again after " + std::to_string(failed_accepts) + " failed accepts");
        failed_accepts = 0;
      }
      beast::error_code ignored;
      socket.set_option(tcp::no_delay(true), ignored);
      auto connection = std::make_shared<Connection>(std::move(socket));
      bool admitted = false;
      {
        std::lock_guard lock(sessions_mutex);
        if (static_cast<int>(sessions.size()) < options.max_connections) {
          sessions.insert(connection);
          admitted = true;
        }
      }
      if (admitted) {
        asio::co_spawn(connection->socket.get_executor(), Serve(connection), asio::detached);
      } else {
        Refuse(std::move(connection->socket));
      }
    }
  }

  // Over the connection cap: a 503 and a close, costing the control thread no wait.
  void Refuse(tcp::socket socket) {
    static const std::string kRefusal = RefusalBytes();
    beast::error_code ignored;
    socket.non_blocking(true, ignored);
    socket.write_some(asio::buffer(kRefusal), ignored);
    socket.shutdown(tcp::socket::shutdown_send, ignored);
    if (lingering_refusals >= kMaxLingeringRefusals) return;  // closed by its destructor
    // Closing with the client's request unread would reset the connection and could destroy
    // the 503 before the client reads it: keep the socket open for a moment instead.
    ++lingering_refusals;
    asio::co_spawn(
        control,
        [this, socket = std::move(socket)]() mutable -> asio::awaitable<void> {
          asio::steady_timer timer(control, kRefusalLinger);
          co_await timer.async_wait(kUseTuple);
          --lingering_refusals;
        },
        asio::detached);
  }

  // Cancels the pending operation of every connection whose deadline has passed; the cancel
  // runs on the connection's own thread.
  asio::awaitable<void> Sweep() {
    asio::steady_timer timer(control);
    while (!stopping) {
      timer.expires_after(kSweepInterval);
      co_await timer.async_wait(kUseTuple);
      const auto now = Connection::Clock::now();
      std::lock_guard lock(sessions_mutex);
      for (const auto& connection : sessions) {
        if (!connection->Expired(now)) continue;
        // Checked again on the connection's thread: by then it may have moved on and re-armed.
        asio::post(connection->socket.get_executor(), [connection] {
          if (!connection->Expired(Connection::Clock::now())) return;
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

  // The answer to a request that never reached its handler, or whose streamed body failed.
  Response Answer(const Error& error, const Request& request) const {
    if (HttpStatus(error.code) >= 500) {
      log::Error("request " + request.request_id + " " + std::string(request.method) + " " +
                 request.path + ": " + error.detail);
    }
    Response response = Response::FromError(error);
    dispatcher.Finish(request, response);
    return response;
  }

  // Refused for a full worker pool: counted, and logged at most once per kBusyLogInterval
  // (a line per refused request would flood the log exactly when the server is overloaded).
  Response Busy(const Request& request) {
    Error busy = Error::Unavailable("The server is busy; retry shortly");
    busy.retry_after_seconds = 1;
    busy_refusals.fetch_add(1, std::memory_order_relaxed);
    const std::int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                                 std::chrono::steady_clock::now().time_since_epoch())
                                 .count();
    std::int64_t logged = busy_logged_at.load(std::memory_order_relaxed);
    if (now - logged >= kBusyLogInterval.count() &&
        busy_logged_at.compare_exchange_strong(logged, now)) {
      log::Warn("the worker pool is full: answered " + std::to_string(busy_refusals.exchange(0)) +
                " request(s) 503 (Retry-After) since the last report");
    }
    Response response = Response::FromError(busy);
    dispatcher.Finish(request, response);
    return response;
  }

  WorkerPool& LaneOf(const CompiledRoute& route, const Request& request) {
    for (const std::string& name : route.route.spec.long_query_params) {
      if (request.Query(name)) return long_queries;
    }
    return workers;
  }

  asio::awaitable<Response> Execute(const CompiledRoute& route, Request& request) {
    if (route.route.spec.execution == Execution::kInline) {
      co_return dispatcher.Run(route, request);
    }
    auto response = co_await LaneOf(route, request).TryRun([this, &route, &request] {
      return dispatcher.Run(route, request);
    });
    if (!response) co_return Busy(request);
    co_return std::move(*response);
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
      // Idle until the first byte of the next request; from then on its header must arrive
      // within request_read_timeout, however slowly it trickles in.
      if (buffer.size() == 0) {
        connection.ExpiresAfter(options.idle_timeout);
        auto [wait_ec] = co_await socket.async_wait(tcp::socket::wait_read, kUseTuple);
        if (wait_ec || stopping) co_return;
      }
      connection.ExpiresAfter(options.request_read_timeout);
      HeaderParser parser;
      parser.header_limit(kMaxHeaderBytes);
      // The route decides the body limit; Content-Length is checked against it below.
      parser.body_limit(boost::none);
      auto [header_ec, header_bytes] =
          co_await bhttp::async_read_header(socket, buffer, parser, kUseTuple);
      if (header_ec) {
        if (auto error = ReadError(header_ec, kMaxBodyBytes)) {
          co_await AnswerAndClose(connection, *error);
        }
        co_return;
      }
      connection.busy = true;
      if (auto error = CheckFraming(parser.get())) {
        co_await AnswerAndClose(connection, *error);
        co_return;
      }

      Request request;
      request.client_address = peer;
      Dispatcher::Routed routed = dispatcher.Route(parser.get(), request);
      const CompiledRoute* route = routed.route;
      Response response;
      bool reusable = true;  // the request's body was consumed, so another request may follow
      std::optional<BeastRequest> streamed_header;
      if (route != nullptr && route->route.stream_handler) {
        // The parser moves on to a streaming body type: keep the header for the handler.
        streamed_header.emplace(bhttp::request_header<>(parser.get().base()));
        request.raw = &*streamed_header;
        auto received = co_await ReceiveStream(connection, buffer, parser, *route, request);
        if (!received) co_return;  // the client left or timed out: nobody to answer
        response = std::move(received->response);
        reusable = received->body_consumed;
      } else {
        const std::uint64_t limit =
            route != nullptr ? route->route.spec.max_body_bytes : kMaxBodyBytes;
        if (auto length = parser.content_length(); length && *length > limit) {
          co_await AnswerAndClose(connection, TooLarge(limit));
          co_return;
        }
        if (!parser.is_done()) {
          parser.body_limit(limit);
          if (ExpectsContinue(parser)) co_await SendContinue(connection);
          auto [body_ec, body_bytes] =
              co_await bhttp::async_read(socket, buffer, parser, kUseTuple);
          if (body_ec) {
            if (auto error = ReadError(body_ec, limit)) co_await AnswerAndClose(connection, *error);
            co_return;
          }
        }
        connection.NoDeadline();
        if (route == nullptr) {
          response = std::move(*routed.response);
          dispatcher.Finish(request, response);
        } else {
          response = co_await Execute(*route, request);
        }
      }

      if (response.upgrade && !stopping) {
        connection.NoDeadline();
        connection.upgraded = true;
        // The connection is the handler's for the rest of its life (a subscription may idle for
        // hours): what only routing and answering needed is released now, all but the header.
        std::shared_ptr<UpgradeHandler> upgrade = std::move(response.upgrade);
        const BeastRequest& header = *request.raw;
        response = Response{};
        request = Request{};
        co_await upgrade->Run(socket, buffer, header);
        co_return;
      }
      const bool keep_alive = reusable && request.raw->keep_alive() && !stopping;
      const unsigned version = request.raw->version();
      const bool again = co_await WriteResponse(connection, std::move(response), request, version,
                                                keep_alive, workers);
      connection.busy = false;
      if (!again) {
        // The client may still be sending the body we did not read: let it read the answer.
        if (!reusable) co_await Drain(connection);
        co_return;
      }
    }
  }

  struct Received {
    Response response;
    bool body_consumed = true;
  };

  // A streamed request body: the route's checks run first (on a worker), then the body moves
  // to the sink chunk by chunk. nullopt: the client left or timed out mid-body.
  asio::awaitable<std::optional<Received>> ReceiveStream(Connection& connection,
                                                         beast::flat_buffer& buffer,
                                                         HeaderParser& header_parser,
                                                         const CompiledRoute& route,
                                                         Request& request) {
    connection.NoDeadline();
    auto opened = co_await workers.TryRun(
        [this, &route, &request] { return dispatcher.Open(route, request); });
    if (!opened) co_return Received{Busy(request), header_parser.is_done()};
    if (opened->response) co_return Received{std::move(*opened->response), header_parser.is_done()};
    std::unique_ptr<BodySink> sink = std::move(opened->sink);
    auto abort = [&]() -> asio::awaitable<void> {
      co_await workers.Run([&sink] {
        try {
          sink->Abort();
        } catch (const std::exception& e) {
          log::Error(std::string("aborting a streamed body failed: ") + e.what());
        }
        return 0;
      });
    };

    const std::uint64_t limit = sink->max_bytes();
    if (auto length = header_parser.content_length(); length && *length > limit) {
      co_await abort();
      co_return Received{Answer(TooLarge(limit), request), false};
    }
    if (ExpectsContinue(header_parser)) co_await SendContinue(connection);
    bhttp::request_parser<bhttp::buffer_body> parser(std::move(header_parser));
    parser.body_limit(limit);
    std::vector<char> chunk(kStreamChunkBytes);
    while (!parser.is_done()) {
      parser.get().body().data = chunk.data();
      parser.get().body().size = chunk.size();
      // A streamed body has no overall deadline (a large upload takes its time), but every
      // chunk must make progress within request_read_timeout.
      connection.ExpiresAfter(options.request_read_timeout);
      auto [ec, read_bytes] =
          co_await bhttp::async_read(connection.socket, buffer, parser, kUseTuple);
      if (ec == bhttp::error::need_buffer) ec = {};
      const std::size_t got = chunk.size() - parser.get().body().size;
      if (!ec && got > 0) {
        connection.NoDeadline();
        Status written = co_await workers.Run([&]() -> Status {
          try {
            return sink->Write(std::string_view(chunk.data(), got));
          } catch (const std::exception& e) {
            return Error::Internal(e.what());
          }
        });
        if (!written.ok()) {
          co_await abort();
          co_return Received{Answer(written.error(), request), false};
        }
      }
      if (ec) {
        co_await abort();
        if (auto error = ReadError(ec, limit)) co_return Received{Answer(*error, request), false};
        co_return std::nullopt;
      }
    }
    connection.NoDeadline();
    Response response = co_await workers.Run(
        [this, &sink, &request] { return dispatcher.Complete(*sink, request); });
    co_return Received{std::move(response), true};
  }

  asio::awaitable<void> SendContinue(Connection& connection) {
    bhttp::response<bhttp::empty_body> proceed{bhttp::status::continue_, 11};
    co_await bhttp::async_write(connection.socket, proceed, kUseTuple);
  }

  asio::awaitable<void> AnswerAndClose(Connection& connection, const Error& error) {
    Request request;
    request.request_id = MakeRequestId({});
    Response response = Answer(error, request);
    co_await WriteResponse(connection, std::move(response), request, 11, false, workers);
    co_await Drain(connection);
  }

  // Half-closes and reads what the client still sends for a moment: closing with unread bytes
  // would reset the connection, and a reset can destroy the answer before the client reads it.
  asio::awaitable<void> Drain(Connection& connection) {
    beast::error_code ignored;
    connection.socket.shutdown(tcp::socket::shutdown_send, ignored);
    std::vector<char> sink(64 * 1024);
    std::size_t drained = 0;
    connection.ExpiresAfter(kDrainTimeout);
    while (drained < kDrainBytes) {
      auto [read_ec, n] = co_await connection.socket.async_read_some(asio::buffer(sink), kUseTuple);
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

void Server::SwapRouter(std::shared_ptr<const Router> router) {
  impl_->dispatcher.SwapRouter(std::move(router));
}

Status Server::Start(Dispatcher dispatcher) {
  impl_->dispatcher = std::move(dispatcher);
  return Start();
}

Status Server::Start() {
  Impl& s = *impl_;
  CAIRN_TRY(Listen());
  asio::co_spawn(s.control, s.Accept(), asio::detached);
  asio::co_spawn(s.control, s.Sweep(), asio::detached);
  s.threads.emplace_back([&s] {
    auto guard = asio::make_work_guard(s.control);
    s.control.run();
  });
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
  asio::post(s.control, [&s] {
    beast::error_code ignored;
    s.acceptor.close(ignored);
  });
  {
    // Idle keep-alive connections are waiting for a request that will never be served: cancel
    // their reads. Busy ones finish their request and close because `stopping` is set.
    // Upgraded ones (WebSocket) never finish by themselves: close them.
    std::unique_lock lock(s.sessions_mutex);
    for (const auto& connection : s.sessions) {
      asio::post(connection->socket.get_executor(), [connection] {
        beast::error_code ignored;
        if (connection->upgraded) {
          connection->socket.cancel(ignored);
          connection->socket.shutdown(tcp::socket::shutdown_both, ignored);
        } else if (!connection->busy) {
          connection->socket.cancel(ignored);
        }
      });
    }
    s.sessions_done.wait_for(lock, s.options.shutdown_grace, [&s] { return s.sessions.empty(); });
    if (!s.sessions.empty()) {
      log::Warn(std::to_string(s.sessions.size()) +
                " connection(s) still busy after the shutdown grace period; closing them");
    }
  }
  s.control.stop();
  for (auto& context : s.contexts) context->stop();
  for (auto& thread : s.threads) thread.join();
  s.workers.Join();
  s.long_queries.Join();
}

}  // namespace cairn::http
