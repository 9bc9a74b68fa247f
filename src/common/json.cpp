#include "common/json.hpp"

#include <array>
#include <charconv>
#include <cmath>

namespace cairn::json {
namespace {

constexpr char kHex[] = "0123456789abcdef";

bool IsPlainKey(std::string_view key) {
  if (key.empty()) return false;
  for (char c : key) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '-')) {
      return false;
    }
  }
  return true;
}

}  // namespace

void AppendString(std::string& out, std::string_view text) {
  out.push_back('"');
  std::size_t run_start = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out.append(text.data() + run_start, i - run_start);
    run_start = i + 1;
    switch (c) {
      case '"':
        out.append("\\\"");
        break;
      case '\\':
        out.append("\\\\");
        break;
      case '\n':
        out.append("\\n");
        break;
      case '\r':
        out.append("\\r");
        break;
      case '\t':
        out.append("\\t");
        break;
      case '\b':
        out.append("\\b");
        break;
      case '\f':
        out.append("\\f");
        break;
      default: {
        const char escaped[] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 0xF]};
        out.append(escaped, sizeof escaped);
      }
    }
  }
  out.append(text.data() + run_start, text.size() - run_start);
  out.push_back('"');
}

void AppendDouble(std::string& out, double number) {
  if (!std::isfinite(number)) {
    out.append("null");
    return;
  }
  std::array<char, 32> buffer;
  auto [end, ec] = std::to_chars(buffer.data(), buffer.data() + buffer.size(), number);
  out.append(buffer.data(), end);
}

void Append(std::string& out, const boost::json::value& value) {
  switch (value.kind()) {
    case boost::json::kind::null:
      out.append("null");
      break;
    case boost::json::kind::bool_:
      out.append(value.get_bool() ? "true" : "false");
      break;
    case boost::json::kind::int64: {
      std::array<char, 24> buffer;
      auto [end, ec] =
          std::to_chars(buffer.data(), buffer.data() + buffer.size(), value.get_int64());
      out.append(buffer.data(), end);
      break;
    }
    case boost::json::kind::uint64: {
      std::array<char, 24> buffer;
      auto [end, ec] =
          std::to_chars(buffer.data(), buffer.data() + buffer.size(), value.get_uint64());
      out.append(buffer.data(), end);
      break;
    }
    case boost::json::kind::double_:
      AppendDouble(out, value.get_double());
      break;
    case boost::json::kind::string:
      AppendString(out, value.get_string());
      break;
    case boost::json::kind::array: {
      out.push_back('[');
      bool first = true;
      for (const auto& item : value.get_array()) {
        if (!first) out.push_back(',');
        first = false;
        Append(out, item);
      }
      out.push_back(']');
      break;
    }
    case boost::json::kind::object: {
      out.push_back('{');
      bool first = true;
      for (const auto& member : value.get_object()) {
        if (!first) out.push_back(',');
        first = false;
        AppendString(out, member.key());
        out.push_back(':');
        Append(out, member.value());
      }
      out.push_back('}');
      break;
    }
  }
}

std::string Serialize(const boost::json::value& value) {
  std::string out;
  Append(out, value);
  return out;
}

namespace {

void AppendPretty(std::string& out, const boost::json::value& value, int depth) {
  const auto indent = [&out](int level) { out.append(static_cast<std::size_t>(level) * 2, ' '); };
  if (value.is_object() && !value.get_object().empty()) {
    out.append("{\n");
    bool first = true;
    for (const auto& member : value.get_object()) {
      if (!first) out.append(",\n");
      first = false;
      indent(depth + 1);
      AppendString(out, member.key());
      out.append(": ");
      AppendPretty(out, member.value(), depth + 1);
    }
    out.push_back('\n');
    indent(depth);
    out.push_back('}');
  } else if (value.is_array() && !value.get_array().empty()) {
    out.append("[\n");
    bool first = true;
    for (const auto& item : value.get_array()) {
      if (!first) out.append(",\n");
      first = false;
      indent(depth + 1);
      AppendPretty(out, item, depth + 1);
    }
    out.push_back('\n');
    indent(depth);
    out.push_back(']');
  } else {
    Append(out, value);
  }
}

}  // namespace

std::string SerializePretty(const boost::json::value& value) {
  std::string out;
  AppendPretty(out, value, 0);
  return out;
}

std::string PathKey(std::string_view parent, std::string_view key) {
  std::string path(parent);
  if (IsPlainKey(key)) {
    if (!path.empty()) path.push_back('.');
    path.append(key);
  } else {
    path.append("[");
    AppendString(path, key);
    path.append("]");
  }
  return path;
}

std::string PathIndex(std::string_view parent, std::size_t index) {
  std::string path(parent);
  path.push_back('[');
  path.append(std::to_string(index));
  path.push_back(']');
  return path;
}

}  // namespace cairn::json
