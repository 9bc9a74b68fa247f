// What the next surfaces stand on (issue 14): request framing (smuggling, Host), the worker pool
// and its bounds, the connection cap, the header deadline, streamed bodies in both directions,
// and the connection upgrade hook — against the real server on the backend of this run.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <thread>

#include <openssl/evp.h>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/websocket.hpp>
#include <boost/json.hpp>

#include "common/crypto.hpp"
#include "e2e/expect_envelope.hpp"
#include "e2e/test_app.hpp"
#include "http/body_stream.hpp"
#include "http/upgrade.hpp"

namespace cairn::test {
namespace {

using namespace std::chrono_literals;
namespace asio = boost::asio;
namespace beast = boost::beast;
using tcp = asio::ip::tcp;

// A handler that blocks until the test lets it go, so a test can hold a worker busy without
// depending on how long anything takes.
struct Gate {
  std::promise<void> open;
  std::shared_future<void> opened = open.get_future().share();
  std::atomic<int> entered{0};
  void WaitForEntries(int n) const {
    while (entered.load() < n) std::this_thread::sleep_for(5ms);
  }
};

// Counts a streamed upload's bytes and hashes them; Abort is recorded for the tests.
struct UploadLog {
  std::atomic<int> aborted{0};
  std::atomic<int> finished{0};
};

class HashingSink final : public http::BodySink {
 public:
  HashingSink(std::uint64_t max_bytes, UploadLog& log)
      : max_bytes_(max_bytes), log_(log), sha_(EVP_MD_CTX_new()) {
    EVP_DigestInit_ex(sha_, EVP_sha256(), nullptr);
  }
  ~HashingSink() override { EVP_MD_CTX_free(sha_); }
  std::uint64_t max_bytes() const override { return max_bytes_; }
  Status Write(std::string_view chunk) override {
    if (chunk.find("FAIL") != std::string_view::npos) {
      return Error::Validation("the sink refused this chunk");
    }
    EVP_DigestUpdate(sha_, chunk.data(), chunk.size());
    size_ += chunk.size();
    return {};
  }
  Result<http::Response> Finish() override {
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int digest_length = 0;
    EVP_DigestFinal_ex(sha_, digest, &digest_length);
    ++log_.finished;
    static constexpr char kHex[] = "0123456789abcdef";
    std::string hex;
    for (unsigned int i = 0; i < digest_length; ++i) {
      hex.push_back(kHex[digest[i] >> 4]);
      hex.push_back(kHex[digest[i] & 0xf]);
    }
    boost::json::object body{{"size", size_}, {"sha256", hex}};
    return http::Response::Json(201, body);
  }
  void Abort() override { ++log_.aborted; }

 private:
  std::uint64_t max_bytes_;
  UploadLog& log_;
  EVP_MD_CTX* sha_;
  std::uint64_t size_ = 0;
};

// `length` bytes of a repeating pattern, read in whatever sizes the server asks for.
class PatternSource final : public http::BodySource {
 public:
  explicit PatternSource(std::uint64_t length) : left_(length) {}
  Result<std::size_t> Read(std::span<char> buffer) override {
    const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(left_, buffer.size()));
    for (std::size_t i = 0; i < n; ++i) buffer[i] = static_cast<char>('a' + (offset_ + i) % 26);
    offset_ += n;
    left_ -= n;
    return n;
  }

