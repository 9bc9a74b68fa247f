// A minimal browser for redirect-driven flows (OAuth sign-in): a cookie jar per host and port,
// redirects followed, forms posted. Plain http on 127.0.0.1 only, which is where test servers
// listen. It sends Host with the port, as browsers do.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "support/http_client.hpp"

namespace cairn::test {

class Browser {
 public:
  // Requests `url` and follows redirects (at most 20) until an answer that is not a redirect, or
  // a redirect to a URL that starts with `stop_before` (that redirect is returned).
  HttpResult Go(const std::string& url, const std::string& stop_before = {});
  // POSTs an application/x-www-form-urlencoded body, then follows as Go does.
  HttpResult Submit(const std::string& url, const std::string& form,
                    const std::string& stop_before = {});

  // The URL of the last answer returned, and every URL requested so far.
  const std::string& url() const { return url_; }
  const std::vector<std::string>& visited() const { return visited_; }
  // The Cookie header this browser would send to `url`'s host and port.
  std::string CookieHeader(const std::string& url) const;
  // The `action` of the first form of an HTML page, made absolute against `page_url`.
  static std::string FormAction(const std::string& html, const std::string& page_url);

 private:
  HttpResult Follow(std::string method, std::string url, std::string body,
                    const std::string& stop_before);
  void Store(const std::string& url, const HttpResult& result);

  std::map<std::string, std::map<std::string, std::string>> jar_;  // host:port → name → value
  std::string url_;
  std::vector<std::string> visited_;
};

// `url` split as http://<host>:<port><target>; throws for anything else.
struct SplitUrl {
  std::string authority;  // host:port
  std::uint16_t port = 0;
  std::string target;  // path and query
};
SplitUrl SplitHttpUrl(const std::string& url);

}  // namespace cairn::test
