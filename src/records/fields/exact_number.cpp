#include "records/fields/exact_number.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <limits>

#include "records/fields/codec_support.hpp"

namespace cairn::records::fields {
namespace {

constexpr int kExponentLimit = 100'000;     // far beyond anything that fits int64 units
constexpr std::size_t kMaxUnitDigits = 19;  // 10^19 - 1 fits in uint64
constexpr long kMaxPlainDigits = 40;        // longer numbers are written as d.ddd…eN

bool IsDigit(char c) {
  return c >= '0' && c <= '9';
}

void Normalize(ExactNumber& number) {
  const std::size_t first = number.digits.find_first_not_of('0');
  if (first == std::string::npos) {
    number = ExactNumber{};
    return;
  }
  number.digits.erase(0, first);
  const std::size_t last = number.digits.find_last_not_of('0');
  number.exponent += static_cast<int>(number.digits.size() - last - 1);
  number.digits.resize(last + 1);
}

// Position of the most significant digit (10^magnitude > |number| >= 10^(magnitude-1)).
long Magnitude(const ExactNumber& number) {
  return static_cast<long>(number.digits.size()) + number.exponent;
}

int CompareMagnitudes(const ExactNumber& a, const ExactNumber& b) {
  if (a.IsZero() || b.IsZero()) return a.IsZero() == b.IsZero() ? 0 : (a.IsZero() ? -1 : 1);
  if (Magnitude(a) != Magnitude(b)) return Magnitude(a) < Magnitude(b) ? -1 : 1;
  const std::size_t n = std::max(a.digits.size(), b.digits.size());
  for (std::size_t i = 0; i < n; ++i) {
    const char da = i < a.digits.size() ? a.digits[i] : '0';
    const char db = i < b.digits.size() ? b.digits[i] : '0';
    if (da != db) return da < db ? -1 : 1;
  }
  return 0;
}

std::optional<ExactNumber> Bound(const config::Field& field, std::string_view key,
                                 const std::optional<double>& typed) {
  if (const boost::json::value* written = field.properties.if_contains(key)) {
    if (auto exact = ExactFromJson(*written)) return exact;
  }
  if (typed && std::isfinite(*typed)) return ExactFromDouble(*typed);
  return std::nullopt;
}

}  // namespace

std::optional<ExactNumber> ParseExactNumber(std::string_view text) {
  ExactNumber number;
  std::size_t pos = 0;
  if (pos < text.size() && (text[pos] == '-' || text[pos] == '+')) {
    number.negative = text[pos] == '-';
    ++pos;
  }
  std::size_t int_digits = 0;
  for (; pos < text.size() && IsDigit(text[pos]); ++pos, ++int_digits) number.digits += text[pos];
  if (int_digits == 0) return std::nullopt;
  if (pos < text.size() && text[pos] == '.') {
    ++pos;
    std::size_t fraction_digits = 0;
    for (; pos < text.size() && IsDigit(text[pos]); ++pos, ++fraction_digits) {
      number.digits += text[pos];
    }
    if (fraction_digits == 0) return std::nullopt;
    if (fraction_digits > static_cast<std::size_t>(kExponentLimit)) return std::nullopt;
    number.exponent = -static_cast<int>(fraction_digits);
  }
  if (pos < text.size() && (text[pos] == 'e' || text[pos] == 'E')) {
    ++pos;
    bool exponent_negative = false;
    if (pos < text.size() && (text[pos] == '-' || text[pos] == '+')) {
      exponent_negative = text[pos] == '-';
      ++pos;
    }
    if (pos == text.size()) return std::nullopt;
    int exponent = 0;
    for (; pos < text.size() && IsDigit(text[pos]); ++pos) {
      exponent = std::min(kExponentLimit, exponent * 10 + (text[pos] - '0'));
    }
    number.exponent += exponent_negative ? -exponent : exponent;
  }
  if (pos != text.size()) return std::nullopt;
  Normalize(number);
  return number;
}

ExactNumber ExactFromUint64(std::uint64_t value) {
  ExactNumber number;
  number.digits = std::to_string(value);
  Normalize(number);
  return number;
}

ExactNumber ExactFromInt64(std::int64_t value) {
  const std::uint64_t magnitude =
      value < 0 ? ~static_cast<std::uint64_t>(value) + 1 : static_cast<std::uint64_t>(value);
  ExactNumber number = ExactFromUint64(magnitude);
  number.negative = value < 0;
  return number;
}

ExactNumber ExactFromDouble(double value) {
  std::array<char, 32> buffer;
  const auto [end, ec] = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
  if (ec != std::errc()) return ExactNumber{};
  auto number = ParseExactNumber(std::string_view(buffer.data(), end));
  return number ? *number : ExactNumber{};
}

std::optional<ExactNumber> ExactFromJson(const boost::json::value& number) {
  switch (number.kind()) {
    case boost::json::kind::int64:
      return ExactFromInt64(number.get_int64());
    case boost::json::kind::uint64:
      return ExactFromUint64(number.get_uint64());
    case boost::json::kind::double_:
      if (!std::isfinite(number.get_double())) return std::nullopt;
      return ExactFromDouble(number.get_double());
    default:
      return std::nullopt;
  }
}

int Compare(const ExactNumber& a, const ExactNumber& b) {
  if (a.negative != b.negative) return a.negative ? -1 : 1;
  const int magnitudes = CompareMagnitudes(a, b);
  return a.negative ? -magnitudes : magnitudes;
}

std::string ToText(const ExactNumber& number) {
  if (number.IsZero()) return "0";
  std::string out = number.negative ? "-" : "";
  const long magnitude = Magnitude(number);
  if (magnitude > kMaxPlainDigits || magnitude < -kMaxPlainDigits ||
      number.digits.size() > static_cast<std::size_t>(kMaxPlainDigits)) {
    // Scientific notation, so that a message never grows with a hostile exponent.
    out += number.digits.substr(0, 1);
    if (number.digits.size() > 1) {
      out += '.';
      out += number.digits.substr(1, kMaxPlainDigits);
      if (number.digits.size() > static_cast<std::size_t>(kMaxPlainDigits) + 1) out += "…";
    }
    out += 'e' + std::to_string(magnitude - 1);
    return out;
  }
  if (magnitude <= 0) {
    out += "0.";
    out.append(static_cast<std::size_t>(-magnitude), '0');
    out += number.digits;
  } else if (number.exponent >= 0) {
    out += number.digits;
    out.append(static_cast<std::size_t>(number.exponent), '0');
  } else {
    out += number.digits.substr(0, static_cast<std::size_t>(magnitude));
    out += '.';
    out += number.digits.substr(static_cast<std::size_t>(magnitude));
  }
  return out;
}

ScaleOutcome ToUnits(const ExactNumber& number, int scale, std::int64_t& units) {
  units = 0;
  if (number.IsZero()) return ScaleOutcome::kOk;
  const long shift = static_cast<long>(number.exponent) + scale;
  if (shift < 0) return ScaleOutcome::kTooManyPlaces;
  if (static_cast<long>(number.digits.size()) + shift > static_cast<long>(kMaxUnitDigits)) {
    return ScaleOutcome::kOutOfRange;
  }
  std::uint64_t magnitude = 0;
  for (const char digit : number.digits) {
    magnitude = magnitude * 10 + static_cast<std::uint64_t>(digit - '0');
  }
  for (long i = 0; i < shift; ++i) magnitude *= 10;
  constexpr std::uint64_t kMax = std::numeric_limits<std::int64_t>::max();
  if (number.negative) {
    if (magnitude > kMax + 1) return ScaleOutcome::kOutOfRange;
    units = magnitude == kMax + 1 ? std::numeric_limits<std::int64_t>::min()
                                  : -static_cast<std::int64_t>(magnitude);
  } else {
    if (magnitude > kMax) return ScaleOutcome::kOutOfRange;
    units = static_cast<std::int64_t>(magnitude);
  }
  return ScaleOutcome::kOk;
}

std::optional<Error> CheckBounds(const config::Field& field, const ExactNumber& number) {
  const auto min = Bound(field, "min", field.min);
  const auto max = Bound(field, "max", field.max);
  const auto range = [&] {
    if (min && max) return " (between " + ToText(*min) + " and " + ToText(*max) + ")";
    return std::string();
  };
  if (min && Compare(number, *min) < 0) {
    return Invalid("must be at least " + ToText(*min) + range() + ", got " + ToText(number));
  }
  if (max && Compare(number, *max) > 0) {
    return Invalid("must be at most " + ToText(*max) + range() + ", got " + ToText(number));
  }
  return std::nullopt;
}

bool IsInexactDouble(const boost::json::value& input, const ExactNumber& number) {
  return input.is_double() && number.digits.size() > static_cast<std::size_t>(kExactDoubleDigits);
}

Result<std::int64_t> ParseWholeNumber(const boost::json::value& input, std::string_view expected) {
  std::optional<ExactNumber> number;
  if (input.is_number()) {
    number = ExactFromJson(input);
  } else if (input.is_string()) {
    number = ParseExactNumber(input.get_string());
    if (!number) {
      return Invalid("must be " + std::string(expected) + "; " + Quoted(input.get_string()) +
                     " is not a number");
    }
  } else {
    return WrongKind(input, expected);
  }
  std::int64_t value = 0;
  switch (number ? ToUnits(*number, 0, value) : ScaleOutcome::kOutOfRange) {
    case ScaleOutcome::kOk:
      if (IsInexactDouble(input, *number)) {
        return Invalid("must be " + std::string(expected) +
                       " that a JSON number carries exactly (at most " +
                       std::to_string(kExactDoubleDigits) +
                       " significant digits when written with a fraction or exponent); send it as "
                       "a string, such as \"" +
                       ToText(*number) + "\"");
      }
      return value;
    case ScaleOutcome::kTooManyPlaces:
      return Invalid("must be " + std::string(expected) + " without a fraction, got " +
                     ToText(*number));
    case ScaleOutcome::kOutOfRange:
      break;
  }
  return Invalid("must be " + std::string(expected) + " between " +
                 std::to_string(std::numeric_limits<std::int64_t>::min()) + " and " +
                 std::to_string(std::numeric_limits<std::int64_t>::max()));
}

}  // namespace cairn::records::fields
