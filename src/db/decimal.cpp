#include "db/decimal.hpp"

#include <cstdint>
#include <limits>

#include "db/dialect.hpp"

namespace cairn::db {
namespace {

constexpr std::uint64_t kPow10[] = {1ULL,
                                    10ULL,
                                    100ULL,
                                    1000ULL,
                                    10000ULL,
                                    100000ULL,
                                    1000000ULL,
                                    10000000ULL,
                                    100000000ULL,
                                    1000000000ULL,
                                    10000000000ULL,
                                    100000000000ULL,
                                    1000000000000ULL,
                                    10000000000000ULL,
                                    100000000000000ULL,
                                    1000000000000000ULL,
                                    10000000000000000ULL,
                                    100000000000000000ULL,
                                    1000000000000000000ULL};
static_assert(sizeof kPow10 / sizeof kPow10[0] == kMaxDecimalScale + 1);

bool ValidScale(int scale) {
  return scale >= 0 && scale <= kMaxDecimalScale;
}

// Magnitude of a signed value as unsigned (also for INT64_MIN).
std::uint64_t Magnitude(std::int64_t v) {
  return v < 0 ? ~static_cast<std::uint64_t>(v) + 1 : static_cast<std::uint64_t>(v);
}

std::optional<std::int64_t> Signed(std::uint64_t magnitude, bool negative) {
  constexpr std::uint64_t kMax = std::numeric_limits<std::int64_t>::max();
  if (negative) {
    if (magnitude > kMax + 1) return std::nullopt;
    return magnitude == kMax + 1 ? std::numeric_limits<std::int64_t>::min()
                                 : -static_cast<std::int64_t>(magnitude);
  }
  if (magnitude > kMax) return std::nullopt;
  return static_cast<std::int64_t>(magnitude);
}

}  // namespace

void AppendDecimal(std::string& out, Decimal value) {
  const int scale = ValidScale(value.scale) ? value.scale : 0;
  const std::uint64_t magnitude = Magnitude(value.units);
  if (value.units < 0) out += '-';
  out += std::to_string(magnitude / kPow10[scale]);
  if (scale > 0) {
    std::string fraction = std::to_string(magnitude % kPow10[scale]);
    out += '.';
    out.append(static_cast<std::size_t>(scale) - fraction.size(), '0');
    out += fraction;
  }
}

std::string FormatDecimal(Decimal value) {
  std::string out;
  AppendDecimal(out, value);
  return out;
}

std::optional<Decimal> ParseDecimal(std::string_view text, int scale) {
  if (!ValidScale(scale)) return std::nullopt;
  std::size_t pos = 0;
  bool negative = false;
  if (pos < text.size() && (text[pos] == '-' || text[pos] == '+')) {
    negative = text[pos] == '-';
    ++pos;
  }
  constexpr std::uint64_t kLimit = (std::numeric_limits<std::uint64_t>::max() - 9) / 10;
  std::uint64_t units = 0;
  int digits = 0;
  for (; pos < text.size() && text[pos] >= '0' && text[pos] <= '9'; ++pos, ++digits) {
    if (units > kLimit) return std::nullopt;
    units = units * 10 + static_cast<std::uint64_t>(text[pos] - '0');
  }
  int fraction_digits = 0;
  bool round_up = false;
  if (pos < text.size() && text[pos] == '.') {
    ++pos;
    for (; pos < text.size() && text[pos] >= '0' && text[pos] <= '9'; ++pos, ++digits) {
      if (fraction_digits < scale) {
        if (units > kLimit) return std::nullopt;
        units = units * 10 + static_cast<std::uint64_t>(text[pos] - '0');
        ++fraction_digits;
      } else if (fraction_digits == scale) {
        round_up = text[pos] >= '5';
        ++fraction_digits;  // only the first dropped digit decides (half away from zero)
      }
    }
  }
  if (digits == 0 || pos != text.size()) return std::nullopt;
  for (int i = fraction_digits; i < scale; ++i) {
    if (units > kLimit) return std::nullopt;
    units *= 10;
  }
  if (round_up) ++units;
  const auto signed_units = Signed(units, negative);
  if (!signed_units) return std::nullopt;
  return Decimal{*signed_units, scale};
}

std::optional<Decimal> Rescale(Decimal value, int scale) {
  if (!ValidScale(scale) || !ValidScale(value.scale)) return std::nullopt;
  const bool negative = value.units < 0;
  std::uint64_t magnitude = Magnitude(value.units);
  if (scale >= value.scale) {
    const std::uint64_t factor = kPow10[scale - value.scale];
    if (magnitude > std::numeric_limits<std::uint64_t>::max() / factor) return std::nullopt;
    magnitude *= factor;
  } else {
    const std::uint64_t factor = kPow10[value.scale - scale];
    const std::uint64_t remainder = magnitude % factor;
    magnitude /= factor;
    if (remainder * 2 >= factor) ++magnitude;
  }
  const auto units = Signed(magnitude, negative);
  if (!units) return std::nullopt;
  return Decimal{*units, scale};
}

}  // namespace cairn::db