 private:
  std::uint64_t left_;
  std::uint64_t offset_ = 0;
};

std::string Pattern(std::size_t length) {
  std::string out(length, '\0');
  for (std::size_t i = 0; i < length; ++i) out[i] = static_cast<char>('a' + i % 26);
  return out;
}

// Echoes WebSocket text messages with an "echo: " prefix.
class EchoUpgrade final : public http::UpgradeHandler {
 public:
  asio::awaitable<void> Run(tcp::socket& socket, beast::flat_buffer& buffer,
                            const http::BeastRequest& request) override {
    beast::websocket::stream<tcp::socket&> ws(socket);
    auto [accept_ec] = co_await ws.async_accept(request, asio::as_tuple(asio::use_awaitable));
    if (accept_ec) co_return;
    for (;;) {
      auto [read_ec, n] = co_await ws.async_read(buffer, asio::as_tuple(asio::use_awaitable));
      if (read_ec) co_return;
      std::string reply = "echo: " + beast::buffers_to_string(buffer.data());
      buffer.consume(buffer.size());
      ws.text(true);
      auto [write_ec, written] =
          co_await ws.async_write(asio::buffer(reply), asio::as_tuple(asio::use_awaitable));
      if (write_ec) co_return;
    }
  }
};

struct Probes {
  Gate gate;
  UploadLog uploads;
};

TestAppOptions PlatformOptions(Probes& probes) {
  TestAppOptions options;
  options.config_yaml = kMinimalConfig;
  options.extra_routes = [&probes](http::Router& router, db::Database&) -> Status {
    http::RouteSpec held;
    held.method = "GET";
    held.pattern = "/test/held";
    held.long_query_params = {"long"};  // /test/held?long=1 runs on the long-query lane
    CAIRN_TRY(router.Add({held, [&probes](http::Request&) -> Result<http::Response> {
                            ++probes.gate.entered;
                            probes.gate.opened.wait();
                            return http::Response::Json(200, boost::json::object{{"held", true}});
                          }}));
    http::RouteSpec fast;  // a worker route that answers at once
    fast.method = "GET";
    fast.pattern = "/test/fast";
    CAIRN_TRY(router.Add({fast, [](http::Request&) -> Result<http::Response> {
                            return http::Response::Json(200, boost::json::object{{"fast", true}});
                          }}));
    http::RouteSpec upload;
    upload.method = "PUT";
    upload.pattern = "/test/upload";
    CAIRN_TRY(router.Add(
        {upload, {}, [&probes](http::Request& request) -> Result<std::unique_ptr<http::BodySink>> {
           if (request.Header("X-Refuse") == "yes") return Error::Forbidden("refused");
           std::uint64_t max = 1 << 20;
           if (auto text = request.Query("max")) max = std::stoull(std::string(*text));
           return std::unique_ptr<http::BodySink>(new HashingSink(max, probes.uploads));
         }}));
    http::RouteSpec download;
    download.method = "GET";
    download.pattern = "/test/download";
    CAIRN_TRY(router.Add({download, [](http::Request& request) -> Result<http::Response> {
                            const std::uint64_t length =
                                std::stoull(std::string(request.Query("length").value_or("0")));
                            http::Response response;
                            response.content_type = "application/octet-stream";
                            response.stream = std::make_shared<PatternSource>(length);
                            if (request.Query("chunked") != "true") response.stream_length = length;
                            return response;
                          }}));
    http::RouteSpec ws;
    ws.method = "GET";
    ws.pattern = "/test/ws";
    return router.Add({ws, [](http::Request&) -> Result<http::Response> {
                         http::Response response;
                         response.upgrade = std::make_shared<EchoUpgrade>();
                         return response;
                       }});
  };
  return options;
}

// A request whose body could be read as a second request on the same connection.
std::string Smuggled(const std::string& framing_headers, const std::string& version = "1.1") {
  const std::string inner = "GET /api/health HTTP/1.1\r\nHost: x\r\n\r\n";
  return "POST /api/health HTTP/" + version + "\r\nHost: x\r\n" + framing_headers + "\r\n" + inner;
}

TEST(HttpPlatform, AmbiguousTransferEncodingIs400AndClosesTheConnection) {
  Probes probes;
  TestApp app(PlatformOptions(probes));
  for (const std::string& headers :
       {std::string("Transfer-Encoding: gzip\r\n"), std::string("Transfer-Encoding: identity\r\n"),
        std::string("Transfer-Encoding: chunked, chunked\r\n"),
        std::string("Transfer-Encoding: gzip, chunked\r\n"),
        std::string("Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n"),
        std::string("Transfer-Encoding: chunked\r\nContent-Length: 5\r\n")}) {
    auto responses = ParseResponses(SendRaw(app.port(), Smuggled(headers)));
    // One answer, and the connection closed: the inner request is never served.
    ASSERT_EQ(responses.size(), 1u) << headers;
    ExpectEnvelope(responses[0], 400, "VALIDATION_ERROR");
    EXPECT_EQ(responses[0].Header("Connection"), "close") << headers;
  }
  auto http10 =
      ParseResponses(SendRaw(app.port(), Smuggled("Transfer-Encoding: chunked\r\n", "1.0")));
  ASSERT_EQ(http10.size(), 1u);
  ExpectEnvelope(http10[0], 400, "VALIDATION_ERROR");
  EXPECT_EQ(app.Client().Get("/api/health").status, 200);
}

TEST(HttpPlatform, ChunkedBodiesStillWork) {
  Probes probes;
  TestApp app(PlatformOptions(probes));
  auto responses = ParseResponses(SendRaw(
      app.port(),
      "PUT /test/upload HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: Chunked\r\n\r\n"
      "3\r\nabc\r\n0\r\n\r\nGET /api/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"));
  ASSERT_EQ(responses.size(), 2u);
  EXPECT_EQ(responses[0].status, 201) << responses[0].body;
  EXPECT_EQ(responses[0].Json().at("size"), 3);
  EXPECT_EQ(responses[1].status, 200);
}

TEST(HttpPlatform, Http11NeedsExactlyOneValidHost) {
  Probes probes;
  TestApp app(PlatformOptions(probes));
  for (const std::string& host_lines :
       {std::string(""), std::string("Host: a\r\nHost: b\r\n"), std::string("Host: a b\r\n"),
        std::string("Host: user@example.com\r\n"), std::string("Host: \r\n"),
        std::string("Host: example.com:port\r\n")}) {
    auto responses =
        ParseResponses(SendRaw(app.port(), "GET /api/health HTTP/1.1\r\n" + host_lines + "\r\n"));
    ASSERT_EQ(responses.size(), 1u) << host_lines;
    ExpectEnvelope(responses[0], 400, "VALIDATION_ERROR");
  }
  for (const std::string& good :
       {std::string("Host: example.com:8080\r\n"), std::string("Host: [::1]:3000\r\n"),
        std::string("Host: 127.0.0.1\r\n")}) {
    auto responses = ParseResponses(
        SendRaw(app.port(), "GET /api/health HTTP/1.1\r\n" + good + "Connection: close\r\n\r\n"));
    ASSERT_EQ(responses.size(), 1u) << good;
    EXPECT_EQ(responses[0].status, 200) << good;
  }
  // HTTP/1.0 predates Host.
  auto old = ParseResponses(SendRaw(app.port(), "GET /api/health HTTP/1.0\r\n\r\n"));
  ASSERT_EQ(old.size(), 1u);
  EXPECT_EQ(old[0].status, 200);
}

TEST(HttpPlatform, TwoAuthorizationHeadersAre400) {
  Probes probes;
  TestApp app(PlatformOptions(probes));
  auto result = app.Client().Get("/api/health", {{"Authorization", "Bearer a"}});  // one is fine
  EXPECT_EQ(result.status, 200);
  auto responses =
      ParseResponses(SendRaw(app.port(),
                             "GET /api/health HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer a\r\n"
                             "Authorization: Bearer b\r\nConnection: close\r\n\r\n"));
  ASSERT_EQ(responses.size(), 1u);
  ExpectEnvelope(responses[0], 400, "VALIDATION_ERROR");
}

TEST(HttpPlatform, HeadersMustArriveWithinTheRequestDeadline) {
  Probes probes;
  TestAppOptions options = PlatformOptions(probes);
  options.tune_server = [](http::ServerOptions& server) {
    server.idle_timeout = 20s;  // the old rule: headers could trickle in for this long
    server.request_read_timeout = 1s;
  };
  TestApp app(std::move(options));
  asio::io_context ioc;
  tcp::socket socket(ioc);
  socket.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), app.port()));
  const std::string request =
      "GET /api/health HTTP/1.1\r\nHost: x\r\nX-Slow: " + std::string(40, 'a') + "\r\n\r\n";
  // One byte every 100 ms: the headers would be complete after about 5 s.
  bool cut_off = false;
  for (char c : request) {
    beast::error_code ec;
    asio::write(socket, asio::buffer(&c, 1), ec);
    if (ec) {
      cut_off = true;
      break;
    }
    std::this_thread::sleep_for(100ms);
  }
  // Whatever the server wrote before closing (nothing, or no 200), it did not serve the request.
  socket.non_blocking(true);
  std::string received;
  char chunk[4096];
  beast::error_code ec;
  for (int i = 0; i < 20 && !ec; ++i) {
    const std::size_t n = socket.read_some(asio::buffer(chunk), ec);
    received.append(chunk, n);
    if (ec == asio::error::would_block) {
      ec = {};
      std::this_thread::sleep_for(50ms);
    }
  }
  EXPECT_TRUE(cut_off || ec) << "the connection stayed open";
  EXPECT_EQ(received.find("200 OK"), std::string::npos) << received;
}

