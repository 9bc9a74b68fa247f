// Exact decimal numbers for the numeric codecs (D9): a number written in JSON or in a numeric
// string, kept as its decimal digits so that 0.1 stays 0.1 and bounds compare without rounding.
// Internal to records/fields/.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <boost/json/value.hpp>

#include "common/result.hpp"
#include "config/model.hpp"
#include "db/value.hpp"

namespace cairn::records::fields {

// Significant digits a JSON number (an IEEE double) carries exactly; a non-integer JSON number
// with more cannot be trusted to be what the client wrote.
inline constexpr int kExactDoubleDigits = 15;

// (-1)^negative × digits × 10^exponent, normalized: no leading or trailing zeros in `digits`,
// empty `digits` (and negative false) for zero.
struct ExactNumber {
  bool negative = false;
  std::string digits;
  int exponent = 0;

  bool IsZero() const { return digits.empty(); }
  // Digits after the decimal point needed to write the number.
  int FractionDigits() const { return exponent < 0 ? -exponent : 0; }
};

// `[-+]digits[.digits][(e|E)[-+]digits]`; nullopt for anything else.
std::optional<ExactNumber> ParseExactNumber(std::string_view text);
ExactNumber ExactFromInt64(std::int64_t value);
ExactNumber ExactFromUint64(std::uint64_t value);
// The shortest decimal that reads back as `value` (what the client most likely wrote).
// `value` must be finite.
ExactNumber ExactFromDouble(double value);
// The number in a JSON number value (int64, uint64 or finite double).
std::optional<ExactNumber> ExactFromJson(const boost::json::value& number);

// -1, 0 or 1.
int Compare(const ExactNumber& a, const ExactNumber& b);
// Plain decimal text (`-12.5`, `1000`), for messages.
std::string ToText(const ExactNumber& number);

enum class ScaleOutcome { kOk, kTooManyPlaces, kOutOfRange };
// The number as int64 units at `scale` (never rounds: more fraction digits than `scale` is
// kTooManyPlaces; beyond int64 units is kOutOfRange).
ScaleOutcome ToUnits(const ExactNumber& number, int scale, std::int64_t& units);

// Checks the field's min and max (taken as written in the config, so integer bounds beyond
// 2^53 stay exact); the error says which bound was crossed.
std::optional<Error> CheckBounds(const config::Field& field, const ExactNumber& number);

// True when `input` is a JSON double whose digits may not be what the client wrote (more than
// kExactDoubleDigits significant digits).
bool IsInexactDouble(const boost::json::value& input, const ExactNumber& number);

// A whole number from a JSON integer, an integral JSON double or a string of decimal digits
// (JavaScript clients cannot send integers beyond 2^53 as numbers). `expected` names what is
// accepted, for the error.
Result<std::int64_t> ParseWholeNumber(const boost::json::value& input, std::string_view expected);

}  // namespace cairn::records::fields
