#include "storage/file_path.hpp"

#include "common/text.hpp"
#include "storage/limits.hpp"

namespace cairn::storage {
namespace {

char Lower(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

// A segment that is `.` or `..`, written plainly or percent-encoded (`%2e%2E`), which a second
// decoding (a proxy, a client library) would turn into a traversal.
bool IsDotSegment(std::string_view segment) {
  std::size_t dots = 0;
  for (std::size_t i = 0; i < segment.size(); ++dots) {
    if (segment[i] == '.') {
      ++i;
    } else if (segment.size() - i >= 3 && segment[i] == '%' && segment[i + 1] == '2' &&
               Lower(segment[i + 2]) == 'e') {
      i += 3;
    } else {
      return false;
    }
  }
  return dots == 1 || dots == 2;
}

bool IsControl(char c) {
  const auto byte = static_cast<unsigned char>(c);
  return byte < 0x20 || byte == 0x7f;
}

// An encoded separator (`%2F`, `%5C`) that a second decoding would turn into one.
bool HasEncodedSeparator(std::string_view path) {
  for (std::size_t i = 0; i + 2 < path.size(); ++i) {
    if (path[i] != '%') continue;
    const char hi = path[i + 1];
    const char lo = Lower(path[i + 2]);
    if ((hi == '2' && lo == 'f') || (hi == '5' && lo == 'c')) return true;
  }
  return false;
}

std::optional<std::string> TextProblem(std::string_view text) {
  if (text.size() > kMaxPathBytes) {
    return "must be at most " + std::to_string(kMaxPathBytes) + " bytes long";
  }
  if (!text::IsValidUtf8(text)) return "must be valid UTF-8";
  for (char c : text) {
    if (c == '\0') return "must not contain NUL";
    if (IsControl(c)) return "must not contain control characters";
    if (c == '\\') return "must use / between folders, not \\";
  }
  if (HasEncodedSeparator(text)) return "must not contain an encoded / or \\ (%2F, %5C)";
  if (text.front() == '/') return "must be relative (no leading /)";
  return std::nullopt;
}

// Checks the segments of `text` (empty segments refused; a last empty one only when allowed).
std::optional<std::string> SegmentProblem(std::string_view text, bool trailing_slash_allowed) {
  std::size_t start = 0;
  while (true) {
    const std::size_t slash = text.find('/', start);
    const bool last = slash == std::string_view::npos;
    const std::string_view segment =
        text.substr(start, last ? std::string_view::npos : slash - start);
    if (segment.empty() && !(last && trailing_slash_allowed)) {
      return "must not contain empty segments (// or a trailing /)";
    }
    if (IsDotSegment(segment)) return "must not contain . or .. segments";
    if (last) return std::nullopt;
    start = slash + 1;
  }
}

Status Refuse(std::string_view field, std::string_view what, const std::string& problem) {
  return Error::Validation("Invalid " + std::string(what),
                           {{std::string(field), std::string(what) + " " + problem}});
}

}  // namespace

std::optional<std::string> PathProblem(std::string_view path) {
  if (path.empty()) return "must not be empty";
  if (auto problem = TextProblem(path)) return problem;
  return SegmentProblem(path, false);
}

Status CheckPath(std::string_view path, std::string_view field) {
  if (auto problem = PathProblem(path)) return Refuse(field, "path", *problem);
  return {};
}

Status CheckPrefix(std::string_view prefix, std::string_view field) {
  if (prefix.empty()) return {};
  if (auto problem = TextProblem(prefix)) return Refuse(field, "prefix", *problem);
  if (auto problem = SegmentProblem(prefix, true)) return Refuse(field, "prefix", *problem);
  return {};
}

}  // namespace cairn::storage
