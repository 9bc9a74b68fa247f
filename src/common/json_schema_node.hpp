// Internal to the JSON Schema validator (json_schema*.cpp): the compiled node graph, shared by
// the compiler and the validator.
#pragma once

#include <cmath>
#include <cstdint>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <boost/json/value.hpp>

#include "common/json_schema.hpp"
#include "common/result.hpp"

namespace cairn::json::schema_detail {

enum TypeBit : std::uint8_t {
  kNullBit = 1,
  kBooleanBit = 2,
  kIntegerBit = 4,
  kNumberBit = 8,
  kStringBit = 16,
  kArrayBit = 32,
  kObjectBit = 64,
};

struct Pattern {
  std::string source;
  std::regex regex;
};

struct Node {
  bool has_checks = false;  // false for `true` and `{}`: always valid
  bool reject_all = false;  // the `false` schema
  std::uint8_t types = 0;   // 0: any type
  // Objects.
  std::vector<std::pair<std::string, int>> properties;  // sorted by name
  std::vector<std::string> property_order;              // as declared, for messages
  std::vector<std::string> required;
  std::vector<std::pair<Pattern, int>> pattern_properties;
  int additional = -1;
  std::optional<std::size_t> min_properties, max_properties;
  // Arrays.
  std::vector<int> prefix_items;
  int items = -1;
  std::optional<std::size_t> min_items, max_items;
  bool unique_items = false;
  // Any instance.
  std::optional<std::vector<boost::json::value>> enum_values;
  std::optional<boost::json::value> const_value;
  // Strings.
  std::optional<std::size_t> min_length, max_length;
  std::optional<Pattern> pattern;
  // Numbers.
  std::optional<double> minimum, maximum, exclusive_minimum, exclusive_maximum, multiple_of;
  // Combinators.
  std::vector<int> all_of, any_of, one_of;
  int not_schema = -1, if_schema = -1, then_schema = -1, else_schema = -1;
  int ref = -1;
  std::optional<std::string> error_message;
};

inline bool IsIntegral(const boost::json::value& v) {
  if (v.is_int64() || v.is_uint64()) return true;
  if (!v.is_double()) return false;
  const double d = v.get_double();
  return std::isfinite(d) && std::trunc(d) == d;
}

inline double AsDouble(const boost::json::value& v) {
  if (v.is_int64()) return static_cast<double>(v.get_int64());
  if (v.is_uint64()) return static_cast<double>(v.get_uint64());
  return v.get_double();
}

inline std::uint8_t KindBits(const boost::json::value& v) {
  switch (v.kind()) {
    case boost::json::kind::null:
      return kNullBit;
    case boost::json::kind::bool_:
      return kBooleanBit;
    case boost::json::kind::int64:
    case boost::json::kind::uint64:
      return kIntegerBit | kNumberBit;
    case boost::json::kind::double_:
      return IsIntegral(v) ? (kIntegerBit | kNumberBit) : kNumberBit;
    case boost::json::kind::string:
      return kStringBit;
    case boost::json::kind::array:
      return kArrayBit;
    case boost::json::kind::object:
      return kObjectBit;
  }
  return 0;
}

inline bool TypeMatches(std::uint8_t mask, const boost::json::value& v) {
  const std::uint8_t kind = KindBits(v);
  if (kind & kIntegerBit) return (mask & (kIntegerBit | kNumberBit)) != 0;
  return (mask & kind) != 0;
}

// Compiles `schema` into nodes; nodes[0] is the root.
Result<std::vector<Node>> CompileNodes(const boost::json::value& schema);

// Validates `instance` against nodes[0]. With `out` null, stops at the first failure.
bool ValidateNodes(const std::vector<Node>& nodes, const boost::json::value& instance,
                   std::vector<SchemaIssue>* out, std::string_view base_path);

}  // namespace cairn::json::schema_detail
