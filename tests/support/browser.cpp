#include "support/browser.hpp"

#include <cctype>
#include <stdexcept>

namespace cairn::test {
namespace {

constexpr int kMaxRedirects = 20;

bool IsRedirect(int status) {
  return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
}

std::string Lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

std::string Resolve(const std::string& base, const std::string& location) {
  if (location.starts_with("http://") || location.starts_with("https://")) return location;
  const SplitUrl split = SplitHttpUrl(base);
  if (location.starts_with('/')) return "http://" + split.authority + location;
  const std::string path = split.target.substr(0, split.target.find('?'));
  return "http://" + split.authority + path.substr(0, path.rfind('/') + 1) + location;
}

std::string HtmlUnescape(std::string text) {
  for (const auto& [entity, plain] : {std::pair{"&amp;", "&"}, std::pair{"&#x2F;", "/"},
                                      std::pair{"&#47;", "/"}, std::pair{"&quot;", "\""}}) {
    for (std::size_t at = text.find(entity); at != std::string::npos; at = text.find(entity)) {
      text.replace(at, std::string_view(entity).size(), plain);
    }
  }
  return text;
}

}  // namespace

SplitUrl SplitHttpUrl(const std::string& url) {
  if (!url.starts_with("http://")) throw std::runtime_error("not an http URL: " + url);
  const std::size_t path_at = url.find('/', 7);
  SplitUrl out;
  out.authority = url.substr(7, path_at == std::string::npos ? std::string::npos : path_at - 7);
  out.target = path_at == std::string::npos ? "/" : url.substr(path_at);
  const std::size_t colon = out.authority.rfind(':');
  out.port = colon == std::string::npos
                 ? 80
                 : static_cast<std::uint16_t>(std::stoi(out.authority.substr(colon + 1)));
  return out;
}

std::string Browser::CookieHeader(const std::string& url) const {
  const auto found = jar_.find(SplitHttpUrl(url).authority);
  std::string out;
  if (found == jar_.end()) return out;
  for (const auto& [name, value] : found->second) {
    if (!out.empty()) out += "; ";
    out += name + "=" + value;
  }
  return out;
}

void Browser::Store(const std::string& url, const HttpResult& result) {
  auto& cookies = jar_[SplitHttpUrl(url).authority];
  for (const std::string& header : result.set_cookies) {
    const std::string pair = header.substr(0, header.find(';'));
    const std::size_t equals = pair.find('=');
    if (equals == std::string::npos) continue;
    const std::string name = pair.substr(0, equals);
    const std::string value = pair.substr(equals + 1);
    const std::string attributes = Lower(header);
    const bool expired = attributes.find("max-age=0") != std::string::npos ||
                         attributes.find("expires=thu, 01 jan 1970") != std::string::npos;
    if (expired || value.empty()) {
      cookies.erase(name);
    } else {
      cookies[name] = value;
    }
  }
}

HttpResult Browser::Follow(std::string method, std::string url, std::string body,
                           const std::string& stop_before) {
  for (int hop = 0; hop <= kMaxRedirects; ++hop) {
    const SplitUrl split = SplitHttpUrl(url);
    HttpClient client(split.port);
    Headers headers{{"Host", split.authority}};
    if (const std::string cookie = CookieHeader(url); !cookie.empty()) {
      headers.emplace_back("Cookie", cookie);
    }
    if (method == "POST") {
      headers.emplace_back("Content-Type", "application/x-www-form-urlencoded");
      headers.emplace_back("Origin", "http://" + split.authority);
    }
    visited_.push_back(url);
    HttpResult result = client.Request(method, split.target, body, headers);
    Store(url, result);
    url_ = url;
    if (!IsRedirect(result.status)) return result;
    const std::string next = Resolve(url, result.Header("location"));
    if (!stop_before.empty() && next.starts_with(stop_before)) return result;
    url = next;
    method = "GET";
    body.clear();
  }
  throw std::runtime_error("too many redirects");
}

HttpResult Browser::Go(const std::string& url, const std::string& stop_before) {
  return Follow("GET", url, {}, stop_before);
}

HttpResult Browser::Submit(const std::string& url, const std::string& form,
                           const std::string& stop_before) {
  return Follow("POST", url, form, stop_before);
}

std::string Browser::FormAction(const std::string& html, const std::string& page_url) {
  const std::size_t form = html.find("<form");
  const std::size_t action = html.find("action=\"", form);
  if (form == std::string::npos || action == std::string::npos) {
    throw std::runtime_error("no form on the page: " + html.substr(0, 500));
  }
  const std::size_t start = action + 8;
  return Resolve(page_url, HtmlUnescape(html.substr(start, html.find('"', start) - start)));
}

}  // namespace cairn::test
