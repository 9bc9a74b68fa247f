#include "auth/oauth/provider_http.hpp"

#include <boost/json/parse.hpp>
#include <boost/url/encode.hpp>
#include <boost/url/rfc/unreserved_chars.hpp>

namespace cairn::auth::oauth {
namespace {

constexpr const char* kUserAgent = "cairn";
constexpr const char* kUnavailable = "The sign-in provider is unavailable";

}  // namespace

std::string FormEncode(const net::NameValues& pairs) {
  std::string out;
  for (const auto& [name, value] : pairs) {
    if (!out.empty()) out.push_back('&');
    out.append(boost::urls::encode(name, boost::urls::unreserved_chars));
    out.push_back('=');
    out.append(boost::urls::encode(value, boost::urls::unreserved_chars));
  }
  return out;
}

Result<ProviderAnswer> CallProvider(std::string_view url, const net::NameValues& headers,
                                    std::string_view form) {
  const bool https = url.starts_with("https://");
  const std::size_t authority_at = https ? 8 : 7;
  const std::size_t path_at = url.find('/', authority_at);
  const std::string_view origin = url.substr(0, path_at);
  const std::string target =
      path_at == std::string_view::npos ? "/" : std::string(url.substr(path_at));
  CAIRN_ASSIGN_OR_RETURN(const net::Endpoint endpoint, net::Endpoint::Parse(origin));

  net::HttpClient client(endpoint.host, endpoint.port, endpoint.tls, "OAuth provider",
                         kUnavailable);
  net::HttpRequest request;
  request.method = form.empty() ? "GET" : "POST";
  request.target = target;
  request.headers = headers;
  request.headers.emplace_back("Host", endpoint.Authority());
  request.headers.emplace_back("User-Agent", kUserAgent);
  if (!form.empty()) {
    request.headers.emplace_back("Content-Type", "application/x-www-form-urlencoded");
    request.body = std::string(form);
  }
  CAIRN_ASSIGN_OR_RETURN(auto response, client.Send(request));
  ProviderAnswer answer;
  answer.status = response->status();
  CAIRN_ASSIGN_OR_RETURN(answer.body, response->ReadAll(kMaxProviderResponseBytes));
  return answer;
}

Result<boost::json::object> JsonObjectAnswer(const ProviderAnswer& answer, std::string_view what) {
  if (answer.status < 200 || answer.status > 299) {
    return Error::Unavailable(
        kUnavailable, std::string(what) + " answered HTTP " + std::to_string(answer.status));
  }
  boost::system::error_code ec;
  boost::json::value value = boost::json::parse(answer.body, ec);
  if (ec || !value.is_object()) {
    return Error::Unavailable(kUnavailable, std::string(what) + " answered with no JSON object");
  }
  return std::move(value.get_object());
}

}  // namespace cairn::auth::oauth
