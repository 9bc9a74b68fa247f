// Facts from ICU that config validation needs: ISO 4217 currencies and IANA time zones.
#pragma once

#include <optional>
#include <string_view>

namespace cairn::config {

// True for any ISO 4217 code ICU knows (current or historic).
bool IsKnownCurrency(std::string_view code);
// The currency's default number of decimal places (USD 2, JPY 0); nullopt when unknown.
std::optional<int> CurrencyFractionDigits(std::string_view code);
// True for an IANA time zone id known to ICU (`Europe/Paris`, `UTC`).
bool IsKnownTimeZone(std::string_view id);

}  // namespace cairn::config
