#include "http/dispatcher.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace cairn::http {
namespace {

BeastRequest MakeRequest(boost::beast::http::verb verb, std::string target, std::string body = {},
                         std::string content_type = "application/json") {
  BeastRequest request{verb, target, 11};
  if (!body.empty()) request.set(boost::beast::http::field::content_type, content_type);
  request.body() = std::move(body);
  request.prepare_payload();
  return request;
}

Dispatcher MakeDispatcher() {
  Router router;
  RouteSpec echo;
  echo.method = "POST";
  echo.pattern = "/echo/{name}";
  echo.body_schema = boost::json::parse(R"({
    "type": "object", "required": ["value"], "additionalProperties": false,
    "properties": {"value": {"type": "number"}}})");
  EXPECT_TRUE(router
                  .Add({echo,
                        [](Request& request) -> Result<Response> {
                          boost::json::object out;
                          out["name"] = request.PathParam("name");
                          out["value"] = request.json->at("value");
                          out["q"] = request.Query("q").value_or("");
                          return Response::Json(200, out);
                        }})
                  .ok());
  RouteSpec boom;
  boom.method = "GET";
  boom.pattern = "/boom";
  EXPECT_TRUE(
      router
          .Add({boom,
                [](Request&) -> Result<Response> { throw std::runtime_error("secret detail"); }})
          .ok());
  RouteSpec fails;
  fails.method = "GET";
  fails.pattern = "/fails";
  EXPECT_TRUE(
      router
          .Add({fails,
                [](Request&) -> Result<Response> { return Error::Internal("database exploded"); }})
          .ok());
  return Dispatcher(std::move(router), {std::make_shared<SecurityHeaders>()});
}

boost::json::value BodyOf(const Response& response) {
  return boost::json::parse(response.body);
}

TEST(DispatcherTest, ValidBodyReachesHandlerWithDecodedParams) {
  auto dispatcher = MakeDispatcher();
  auto raw = MakeRequest(boost::beast::http::verb::post, "/echo/a%20b?q=x%26y", R"({"value":2.5})");
  Request request;
  Response response = dispatcher.Handle(raw, request);
  ASSERT_EQ(response.status, 200) << response.body;
  // Numbers print as people write them (2.5, not 2.5E0).
  EXPECT_EQ(response.body, R"({"name":"a b","value":2.5,"q":"x&y"})");
  EXPECT_FALSE(request.request_id.empty());
}

TEST(DispatcherTest, SchemaViolationsAreFieldErrors) {
  auto dispatcher = MakeDispatcher();
  auto raw = MakeRequest(boost::beast::http::verb::post, "/echo/x", R"({"value":"no","extra":1})");
  Request request;
  Response response = dispatcher.Handle(raw, request);
  EXPECT_EQ(response.status, 400);
  auto body = BodyOf(response);
  EXPECT_EQ(body.at("success"), false);
  EXPECT_EQ(body.at("code"), "VALIDATION_ERROR");
  const auto& errors = body.at("errors").as_array();
  ASSERT_EQ(errors.size(), 2u) << response.body;
  std::set<std::string> fields;
  for (const auto& error : errors) fields.insert(std::string(error.at("field").as_string()));
  EXPECT_TRUE(fields.contains("value"));
  EXPECT_TRUE(fields.contains("extra"));
}

TEST(DispatcherTest, MalformedAndTooDeepJsonAre400) {
  auto dispatcher = MakeDispatcher();
  for (std::string body :
       {std::string("{\"value\":"), std::string(65, '[') + std::string(65, ']')}) {
    auto raw = MakeRequest(boost::beast::http::verb::post, "/echo/x", body);
    Request request;
    Response response = dispatcher.Handle(raw, request);
    EXPECT_EQ(response.status, 400) << body;
    EXPECT_EQ(BodyOf(response).at("code"), "VALIDATION_ERROR");
  }
  auto deep = MakeRequest(boost::beast::http::verb::post, "/echo/x",
                          std::string(65, '[') + std::string(65, ']'));
  Request request;
  EXPECT_NE(dispatcher.Handle(deep, request).body.find("nesting"), std::string::npos);
}

TEST(DispatcherTest, NonJsonContentTypeIsRejected) {
  auto dispatcher = MakeDispatcher();
  auto raw = MakeRequest(boost::beast::http::verb::post, "/echo/x", R"({"value":1})", "text/plain");
  Request request;
  EXPECT_EQ(dispatcher.Handle(raw, request).status, 400);
}

// JSON is UTF-8 (RFC 8259): a body declared in another charset is not read as if it were.
TEST(DispatcherTest, JsonInAnotherCharsetIsRejected) {
  auto dispatcher = MakeDispatcher();
  const std::pair<const char*, int> cases[] = {{"application/json; charset=utf-16", 400},
                                               {"application/json;charset=ISO-8859-1", 400},
                                               {"application/json; charset=UTF-8", 200},
                                               {"application/json; charset=\"utf-8\"", 200},
                                               {"application/problem+json; charset=utf-8", 200},
                                               {"application/json; foo=bar", 200}};
  for (const auto& [content_type, status] : cases) {
    auto raw =
        MakeRequest(boost::beast::http::verb::post, "/echo/x", R"({"value":1})", content_type);
    Request request;
    EXPECT_EQ(dispatcher.Handle(raw, request).status, status) << content_type;
  }
}

