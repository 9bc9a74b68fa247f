// Who the client is (D16): the socket peer, unless the peer is a trusted proxy (TRUSTED_PROXIES);
// then the right-most X-Forwarded-For hop that is not itself a trusted proxy.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <boost/asio/ip/address.hpp>
#include <boost/asio/ip/network_v4.hpp>
#include <boost/asio/ip/network_v6.hpp>

#include "common/result.hpp"

namespace cairn::ratelimit {

// The part of a client address its rate-limit counters are kept under (D16): an IPv6 address by
// its /64 prefix (`2001:db8:1:2::/64`; one subscriber usually holds a whole /64, so per-address
// keys would let it pick a fresh key per request), anything else as it is.
std::string RateLimitKeyOf(std::string_view client_address);

class TrustedProxies {
 public:
  // No proxy is trusted: the client is always the socket peer.
  TrustedProxies() = default;

  // `10.0.0.1, 10.1.0.0/16, ::1, fd00::/8`: IPv4 and IPv6 addresses and CIDR ranges separated
  // by commas (blanks around entries and empty entries are ignored). IPv4-mapped IPv6 entries
  // (::ffff:10.0.0.1, ::ffff:10.0.0.0/104) are taken as IPv4. A bad entry is a validation error
  // naming it.
  static Result<TrustedProxies> Parse(std::string_view comma_separated);

  bool empty() const { return v4_.empty() && v6_.empty(); }
  bool Contains(const boost::asio::ip::address& address) const;

  // The client address for a request from `peer` carrying `x_forwarded_for` (all the request's
  // X-Forwarded-For values joined by commas; empty when absent):
  //  - the peer when it is not trusted (an untrusted client cannot choose its address);
  //  - else the first hop, walking X-Forwarded-For from the right, that is a valid address and
  //    not a trusted proxy (each proxy appends the address it saw, so that hop is the first
  //    one no client could write);
  //  - when every hop is trusted or malformed: the left-most valid hop, else the peer.
  // Addresses are returned in canonical text (IPv6 compressed and lowercase; IPv4-mapped IPv6
  // as IPv4), so one client always gets one key. A peer that is not an IP address is returned
  // as it is. Hops may carry a port (`1.2.3.4:5678`, `[2001:db8::1]:443`).
  std::string ClientAddress(std::string_view peer, std::string_view x_forwarded_for) const;

 private:
  std::vector<boost::asio::ip::network_v4> v4_;  // canonical (host bits cleared)
  std::vector<boost::asio::ip::network_v6> v6_;
};

// Parses one address (no port, no brackets) and turns IPv4-mapped IPv6 into IPv4. False when
// `text` is not an IP address.
bool ParseAddress(std::string_view text, boost::asio::ip::address& out);

}  // namespace cairn::ratelimit
