// The HTTP core end to end: health, envelopes, limits, keep-alive, pipelining, timeouts and
// graceful shutdown, against the real server on the backend of this run.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <random>
#include <thread>

#include <boost/json.hpp>

#include "common/time.hpp"
#include "e2e/expect_envelope.hpp"
#include "e2e/test_app.hpp"

namespace cairn::test {
namespace {

using namespace std::chrono_literals;

// A probe route with a body schema, so the generic body handling can be exercised before the
// records API exists; and a slow route for graceful-shutdown tests.
Status AddProbeRoutes(http::Router& router, db::Database&) {
  http::RouteSpec echo;
  echo.method = "POST";
  echo.pattern = "/test/echo";
  echo.body_schema =
      boost::json::parse(R"({"type":"object","properties":{"value":{"type":"number"}},
                                             "required":["value"],"additionalProperties":false})");
  CAIRN_TRY(router.Add({echo, [](http::Request& request) -> Result<http::Response> {
                          return http::Response::Json(200, *request.json);
                        }}));
  http::RouteSpec slow;
  slow.method = "GET";
  slow.pattern = "/test/slow";
  slow.execution = http::Execution::kWorker;
  return router.Add({slow, [](http::Request&) -> Result<http::Response> {
                       std::this_thread::sleep_for(700ms);
                       return http::Response::Json(200, boost::json::object{{"slow", true}});
                     }});
}

TestAppOptions ProbeOptions() {
  TestAppOptions options;
  options.config_yaml = kMinimalConfig;
  options.extra_routes = AddProbeRoutes;
  return options;
}

TEST(HttpCore, HealthReportsAppAndDatabase) {
  TestApp app(ProbeOptions());
  auto client = app.Client();
  auto result = client.Get("/api/health");
  ASSERT_EQ(result.status, 200) << result.body;
  EXPECT_EQ(result.Header("Content-Type"), "application/json");
  EXPECT_FALSE(result.Header("X-Request-Id").empty());
  auto body = result.Json();
  EXPECT_EQ(body.at("status"), "ok");
  EXPECT_EQ(body.at("database"), "ok");
  EXPECT_EQ(body.at("app").at("name"), "e2e-app");
  EXPECT_EQ(body.at("app").at("version"), "1.2.3");
  auto stamp = time::ParseIso(body.at("timestamp").as_string());
  ASSERT_TRUE(stamp.has_value());
  EXPECT_LT(std::abs(*stamp - time::NowMillis()), 60'000);
}

TEST(HttpCore, RequestIdIsEchoedOrGenerated) {
  TestApp app(ProbeOptions());
  auto client = app.Client();
  EXPECT_EQ(client.Get("/api/health", {{"X-Request-Id", "trace-42"}}).Header("X-Request-Id"),
            "trace-42");
  const auto first = client.Get("/api/health").Header("X-Request-Id");
  const auto second = client.Get("/api/health").Header("X-Request-Id");
  EXPECT_EQ(first.size(), 32u);
  EXPECT_NE(first, second);
}

TEST(HttpCore, UnknownRoutesAreNotFoundEnvelopes) {
  TestApp app(ProbeOptions());
  auto client = app.Client();
  ExpectEnvelope(client.Get("/api/nothing"), 404, "NOT_FOUND");
  ExpectEnvelope(client.Get("/"), 404, "NOT_FOUND");
  ExpectEnvelope(client.Request("DELETE", "/api/health"), 404, "NOT_FOUND");
  ExpectEnvelope(client.Request("BREW", "/api/health"), 404, "NOT_FOUND");
}

TEST(HttpCore, JsonBodiesAreParsedAndValidated) {
  TestApp app(ProbeOptions());
  auto client = app.Client();
  auto ok = client.PostJson("/test/echo", R"({"value":2.5})");
  ASSERT_EQ(ok.status, 200) << ok.body;
  EXPECT_EQ(ok.body, R"({"value":2.5})");

  ExpectEnvelope(client.PostJson("/test/echo", R"({"value":)"), 400, "VALIDATION_ERROR");
  ExpectEnvelope(client.PostJson("/test/echo", ""), 400, "VALIDATION_ERROR");
  ExpectEnvelope(client.PostJson("/test/echo", "\xff\xfe"), 400, "VALIDATION_ERROR");
  ExpectEnvelope(
      client.Request("POST", "/test/echo", R"({"value":1})", {{"Content-Type", "text/plain"}}), 400,
      "VALIDATION_ERROR");

  auto deep = client.PostJson("/test/echo", std::string(100, '[') + std::string(100, ']'));
  ExpectEnvelope(deep, 400, "VALIDATION_ERROR");
  EXPECT_NE(deep.body.find("nesting"), std::string::npos);

  auto invalid = client.PostJson("/test/echo", R"({"value":"x","other":1})");
  ExpectEnvelope(invalid, 400, "VALIDATION_ERROR");
  EXPECT_EQ(invalid.Json().at("errors").as_array().size(), 2u) << invalid.body;
}

TEST(HttpCore, OversizedBodyIs413) {
  TestApp app(ProbeOptions());
  // Announced size over the limit: answered before the body is read.
  auto raw = SendRaw(app.port(),
                     "POST /test/echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                     "Content-Length: 20000000\r\n\r\n{");
  auto responses = ParseResponses(raw);
  ASSERT_EQ(responses.size(), 1u) << raw;
  ExpectEnvelope(responses[0], 413, "PAYLOAD_TOO_LARGE");

  // A real oversized body through a normal client.
  auto client = app.Client();
  auto big = client.PostJson("/test/echo", std::string(11 * 1024 * 1024, ' '));
  ExpectEnvelope(big, 413, "PAYLOAD_TOO_LARGE");
  // The server is still healthy afterwards.
  EXPECT_EQ(app.Client().Get("/api/health").status, 200);
}

TEST(HttpCore, ChunkedBodyOverLimitIs413) {
  TestApp app(ProbeOptions());
  std::string request =
      "POST /test/echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
      "Transfer-Encoding: chunked\r\n\r\n";
  const std::string chunk(1024 * 1024, 'a');
  for (int i = 0; i < 11; ++i) request += "100000\r\n" + chunk + "\r\n";
  request += "0\r\n\r\n";
  auto responses = ParseResponses(SendRaw(app.port(), request));
  ASSERT_EQ(responses.size(), 1u);
  ExpectEnvelope(responses[0], 413, "PAYLOAD_TOO_LARGE");
}

TEST(HttpCore, HugeHeadersAre431) {
  TestApp app(ProbeOptions());
  auto raw = SendRaw(app.port(), "GET /api/health HTTP/1.1\r\nHost: x\r\nX-Big: " +
                                     std::string(20 * 1024, 'a') + "\r\n\r\n");
  auto responses = ParseResponses(raw);
  ASSERT_EQ(responses.size(), 1u) << raw.substr(0, 200);
  ExpectEnvelope(responses[0], 431, "VALIDATION_ERROR");
}

TEST(HttpCore, MalformedRequestsAre400) {
  TestApp app(ProbeOptions());
  for (const std::string& bad :
       {std::string("GARBAGE\r\n\r\n"), std::string("GET /api/health HTTP/9.9\r\n\r\n"),
        std::string("GET /api/health HTTP/1.1\r\nBad Header\r\n\r\n"),
        std::string("POST /test/echo HTTP/1.1\r\nContent-Length: abc\r\n\r\n"),
        std::string("GET http://[::1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")}) {
    auto responses = ParseResponses(SendRaw(app.port(), bad));
    ASSERT_EQ(responses.size(), 1u) << bad;
    ExpectEnvelope(responses[0], 400, "VALIDATION_ERROR");
  }
  auto responses = ParseResponses(
      SendRaw(app.port(), "GET /api/%00health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"));
  ASSERT_EQ(responses.size(), 1u);
  EXPECT_EQ(responses[0].status, 400);
}

TEST(HttpCore, KeepAliveAndPipelining) {
  TestApp app(ProbeOptions());
  std::string pipelined;
  for (int i = 0; i < 3; ++i) {
    pipelined +=
        "GET /api/health HTTP/1.1\r\nHost: x\r\nX-Request-Id: p" + std::to_string(i) + "\r\n\r\n";
  }
  pipelined += "GET /nowhere HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
  auto responses = ParseResponses(SendRaw(app.port(), pipelined));
  ASSERT_EQ(responses.size(), 4u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(responses[i].status, 200);
    EXPECT_EQ(responses[i].Header("X-Request-Id"), "p" + std::to_string(i));
  }
  EXPECT_EQ(responses[3].status, 404);

  auto client = app.Client();
  for (int i = 0; i < 50; ++i) ASSERT_EQ(client.Get("/api/health").status, 200);
}

TEST(HttpCore, IdleAndSlowConnectionsAreClosed) {
  TestAppOptions options = ProbeOptions();
  options.tune_server = [](http::ServerOptions& server) {
    server.idle_timeout = 500ms;
    server.request_read_timeout = 500ms;
  };
  TestApp app(std::move(options));
  const auto start = std::chrono::steady_clock::now();
  // A request that never finishes its headers.
  auto raw = SendRaw(app.port(), "GET /api/health HTTP/1.1\r\nHost: x\r\n", 10'000);
  EXPECT_TRUE(raw.empty());
  // A body that never arrives.
  SendRaw(app.port(),
          "POST /test/echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
          "Content-Length: 100\r\n\r\n{",
          10'000);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 8s);
}

TEST(HttpCore, ShutdownFinishesInFlightRequests) {
  TestApp app(ProbeOptions());
  auto in_flight = std::async(std::launch::async, [port = app.port()] {
    HttpClient client(port);
    return client.Get("/test/slow");
  });
  std::this_thread::sleep_for(200ms);
  app.app().Shutdown();
  auto result = in_flight.get();
  EXPECT_EQ(result.status, 200);
  EXPECT_EQ(result.Header("Connection"), "close");
  EXPECT_THROW(HttpClient(app.port()).Get("/api/health"), std::exception);
}

TEST(HttpCore, ShutdownClosesIdleKeepAliveConnectionsPromptly) {
  TestApp app(ProbeOptions());
  auto client = app.Client();
  ASSERT_EQ(client.Get("/api/health").status, 200);
  const auto start = std::chrono::steady_clock::now();
  app.app().Shutdown();
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
}

TEST(HttpCore, GarbageNeverYields500) {
  TestApp app(ProbeOptions());
  std::mt19937 random(12345);
  const std::vector<std::string> prefixes = {
      "GET /api/health HTTP/1.1\r\n", "POST /test/echo HTTP/1.1\r\n", "", "GET / HTTP/1.0\r\n"};
  for (int i = 0; i < 60; ++i) {
    std::string bytes = prefixes[i % prefixes.size()];
    const int length = static_cast<int>(random() % 400);
    for (int j = 0; j < length; ++j) bytes.push_back(static_cast<char>(random() % 256));
    bytes += "\r\n\r\n";
    for (const auto& response : ParseResponses(SendRaw(app.port(), bytes, 3000, true))) {
      EXPECT_LT(response.status, 500) << i;
    }
  }
  EXPECT_EQ(app.Client().Get("/api/health").status, 200);
}

}  // namespace
}  // namespace cairn::test
