#include "http/server.hpp"

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <unordered_set>
#include <vector>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
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
constexpr std::size_t kDrainBytes = kMaxBodyBytes;

struct Connection {
  explicit Connection(tcp::socket socket) : stream(std::move(socket)) {}
  beast::tcp_stream stream;
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
        io_threads(options.io_threads > 0 ? options.io_threads
                                          : std::max(1u, std::thread::hardware_concurrency())),
        ioc(io_threads),
        workers(options.worker_threads > 0 ? options.worker_threads
                                           : 4 * std::max(1u, std::thread::hardware_concurrency())),
        acceptor(asio::make_strand(ioc)) {}

  ServerOptions options;
  Dispatcher dispatcher;
  int io_threads;
  asio::io_context ioc;
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
      auto [ec, socket] = co_await acceptor.async_accept(asio::make_strand(ioc), kUseTuple);
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
      asio::co_spawn(connection->stream.get_executor(), Serve(connection), asio::detached);
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
    connection->stream.socket().shutdown(tcp::socket::shutdown_send, ignored);
    connection->stream.close();
    Forget(connection);
  }

  asio::awaitable<void> ServeLoop(Connection& connection) {
    beast::tcp_stream& stream = connection.stream;
    beast::flat_buffer buffer;
    std::string peer;
    {
      beast::error_code ec;
      auto endpoint = stream.socket().remote_endpoint(ec);
      if (!ec) peer = endpoint.address().to_string();
    }
    while (!stopping) {
      bhttp::request_parser<bhttp::string_body> parser;
      parser.header_limit(kMaxHeaderBytes);
      parser.body_limit(kMaxBodyBytes);

      stream.expires_after(options.idle_timeout);
      auto [header_ec, header_bytes] =
          co_await bhttp::async_read_header(stream, buffer, parser, kUseTuple);
      connection.busy = true;
      if (!header_ec && !parser.is_done()) {
        if (parser.get()[bhttp::field::expect] == "100-continue") {
          bhttp::response<bhttp::empty_body> proceed{bhttp::status::continue_, 11};
          co_await bhttp::async_write(stream, proceed, kUseTuple);
        }
        stream.expires_after(options.request_read_timeout);
        auto [body_ec, body_bytes] = co_await bhttp::async_read(stream, buffer, parser, kUseTuple);
        header_ec = body_ec;
      }
      if (header_ec) {
        if (auto error = ReadError(header_ec)) co_await AnswerAndClose(stream, *error);
        co_return;
      }

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
      stream.expires_after(kWriteTimeout);
      auto [write_ec, written] = co_await bhttp::async_write(stream, out, kUseTuple);
      connection.busy = false;
      if (write_ec || !keep_alive) co_return;
    }
  }

  asio::awaitable<void> AnswerAndClose(beast::tcp_stream& stream, const Error& error) {
    Request request;
    request.request_id = MakeRequestId({});
    Response response = Response::FromError(error);
    dispatcher.Finish(request, response);
    auto out = ToBeast(std::move(response), request, 11, false);
    stream.expires_after(kWriteTimeout);
    auto [write_ec, written] = co_await bhttp::async_write(stream, out, kUseTuple);
    if (write_ec) co_return;
    beast::error_code ignored;
    stream.socket().shutdown(tcp::socket::shutdown_send, ignored);
    std::vector<char> sink(64 * 1024);
    std::size_t drained = 0;
    stream.expires_after(kDrainTimeout);
    while (drained < kDrainBytes) {
      auto [read_ec, n] = co_await stream.async_read_some(asio::buffer(sink), kUseTuple);
      if (read_ec) break;
      drained += n;
    }
  }
};

Server::Server(ServerOptions options, Dispatcher dispatcher)
    : impl_(std::make_unique<Impl>(std::move(options), std::move(dispatcher))) {}

Server::~Server() {
  Shutdown();
}

Status Server::Start() {
  Impl& s = *impl_;
  beast::error_code ec;
  auto address = asio::ip::make_address(s.options.host, ec);
  if (ec) return Error::Validation("HOST is not an IP address: " + s.options.host);
  tcp::endpoint endpoint{address, s.options.port};
  s.acceptor.open(endpoint.protocol(), ec);
  if (!ec) s.acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) s.acceptor.bind(endpoint, ec);
  if (!ec) s.acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    return Error::Unavailable("cannot listen on " + s.options.host + ":" +
                              std::to_string(s.options.port) + ": " + ec.message());
  }
  asio::co_spawn(s.acceptor.get_executor(), s.Accept(), asio::detached);
  for (int i = 0; i < s.io_threads; ++i) {
    s.threads.emplace_back([&s] { s.ioc.run(); });
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
      asio::post(connection->stream.get_executor(), [connection] {
        if (!connection->busy) connection->stream.cancel();
      });
    }
    s.sessions_done.wait_for(lock, s.options.shutdown_grace, [&s] { return s.sessions.empty(); });
    if (!s.sessions.empty()) {
      log::Warn(std::to_string(s.sessions.size()) +
                " connection(s) still busy after the shutdown grace period; closing them");
    }
  }
  s.ioc.stop();
  for (auto& thread : s.threads) thread.join();
  s.workers.join();
}

}  // namespace cairn::http