TEST(DispatcherTest, UnknownRouteAndMethodAre404Envelopes) {
  auto dispatcher = MakeDispatcher();
  for (auto [verb, target] : {std::pair{boost::beast::http::verb::get, "/nothing"},
                              std::pair{boost::beast::http::verb::get, "/echo/x"}}) {
    auto raw = MakeRequest(verb, target);
    Request request;
    Response response = dispatcher.Handle(raw, request);
    EXPECT_EQ(response.status, 404);
    auto body = BodyOf(response);
    EXPECT_EQ(body.at("code"), "NOT_FOUND");
    EXPECT_EQ(body.at("success"), false);
  }
}

TEST(DispatcherTest, ExceptionsAndInternalErrorsAreRedacted500s) {
  auto dispatcher = MakeDispatcher();
  for (const char* target : {"/boom", "/fails"}) {
    auto raw = MakeRequest(boost::beast::http::verb::get, target);
    Request request;
    Response response = dispatcher.Handle(raw, request);
    EXPECT_EQ(response.status, 500);
    auto body = BodyOf(response);
    EXPECT_EQ(body.at("code"), "INTERNAL_ERROR");
    EXPECT_EQ(body.at("message"), "An unexpected error occurred");
    EXPECT_EQ(response.body.find("secret"), std::string::npos);
    EXPECT_EQ(response.body.find("exploded"), std::string::npos);
  }
}

TEST(DispatcherTest, SecurityHeadersOnEveryResponse) {
  auto dispatcher = MakeDispatcher();
  auto raw = MakeRequest(boost::beast::http::verb::get, "/nothing");
  Request request;
  Response response = dispatcher.Handle(raw, request);
  bool nosniff = false;
  for (const auto& [name, value] : response.headers) {
    if (name == "X-Content-Type-Options" && value == "nosniff") nosniff = true;
  }
  EXPECT_TRUE(nosniff);
}

// A middleware that throws where the test says.
class ThrowingMiddleware final : public Middleware {
 public:
  ThrowingMiddleware(bool before, bool after) : before_(before), after_(after) {}
  std::optional<Response> Before(Request&, const RouteSpec&) override {
    if (before_) throw std::runtime_error("middleware secret");
    return std::nullopt;
  }
  void After(const Request&, Response&) override {
    if (after_) throw std::runtime_error("middleware secret");
  }

 private:
  bool before_, after_;
};

TEST(DispatcherTest, ExceptionsInMiddlewareBecomeThe500Envelope) {
  for (const auto& [before, after] : {std::pair{true, false}, {false, true}, {true, true}}) {
    Router router;
    RouteSpec spec;
    spec.method = "GET";
    spec.pattern = "/ok";
    ASSERT_TRUE(router
                    .Add({spec,
                          [](Request&) -> Result<Response> {
                            return Response::Json(200, boost::json::object{});
                          }})
                    .ok());
    Dispatcher dispatcher(std::move(router), {std::make_shared<ThrowingMiddleware>(before, after)});
    auto raw = MakeRequest(boost::beast::http::verb::get, "/ok");
    Request request;
    Response response = dispatcher.Handle(raw, request);
    EXPECT_EQ(response.status, 500) << before << after;
    EXPECT_EQ(BodyOf(response).at("code"), "INTERNAL_ERROR");
    EXPECT_EQ(response.body.find("secret"), std::string::npos);
  }
}

TEST(DispatcherTest, ErrorsWorthRetryingCarryRetryAfter) {
  Error timeout = Error::Unavailable("The database took too long");
  timeout.retry_after_seconds = 5;
  Response response = Response::FromError(timeout);
  EXPECT_EQ(response.status, 503);
  ASSERT_EQ(response.headers.size(), 1u);
  EXPECT_EQ(response.headers[0].first, "Retry-After");
  EXPECT_EQ(response.headers[0].second, "5");
  EXPECT_TRUE(Response::FromError(Error::Unavailable("down")).headers.empty());
}

TEST(DispatcherTest, NulInAQueryParameterIsRefused) {
  auto dispatcher = MakeDispatcher();
  for (const char* target : {"/fails?token=a%00b", "/fails?a%00=1"}) {
    auto raw = MakeRequest(boost::beast::http::verb::get, target);
    Request request;
    Response response = dispatcher.Handle(raw, request);
    EXPECT_EQ(response.status, 400) << target;
    EXPECT_NE(response.body.find("NUL"), std::string::npos) << target;
  }
}

