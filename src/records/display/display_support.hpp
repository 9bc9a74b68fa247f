// Helpers shared by the display formatters. Internal to records/display/.
#pragma once

#include <string>
#include <string_view>

#include <unicode/locid.h>
#include <unicode/unistr.h>

#include "config/model.hpp"

namespace cairn::records::display {

// The locale whose rules display follows: grouping, symbols, month names, AM/PM (D39).
const icu::Locale& DisplayLocale();

// The field's string property `key` as written in the config; empty when absent.
std::string_view Property(const config::Field& field, std::string_view key);

// Appends `text` as a JSON string.
void AppendJsonString(const icu::UnicodeString& text, std::string& out);

// `text` as a regular expression (ECMA-262, as JSON Schema's `pattern`) that matches exactly it.
std::string RegexLiteral(std::string_view text);

// U+00A0, which keeps a number and its symbol on one line.
inline constexpr std::string_view kNoBreakSpace = "\u00A0";

}  // namespace cairn::records::display
