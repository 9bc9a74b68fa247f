#include "http/middleware.hpp"

namespace cairn::http {

void SecurityHeaders::After(const Request&, Response& response) {
  response.headers.emplace_back("X-Content-Type-Options", "nosniff");
  response.headers.emplace_back("X-Frame-Options", "DENY");
  response.headers.emplace_back("Referrer-Policy", "no-referrer");
  bool has_cache_control = false;
  for (const auto& [name, value] : response.headers) {
    if (name == "Cache-Control") has_cache_control = true;
  }
  if (!has_cache_control) response.headers.emplace_back("Cache-Control", "no-store");
}

}  // namespace cairn::http
