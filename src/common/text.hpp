// Checks on client text shared by every input path (bodies, query parameters, field values).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace cairn::text {

// Length of the well-formed UTF-8 sequence starting at text[i] (no overlong forms, surrogates or
// code points above U+10FFFF), or 0 when it is malformed.
std::size_t Utf8SequenceLength(std::string_view text, std::size_t i);
bool IsValidUtf8(std::string_view text);
// Code points of valid UTF-8 text (what limits in characters count).
std::size_t CodePoints(std::string_view text);
// Appends `text` percent-encoded as RFC 3986 says: unreserved characters (A-Z a-z 0-9 - . _ ~)
// stay, every other byte becomes %XX (upper-case hex); with `keep_slash`, `/` stays too (a path).
void AppendPercentEncoded(std::string_view text, std::string& out, bool keep_slash);

// PostgreSQL cannot store NUL (U+0000) in text and SQLite's C API cuts strings at it, so no
// client text may hold one.
inline bool ContainsNul(std::string_view text) {
  return text.find('\0') != std::string_view::npos;
}

// `text` without the spaces and tabs around it (HTTP's optional whitespace, RFC 9110 5.6.3).
inline std::string_view TrimOws(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

}  // namespace cairn::text
