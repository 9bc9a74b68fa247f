// Outgoing calls to OAuth providers (token, user info, discovery, JWKS) over the shared HTTP
// client (src/net: certificates verified, connect and I/O timeouts). Each answer is read up to
// kMaxProviderResponseBytes; a bigger one is an error.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>

#include <boost/json/value.hpp>

#include "common/result.hpp"
#include "net/http_client.hpp"

namespace cairn::auth::oauth {

// A token, user info, discovery or JWKS answer is a few kilobytes; this is ample.
inline constexpr std::size_t kMaxProviderResponseBytes = 256 * 1024;

struct ProviderAnswer {
  unsigned status = 0;
  std::string body;
};

// GET `url` (or POST `form` as application/x-www-form-urlencoded when it is not empty).
// Network failures and oversized answers are Error::Unavailable.
Result<ProviderAnswer> CallProvider(std::string_view url, const net::NameValues& headers,
                                    std::string_view form = {});

// The answer's body as a JSON object; a non-2xx status or another body is an error naming `what`.
Result<boost::json::object> JsonObjectAnswer(const ProviderAnswer& answer, std::string_view what);

// application/x-www-form-urlencoded of these pairs.
std::string FormEncode(const net::NameValues& pairs);

}  // namespace cairn::auth::oauth
