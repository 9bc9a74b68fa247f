// Small accessors for walking a config document that may not have passed the schema: each returns
// nothing when the value is absent or of the wrong kind.
#pragma once

#include <algorithm>
#include <cctype>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json/value.hpp>

#include "common/json_schema.hpp"

namespace cairn::config::checks {

using boost::json::array;
using boost::json::object;
using boost::json::value;

template <std::size_t N>
bool Contains(const std::string_view (&list)[N], std::string_view word) {
  return std::find(std::begin(list), std::end(list), word) != std::end(list);
}

inline const object* AsObject(const value* v) {
  return v && v->is_object() ? &v->get_object() : nullptr;
}

inline const array* ArrayAt(const object& o, std::string_view key) {
  const value* v = o.if_contains(key);
  return v && v->is_array() ? &v->get_array() : nullptr;
}

inline std::optional<std::string_view> StringAt(const object& o, std::string_view key) {
  const value* v = o.if_contains(key);
  if (v && v->is_string()) return std::string_view(v->get_string());
  return std::nullopt;
}

inline std::optional<double> NumberAt(const object& o, std::string_view key) {
  const value* v = o.if_contains(key);
  if (!v || !v->is_number()) return std::nullopt;
  if (v->is_int64()) return static_cast<double>(v->get_int64());
  if (v->is_uint64()) return static_cast<double>(v->get_uint64());
  return v->get_double();
}

inline std::string Lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

inline std::string Join(const std::vector<std::string>& words) {
  std::string out;
  for (std::size_t i = 0; i < words.size(); ++i) {
    if (i > 0) out += ", ";
    out += words[i];
  }
  return out;
}

inline std::string Hint(std::string_view word, const std::vector<std::string>& candidates) {
  if (auto hint = json::SuggestClosest(word, candidates)) return " (did you mean '" + *hint + "'?)";
  return {};
}

// A table or view id as comparable text: 7 and "7" are the same id.
inline std::optional<std::string> IdText(const value* v) {
  if (!v) return std::nullopt;
  if (v->is_string()) return std::string(v->get_string());
  if (v->is_int64()) return std::to_string(v->get_int64());
  if (v->is_uint64()) return std::to_string(v->get_uint64());
  return std::nullopt;
}

}  // namespace cairn::config::checks
