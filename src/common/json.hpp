// JSON output helpers. Doubles print in their shortest round-trip form (`2.5`, not `2.5E0`).
#pragma once

#include <string>
#include <string_view>

#include <boost/json/value.hpp>

namespace cairn::json {

// Appends `value` as compact JSON.
void Append(std::string& out, const boost::json::value& value);
// Appends `text` as a quoted, escaped JSON string.
void AppendString(std::string& out, std::string_view text);
// Appends a double; non-finite values become null (JSON has no NaN or Infinity).
void AppendDouble(std::string& out, double number);

std::string Serialize(const boost::json::value& value);
// Indented with two spaces, for people and editors.
std::string SerializePretty(const boost::json::value& value);

// Escapes one key for a key path: `name` stays `name`, anything else becomes `["…"]`.
std::string PathKey(std::string_view parent, std::string_view key);
// `parent[index]`.
std::string PathIndex(std::string_view parent, std::size_t index);

}  // namespace cairn::json
