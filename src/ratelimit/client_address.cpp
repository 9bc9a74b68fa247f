#include "ratelimit/client_address.hpp"

#include <algorithm>
#include <optional>

#include "common/text.hpp"
#include "ratelimit/limits.hpp"

namespace cairn::ratelimit {
namespace {

namespace ip = boost::asio::ip;

// IPv6 prefix length of the IPv4-mapped range ::ffff:0:0/96.
constexpr unsigned short kMappedPrefix = 96;

// One X-Forwarded-For hop: an address, optionally bracketed (IPv6) and followed by a port.
// Scope ids (`%eth0`) mean nothing beyond one host and are refused.
std::optional<ip::address> ParseHop(std::string_view hop) {
  hop = text::TrimOws(hop);
  if (hop.empty() || hop.find('%') != std::string_view::npos) return std::nullopt;
  ip::address address;
  if (hop.front() == '[') {
    const std::size_t close = hop.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    const std::string_view rest = hop.substr(close + 1);
    if (!rest.empty() && rest.front() != ':') return std::nullopt;
    hop = hop.substr(1, close - 1);
  } else if (std::count(hop.begin(), hop.end(), ':') == 1) {
    hop = hop.substr(0, hop.find(':'));  // IPv4 with a port
  }
  if (!ParseAddress(hop, address)) return std::nullopt;
  return address;
}

Status AddEntry(std::string_view entry, std::vector<ip::network_v4>& v4,
                std::vector<ip::network_v6>& v6) {
  const auto invalid = [&] {
    return Error::Validation("TRUSTED_PROXIES: '" + std::string(entry) +
                             "' is not an IP address or CIDR range");
  };
  if (entry.find('%') != std::string_view::npos) return invalid();  // no scope ids
  const std::size_t slash = entry.find('/');
  boost::system::error_code ec;
  if (slash == std::string_view::npos) {
    ip::address address;
    if (!ParseAddress(entry, address)) return invalid();
    if (address.is_v4()) {
      v4.emplace_back(address.to_v4(), 32);
    } else {
      v6.emplace_back(address.to_v6(), 128);
    }
    return {};
  }
  if (entry.find(':') == std::string_view::npos) {
    const ip::network_v4 network = ip::make_network_v4(entry, ec);
    if (ec) return invalid();
    v4.push_back(network.canonical());
    return {};
  }
  const ip::network_v6 network = ip::make_network_v6(entry, ec);
  if (ec) return invalid();
  const ip::address_v6 base = network.address();
  if (base.is_v4_mapped() && network.prefix_length() >= kMappedPrefix) {
    const ip::address_v4 v4_base = ip::make_address_v4(ip::v4_mapped, base);
    v4.push_back(ip::network_v4(
                     v4_base, static_cast<unsigned short>(network.prefix_length() - kMappedPrefix))
                     .canonical());
    return {};
  }
  v6.push_back(network.canonical());
  return {};
}

}  // namespace

bool ParseAddress(std::string_view text, ip::address& out) {
  boost::system::error_code ec;
  ip::address address = ip::make_address(text, ec);
  if (ec) return false;
  if (address.is_v6() && address.to_v6().is_v4_mapped()) {
    address = ip::make_address_v4(ip::v4_mapped, address.to_v6());
  }
  out = address;
  return true;
}

Result<TrustedProxies> TrustedProxies::Parse(std::string_view comma_separated) {
  TrustedProxies proxies;
  std::size_t start = 0;
  while (start <= comma_separated.size()) {
    std::size_t comma = comma_separated.find(',', start);
    if (comma == std::string_view::npos) comma = comma_separated.size();
    const std::string_view entry = text::TrimOws(comma_separated.substr(start, comma - start));
    if (!entry.empty()) CAIRN_TRY(AddEntry(entry, proxies.v4_, proxies.v6_));
    start = comma + 1;
  }
  return proxies;
}

bool TrustedProxies::Contains(const ip::address& address) const {
  if (address.is_v4()) {
    const ip::address_v4 v4 = address.to_v4();
    return std::any_of(v4_.begin(), v4_.end(), [&](const ip::network_v4& network) {
      return ip::network_v4(v4, network.prefix_length()).canonical() == network;
    });
  }
  ip::address_v6 v6 = address.to_v6();
  v6.scope_id(0);
  return std::any_of(v6_.begin(), v6_.end(), [&](const ip::network_v6& network) {
    return ip::network_v6(v6, network.prefix_length()).canonical() == network;
  });
}

std::string RateLimitKeyOf(std::string_view client_address) {
  boost::system::error_code ec;
  const auto address = boost::asio::ip::make_address_v6(std::string(client_address), ec);
  if (ec || address.is_v4_mapped()) return std::string(client_address);
  return boost::asio::ip::network_v6(address, 64).canonical().to_string();
}

std::string TrustedProxies::ClientAddress(std::string_view peer,
                                          std::string_view x_forwarded_for) const {
  ip::address peer_address;
  if (!ParseAddress(peer, peer_address)) return std::string(peer);
  if (!Contains(peer_address)) return peer_address.to_string();

  std::optional<ip::address> leftmost_valid;
  std::size_t end = x_forwarded_for.size();
  for (int hops = 0; hops < kMaxForwardedHops; ++hops) {
    const std::size_t comma = x_forwarded_for.rfind(',', end == 0 ? 0 : end - 1);
    const bool last = comma == std::string_view::npos || end == 0;
    const std::size_t start = last ? 0 : comma + 1;
    if (auto hop = ParseHop(x_forwarded_for.substr(start, end - start))) {
      if (!Contains(*hop)) return hop->to_string();
      leftmost_valid = *hop;
    }
    if (last) break;
    end = comma;
  }
  return (leftmost_valid ? *leftmost_valid : peer_address).to_string();
}

}  // namespace cairn::ratelimit
