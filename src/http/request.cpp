#include "http/request.hpp"

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

}  // namespace cairn::http