TEST(HttpPlatform, HandlersRunOffTheNetworkThreads) {
  Probes probes;
  TestAppOptions options = PlatformOptions(probes);
  options.tune_server = [](http::ServerOptions& server) {
    server.io_threads = 1;  // every connection shares one network thread
    server.worker_threads = 4;
  };
  TestApp app(std::move(options));
  auto held = std::async(std::launch::async,
                         [port = app.port()] { return HttpClient(port).Get("/test/held"); });
  probes.gate.WaitForEntries(1);
  // The only network thread is free while a handler blocks: other requests, on the other
  // workers, are answered meanwhile.
  for (int i = 0; i < 20; ++i) {
    EXPECT_EQ(app.Client().Get("/test/fast").status, 200);
    EXPECT_EQ(app.Client().Get("/api/health").status, 200);
  }
  EXPECT_EQ(held.wait_for(0s), std::future_status::timeout);
  probes.gate.open.set_value();
  EXPECT_EQ(held.get().status, 200);
}

TEST(HttpPlatform, AFullWorkerQueueAnswers503WithRetryAfter) {
  Probes probes;
  TestAppOptions options = PlatformOptions(probes);
  options.tune_server = [](http::ServerOptions& server) {
    server.worker_threads = 1;
    server.max_queued_jobs = 1;
  };
  TestApp app(std::move(options));
  auto first = std::async(std::launch::async,
                          [port = app.port()] { return HttpClient(port).Get("/test/held"); });
  probes.gate.WaitForEntries(1);  // the one worker is taken
  // One of the next two waits in the queue, the other finds it full.
  auto second = std::async(std::launch::async,
                           [port = app.port()] { return HttpClient(port).Get("/test/fast"); });
  auto third = std::async(std::launch::async,
                          [port = app.port()] { return HttpClient(port).Get("/test/fast"); });
  std::future<HttpResult>* refused = nullptr;
  for (int i = 0; i < 2000 && refused == nullptr; ++i) {
    if (second.wait_for(5ms) == std::future_status::ready) {
      refused = &second;
    } else if (third.wait_for(5ms) == std::future_status::ready) {
      refused = &third;
    }
  }
  // The gate opens before any check, so a failed one cannot leave a handler blocked.
  probes.gate.open.set_value();
  ASSERT_NE(refused, nullptr) << "neither request was refused";
  HttpResult busy = refused->get();
  ExpectEnvelope(busy, 503, "SERVICE_UNAVAILABLE");
  EXPECT_EQ(busy.Header("Retry-After"), "1");
  EXPECT_EQ(first.get().status, 200);
  EXPECT_EQ((refused == &second ? third : second).get().status, 200);
}

