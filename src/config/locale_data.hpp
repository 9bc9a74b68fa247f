// Facts from ICU that config validation needs: ISO 4217 currencies and IANA time zones.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace cairn::config {

// True for any ISO 4217 code ICU knows (current or historic).
bool IsKnownCurrency(std::string_view code);
// The currency's default number of decimal places (USD 2, JPY 0); nullopt when unknown.
std::optional<int> CurrencyFractionDigits(std::string_view code);
// True for an IANA time zone id known to ICU (`Europe/Paris`, `UTC`).
bool IsKnownTimeZone(std::string_view id);

// The ICU pattern for a date field's `format`: Unicode date symbols (`d MMM yyyy, HH:mm`), except
// that the moment-style tokens people carry over mean what they expect: `Y` year, `D` day of
// month and `A` AM/PM, rather than ICU's week-year, day of year and milliseconds in day.
std::string IcuDatePattern(std::string_view format);
// True when ICU formats with the pattern: known symbols, closed quotes, at most 100 characters.
bool IsValidDatePattern(std::string_view format);
inline constexpr std::size_t kMaxDatePatternLength = 100;

}  // namespace cairn::config
