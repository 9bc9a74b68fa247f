// Exact decimal text conversions (D9). A Decimal is int64 units scaled by 10^scale.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "db/value.hpp"

namespace cairn::db {

// `units / 10^scale` as plain decimal text with exactly `scale` fraction digits (`-0.10`).
std::string FormatDecimal(Decimal value);
void AppendDecimal(std::string& out, Decimal value);
// Parses `[-+]digits[.digits]` into units at `scale`, rounding extra fraction digits half away
// from zero. Nullopt on malformed text, a scale outside [0, kMaxDecimalScale] or int64 overflow.
std::optional<Decimal> ParseDecimal(std::string_view text, int scale);
// The same number at another scale (rounding half away from zero when the scale shrinks).
std::optional<Decimal> Rescale(Decimal value, int scale);

}  // namespace cairn::db
