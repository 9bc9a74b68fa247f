#include "http/request.hpp"

#include <algorithm>

namespace cairn::http {

std::string_view Request::Header(std::string_view name) const {
  if (raw == nullptr) return {};
  auto it = raw->find(name);
  if (it == raw->end()) return {};
  return it->value();
}

std::optional<std::string_view> Request::Query(std::string_view name) const {
  for (const auto& [key, value] : query) {
    if (key == name) return std::string_view(value);
  }
  return std::nullopt;
}

std::string_view Request::PathParam(std::string_view name) const {
  for (const auto& [key, value] : path_params) {
    if (key == name) return value;
  }
  return {};
}

std::optional<std::string_view> Request::Cookie(std::string_view name) const {
  if (raw == nullptr) return std::nullopt;
  auto [it, end] = raw->equal_range(boost::beast::http::field::cookie);
  for (; it != end; ++it) {
    std::string_view header = it->value();
    while (!header.empty()) {
      const std::size_t end = std::min(header.find(';'), header.size());
      std::string_view pair = header.substr(0, end);
      header.remove_prefix(end == header.size() ? end : end + 1);
      while (!pair.empty() && pair.front() == ' ') pair.remove_prefix(1);
      const std::size_t equals = pair.find('=');
      if (equals == std::string_view::npos || pair.substr(0, equals) != name) continue;
      std::string_view value = pair.substr(equals + 1);
      while (!value.empty() && value.back() == ' ') value.remove_suffix(1);
      if (value.size() >= 2 && value.front() == '"' && value.back() == '"') {
        value = value.substr(1, value.size() - 2);
      }
      return value;
    }
  }
  return std::nullopt;
}

}  // namespace cairn::http
