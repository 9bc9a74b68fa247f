// A small blocking HTTP/1.1 client for end-to-end tests, plus raw-socket helpers for requests
// that a well-behaved client cannot send (malformed, oversized, pipelined).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <boost/json/value.hpp>

namespace cairn::test {

struct HttpResult {
  int status = 0;
  std::map<std::string, std::string> headers;  // lower-case names; a repeated header keeps one
  std::vector<std::string> set_cookies;        // every Set-Cookie value, in order
  std::string body;

  std::string Header(const std::string& name) const;
  // The body parsed as JSON (null when it is not JSON).
  boost::json::value Json() const;
  // The Set-Cookie value for cookie `name` (the whole header value, attributes included).
  std::optional<std::string> SetCookie(const std::string& name) const;
};

using Headers = std::vector<std::pair<std::string, std::string>>;

class HttpClient {
 public:
  explicit HttpClient(std::uint16_t port, std::string host = "127.0.0.1");
  ~HttpClient();

  HttpResult Request(const std::string& method, const std::string& target,
                     const std::string& body = {}, const Headers& headers = {});
  HttpResult Get(const std::string& target, const Headers& headers = {}) {
    return Request("GET", target, {}, headers);
  }
  HttpResult PostJson(const std::string& target, const std::string& json,
                      const Headers& headers = {});

 private:
  struct Impl;
  Impl* impl_;
};

// Called with every answer an HttpClient gets from the server on `port` (TestApp checks each
// against the server's OpenAPI document); an empty observer removes it.
using ResponseObserver = std::function<void(const std::string& method, const std::string& target,
                                            const HttpResult& result)>;
void SetResponseObserver(std::uint16_t port, ResponseObserver observer);
ResponseObserver ObserverOf(std::uint16_t port);

// Sends `bytes` on a fresh connection, half-closes after `close_after_send`, and returns
// everything the server wrote until it closed or `timeout_ms` passed.
std::string SendRaw(std::uint16_t port, const std::string& bytes, int timeout_ms = 5000,
                    bool close_after_send = false);

// Splits a raw byte stream into the HTTP responses it contains.
std::vector<HttpResult> ParseResponses(const std::string& raw);

}  // namespace cairn::test
