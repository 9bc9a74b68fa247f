// Format checks for default values written in a config (D31's rules for values).
#pragma once

#include <string_view>

namespace cairn::config {

// An absolute URL whose scheme is http, https, ftp, mailto or tel.
bool IsValidUrl(std::string_view text);
// `YYYY-MM-DD`, a real calendar date.
bool IsValidDate(std::string_view text);
// ISO 8601 date-time with an offset or `Z` (common/time.hpp's ParseIso).
bool IsValidDatetime(std::string_view text);
// `HH:MM` or `HH:MM:SS`, 24-hour.
bool IsValidTime(std::string_view text);
// Decimal places needed to write `number` exactly in its shortest round-trip form (1.25 → 2).
int DecimalPlaces(double number);

}  // namespace cairn::config