TEST(HttpPlatform, ARequestThatWaitedTooLongForAWorkerIsAnswered503) {
  Probes probes;
  TestAppOptions options = PlatformOptions(probes);
  options.tune_server = [](http::ServerOptions& server) {
    server.worker_threads = 1;
    server.max_queue_wait = 100ms;
  };
  TestApp app(std::move(options));
  auto held = std::async(std::launch::async,
                         [port = app.port()] { return HttpClient(port).Get("/test/held"); });
  probes.gate.WaitForEntries(1);  // the one worker is taken
  auto waiting = std::async(std::launch::async,
                            [port = app.port()] { return HttpClient(port).Get("/test/fast"); });
  std::this_thread::sleep_for(600ms);  // it queues, and waits past max_queue_wait
  probes.gate.open.set_value();
  EXPECT_EQ(held.get().status, 200);
  HttpResult stale = waiting.get();
  ExpectEnvelope(stale, 503, "SERVICE_UNAVAILABLE");
  EXPECT_EQ(stale.Header("Retry-After"), "1");
  // A request that finds a free worker runs.
  EXPECT_EQ(app.Client().Get("/test/fast").status, 200);
}

TEST(HttpPlatform, LongQueriesCannotTakeEveryWorker) {
  Probes probes;
  TestAppOptions options = PlatformOptions(probes);
  options.tune_server = [](http::ServerOptions& server) {
    server.worker_threads = 2;
    server.long_query_threads = 1;
  };
  TestApp app(std::move(options));
  // Three long queries at once: the lane runs one, the others wait for it, not for a worker.
  std::vector<std::future<HttpResult>> long_queries;
  for (int i = 0; i < 3; ++i) {
    long_queries.push_back(std::async(std::launch::async, [port = app.port()] {
      return HttpClient(port).Get("/test/held?long=1");
    }));
  }
  probes.gate.WaitForEntries(1);
  std::this_thread::sleep_for(100ms);  // time for a second one to enter, were it allowed to
  const int entered_while_held = probes.gate.entered.load();
  if (entered_while_held != 1) {
    // More than one long query holds a worker: the requests below could wait for the gate.
    probes.gate.open.set_value();
    for (auto& query : long_queries) query.get();
    FAIL() << entered_while_held << " long queries ran at once on a lane of one";
  }
  // Both workers are free for the rest meanwhile, database routes included.
  int answered = 0;
  for (int i = 0; i < 20; ++i) answered += app.Client().Get("/test/fast").status == 200 ? 1 : 0;
  const bool long_ones_waiting = long_queries[0].wait_for(0s) == std::future_status::timeout &&
                                 long_queries[1].wait_for(0s) == std::future_status::timeout &&
                                 long_queries[2].wait_for(0s) == std::future_status::timeout;
  probes.gate.open.set_value();
  EXPECT_EQ(answered, 20);
  EXPECT_TRUE(long_ones_waiting);
  for (auto& query : long_queries) EXPECT_EQ(query.get().status, 200);
}

