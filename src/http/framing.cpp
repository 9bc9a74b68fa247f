#include "http/framing.hpp"

#include <boost/url/parse.hpp>

#include "common/text.hpp"

namespace cairn::http {
namespace {

namespace bhttp = boost::beast::http;

bool EqualsIgnoringCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

// host = uri-host [ ":" port ] (RFC 9110 §7.2): a reg-name, IPv4 or IP-literal, no user info.
bool IsValidHost(std::string_view value) {
  if (value.empty() || value.find('@') != std::string_view::npos) return false;
  auto authority = boost::urls::parse_authority(value);
  return authority.has_value() && !authority->host().empty();
}

}  // namespace

std::optional<Error> CheckFraming(const BeastRequest& request) {
  const auto [te_begin, te_end] = request.equal_range(bhttp::field::transfer_encoding);
  if (te_begin != te_end) {
    if (request.version() < 11) {
      return Error::Validation("Transfer-Encoding is not allowed in an HTTP/1.0 request");
    }
    if (std::next(te_begin) != te_end ||
        !EqualsIgnoringCase(text::TrimOws(te_begin->value()), "chunked")) {
      return Error::Validation("Transfer-Encoding must be exactly \"chunked\"");
    }
    if (request.count(bhttp::field::content_length) != 0) {
      return Error::Validation(
          "A request must not carry both Transfer-Encoding and Content-Length");
    }
  }
  if (request.version() >= 11) {
    const auto [host_begin, host_end] = request.equal_range(bhttp::field::host);
    if (host_begin == host_end) return Error::Validation("An HTTP/1.1 request needs a Host header");
    if (std::next(host_begin) != host_end) {
      return Error::Validation("A request must carry exactly one Host header");
    }
    if (!IsValidHost(text::TrimOws(host_begin->value()))) {
      return Error::Validation("The Host header is not a valid host[:port]");
    }
  }
  return std::nullopt;
}

}  // namespace cairn::http
