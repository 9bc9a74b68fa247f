// The ICU formatters of one response (DisplayContext), built the first time a field needs one
// and reused for every later row. Internal to records/display/.
#pragma once

#include <memory>
#include <string>
#include <unordered_map>

#include <unicode/datefmt.h>
#include <unicode/numberformatter.h>

#include "config/model.hpp"

namespace cairn::records::display {

// A number field's formatter, and what it leaves to us: where the currency symbol goes and how
// a negative amount is marked.
struct NumberStyle {
  icu::number::LocalizedNumberFormatter formatter;
  std::string symbol;  // the currency symbol (UTF-8); empty for other numbers
  bool symbol_after = false;
  bool parentheses = false;  // negative amounts as (1.00) instead of -1.00
};

class FormatterCache {
 public:
  template <typename Build>
  const NumberStyle& Number(const config::Field& field, Build&& build) {
    auto found = numbers_.find(&field);
    if (found == numbers_.end()) found = numbers_.emplace(&field, build()).first;
    return found->second;
  }

  // ICU's DateFormat::format is not const-safe across threads, but a cache lives in one request.
  template <typename Build>
  icu::DateFormat& Date(const config::Field& field, Build&& build) {
    auto found = dates_.find(&field);
    if (found == dates_.end()) found = dates_.emplace(&field, build()).first;
    return *found->second;
  }

 private:
  std::unordered_map<const config::Field*, NumberStyle> numbers_;
  std::unordered_map<const config::Field*, std::unique_ptr<icu::DateFormat>> dates_;
};

}  // namespace cairn::records::display