TEST(HttpPlatform, ConnectionsOverTheCapAreRefusedCleanly) {
  Probes probes;
  TestAppOptions options = PlatformOptions(probes);
  options.tune_server = [](http::ServerOptions& server) { server.max_connections = 2; };
  TestApp app(std::move(options));
  auto one = std::make_unique<HttpClient>(app.port());
  HttpClient two(app.port());
  ASSERT_EQ(one->Get("/api/health").status, 200);
  ASSERT_EQ(two.Get("/api/health").status, 200);
  auto refused = ParseResponses(SendRaw(app.port(), "GET /api/health HTTP/1.1\r\nHost: x\r\n\r\n"));
  ASSERT_EQ(refused.size(), 1u);
  ExpectEnvelope(refused[0], 503, "SERVICE_UNAVAILABLE");
  EXPECT_EQ(refused[0].Header("Retry-After"), "1");
  // A slot frees when a connection closes.
  one.reset();
  int status = 0;
  for (int attempt = 0; attempt < 100 && status != 200; ++attempt) {
    auto responses = ParseResponses(
        SendRaw(app.port(), "GET /api/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"));
    status = responses.empty() ? 0 : responses[0].status;
    if (status != 200) std::this_thread::sleep_for(20ms);
  }
  EXPECT_EQ(status, 200);
}

TEST(HttpPlatform, UploadsStreamToTheSink) {
  Probes probes;
  TestApp app(PlatformOptions(probes));
  const std::string body = Pattern(5 * 1024 * 1024 + 17);  // past the JSON body limit's scale
  auto client = app.Client();
  auto result = client.Request("PUT", "/test/upload?max=" + std::to_string(body.size()), body);
  ASSERT_EQ(result.status, 201) << result.body;
  EXPECT_EQ(result.Json().at("size"), body.size());
  EXPECT_EQ(result.Json().at("sha256"), boost::json::value(crypto::Sha256Hex(body)));
  // The connection goes on serving.
  EXPECT_EQ(client.Get("/api/health").status, 200);
}

