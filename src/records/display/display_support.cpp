#include "records/display/display_support.hpp"

#include "common/json.hpp"

namespace cairn::records::display {

const icu::Locale& DisplayLocale() {
  static const icu::Locale locale("en", "US");
  return locale;
}

std::string_view Property(const config::Field& field, std::string_view key) {
  const boost::json::value* value = field.properties.if_contains(key);
  if (value == nullptr || !value->is_string()) return {};
  return value->get_string();
}

void AppendJsonString(const icu::UnicodeString& text, std::string& out) {
  std::string utf8;
  text.toUTF8String(utf8);
  json::AppendString(out, utf8);
}

std::string RegexLiteral(std::string_view text) {
  constexpr std::string_view kSyntax = R"(\^$.|?*+()[]{}/)";
  std::string out;
  for (char c : text) {
    if (kSyntax.find(c) != std::string_view::npos) out.push_back('\\');
    out.push_back(c);
  }
  return out;
}

}  // namespace cairn::records::display