TEST(DispatcherTest, TwoAuthorizationHeadersAreRefused) {
  auto dispatcher = MakeDispatcher();
  auto raw = MakeRequest(boost::beast::http::verb::get, "/fails");
  raw.insert(boost::beast::http::field::authorization, "Bearer a");
  raw.insert(boost::beast::http::field::authorization, "Bearer b");
  Request request;
  Response response = dispatcher.Handle(raw, request);
  EXPECT_EQ(response.status, 400);
  EXPECT_NE(response.body.find("Authorization"), std::string::npos);
}

TEST(DispatcherTest, RequestIdIsKeptWhenSafeAndReplacedOtherwise) {
  EXPECT_EQ(MakeRequestId("abc-123"), "abc-123");
  EXPECT_EQ(MakeRequestId("bad id\n").size(), 32u);
  EXPECT_EQ(MakeRequestId(std::string(300, 'a')).size(), 32u);
  EXPECT_NE(MakeRequestId(""), MakeRequestId(""));
}

// A published schema swaps the route table: a request routed before the swap finishes on the old
// table (its handler's state alive), every request routed after it sees the new one.
TEST(DispatcherTest, SwappedRouterServesLaterRequestsAndKeepsRoutedOnesAlive) {
  auto version_router = [](std::string version) {
    auto label = std::make_shared<std::string>(std::move(version));
    Router router;
    RouteSpec spec;
    spec.method = "GET";
    spec.pattern = "/version";
    EXPECT_TRUE(router
                    .Add({spec,
                          [label](Request&) -> Result<Response> {
                            return Response::Json(200, boost::json::object{{"v", *label}});
                          }})
                    .ok());
    return std::make_shared<const Router>(std::move(router));
  };
  Dispatcher dispatcher(version_router("1"), {});
  auto first_raw = MakeRequest(boost::beast::http::verb::get, "/version");
  Request first;
  Dispatcher::Routed routed = dispatcher.Route(first_raw, first);
  ASSERT_NE(routed.route, nullptr);
  const std::uint64_t old_generation = routed.router->generation();

  dispatcher.SwapRouter(version_router("2"));
  EXPECT_EQ(dispatcher.Run(*routed.route, first).body, R"({"v":"1"})");
  EXPECT_EQ(first.router, routed.router.get());

  auto second_raw = MakeRequest(boost::beast::http::verb::get, "/version");
  Request second;
  EXPECT_EQ(dispatcher.Handle(second_raw, second).body, R"({"v":"2"})");
  EXPECT_NE(second.router->generation(), old_generation);
}

// Records the order it runs in (`name` + ">" before, "<" + `name` after).
class TraceMiddleware final : public Middleware {
 public:
  TraceMiddleware(std::string name, std::shared_ptr<std::string> trace)
      : name_(std::move(name)), trace_(std::move(trace)) {}
  std::optional<Response> Before(Request&, const RouteSpec&) override {
    *trace_ += name_ + ">";
    return std::nullopt;
  }
  void After(const Request&, Response&) override { *trace_ += "<" + name_; }

 private:
  std::string name_;
  std::shared_ptr<std::string> trace_;
};

TEST(DispatcherTest, ARouteTableCarriesItsVersionsMiddlewareAfterTheGlobalChain) {
  auto trace = std::make_shared<std::string>();
  auto router_with = [trace](std::string layer) {
    Router router;
    RouteSpec spec;
    spec.method = "GET";
    spec.pattern = "/v";
    EXPECT_TRUE(router
                    .Add({spec,
                          [trace](Request&) -> Result<Response> {
                            *trace += "handler";
                            return Response::Json(200, boost::json::object{});
                          }})
                    .ok());
    router.SetMiddleware({std::make_shared<TraceMiddleware>(std::move(layer), trace)});
    return std::make_shared<const Router>(std::move(router));
  };
  Dispatcher dispatcher(router_with("v1"), {std::make_shared<TraceMiddleware>("global", trace)});
  auto first_raw = MakeRequest(boost::beast::http::verb::get, "/v");
  Request first;
  Dispatcher::Routed routed = dispatcher.Route(first_raw, first);
  ASSERT_NE(routed.route, nullptr);
  // A request routed before the swap meets the layers of its own table, nested in the global.
  dispatcher.SwapRouter(router_with("v2"));
  EXPECT_EQ(dispatcher.Run(*routed.route, first).status, 200);
  EXPECT_EQ(*trace, "global>v1>handler<v1<global");
  trace->clear();
  auto second_raw = MakeRequest(boost::beast::http::verb::get, "/v");
  Request second;
  EXPECT_EQ(dispatcher.Handle(second_raw, second).status, 200);
  EXPECT_EQ(*trace, "global>v2>handler<v2<global");
  // An unknown route still meets the table's After (the request was routed by it).
  trace->clear();
  auto missing_raw = MakeRequest(boost::beast::http::verb::get, "/nope");
  Request missing;
  EXPECT_EQ(dispatcher.Handle(missing_raw, missing).status, 404);
  EXPECT_EQ(*trace, "<v2<global");
}

}  // namespace
}  // namespace cairn::http