TEST(HttpPlatform, UploadLimitsAreCheckedBeforeAndWhileTheBodyStreams) {
  Probes probes;
  TestApp app(PlatformOptions(probes));
  // Announced too large: 413 with no byte of the body sent.
  auto announced = ParseResponses(SendRaw(
      app.port(), "PUT /test/upload?max=1000 HTTP/1.1\r\nHost: x\r\nContent-Length: 1001\r\n\r\n"));
  ASSERT_EQ(announced.size(), 1u);
  ExpectEnvelope(announced[0], 413, "PAYLOAD_TOO_LARGE");
  EXPECT_EQ(probes.uploads.aborted.load(), 1);  // the sink was opened, then told to undo
  // Chunked: cut off once it passes the limit, and the sink is told to undo.
  std::string chunked =
      "PUT /test/upload?max=1000 HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n";
  for (int i = 0; i < 3; ++i) chunked += "190\r\n" + std::string(400, 'x') + "\r\n";
  chunked += "0\r\n\r\n";
  auto cut = ParseResponses(SendRaw(app.port(), chunked));
  ASSERT_EQ(cut.size(), 1u);
  ExpectEnvelope(cut[0], 413, "PAYLOAD_TOO_LARGE");
  EXPECT_EQ(probes.uploads.aborted.load(), 2);
  // A sink that refuses a chunk: its error, and Abort.
  auto refused = app.Client().Request("PUT", "/test/upload", "xxFAILxx");
  ExpectEnvelope(refused, 400, "VALIDATION_ERROR");
  EXPECT_EQ(probes.uploads.aborted.load(), 3);
  // The route's own checks answer before the body is read.
  auto forbidden =
      ParseResponses(SendRaw(app.port(),
                             "PUT /test/upload HTTP/1.1\r\nHost: x\r\nX-Refuse: yes\r\n"
                             "Content-Length: 100000\r\n\r\n"));
  ASSERT_EQ(forbidden.size(), 1u);
  ExpectEnvelope(forbidden[0], 403, "FORBIDDEN");
  // Also while the client is still sending the body nobody will read.
  auto refused_midway =
      ParseResponses(SendRaw(app.port(),
                             "PUT /test/upload HTTP/1.1\r\nHost: x\r\nX-Refuse: yes\r\n"
                             "Content-Length: 2000000\r\n\r\n" +
                                 std::string(2'000'000, 'z')));
  ASSERT_EQ(refused_midway.size(), 1u);
  ExpectEnvelope(refused_midway[0], 403, "FORBIDDEN");
  EXPECT_EQ(probes.uploads.finished.load(), 0);
}

TEST(HttpPlatform, AClientThatLeavesMidUploadAbortsTheSink) {
  Probes probes;
  TestApp app(PlatformOptions(probes));
  SendRaw(app.port(),
          "PUT /test/upload HTTP/1.1\r\nHost: x\r\nContent-Length: 5000\r\n\r\n" +
              std::string(1000, 'y'),
          2000, /*close_after_send=*/true);
  for (int i = 0; i < 200 && probes.uploads.aborted.load() == 0; ++i) {
    std::this_thread::sleep_for(10ms);
  }
  EXPECT_EQ(probes.uploads.aborted.load(), 1);
  EXPECT_EQ(probes.uploads.finished.load(), 0);
}

TEST(HttpPlatform, DownloadsStreamWithAndWithoutALength) {
  Probes probes;
  TestApp app(PlatformOptions(probes));
  auto client = app.Client();
  const std::size_t length = 3 * 1024 * 1024 + 5;
  auto sized = client.Get("/test/download?length=" + std::to_string(length));
  ASSERT_EQ(sized.status, 200);
  EXPECT_EQ(sized.Header("Content-Length"), std::to_string(length));
  EXPECT_EQ(sized.body, Pattern(length));
  auto chunked = client.Get("/test/download?chunked=true&length=" + std::to_string(length));
  ASSERT_EQ(chunked.status, 200);
  EXPECT_EQ(chunked.Header("Transfer-Encoding"), "chunked");
  EXPECT_EQ(chunked.body, Pattern(length));
  auto empty = client.Get("/test/download?length=0");
  EXPECT_EQ(empty.status, 200);
  EXPECT_TRUE(empty.body.empty());
  EXPECT_EQ(client.Get("/api/health").status, 200);
}

TEST(HttpPlatform, UpgradeHandsTheConnectionToTheRoute) {
  Probes probes;
  TestApp app(PlatformOptions(probes));
  asio::io_context ioc;
  beast::websocket::stream<tcp::socket> ws(ioc);
  ws.next_layer().connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), app.port()));
  ws.handshake("127.0.0.1", "/test/ws");
  for (const std::string message : {"hello", "second"}) {
    ws.write(asio::buffer(message));
    beast::flat_buffer buffer;
    ws.read(buffer);
    EXPECT_EQ(beast::buffers_to_string(buffer.data()), "echo: " + message);
  }
  ws.close(beast::websocket::close_code::normal);
  // Shutdown closes upgraded connections too.
  beast::websocket::stream<tcp::socket> open_ws(ioc);
  open_ws.next_layer().connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), app.port()));
  open_ws.handshake("127.0.0.1", "/test/ws");
  const auto start = std::chrono::steady_clock::now();
  app.app().Shutdown();
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
}

}  // namespace
}  // namespace cairn::test
