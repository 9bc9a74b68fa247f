#include "records/display/number_display.hpp"

#include <map>
#include <mutex>
#include <vector>

#include <unicode/dcfmtsym.h>
#include <unicode/measunit.h>
#include <unicode/ucurr.h>
#include <boost/json/array.hpp>

#include "common/json.hpp"
#include "db/decimal.hpp"
#include "records/display/display_support.hpp"
#include "records/display/formatter_cache.hpp"

namespace cairn::records::display {
namespace {

using icu::number::LocalizedNumberFormatter;
using icu::number::NumberFormatter;
using icu::number::Precision;

// ICU's symbols for the locale with the separators `thousandsSeparator` asks for. A period
// between thousands makes the comma the decimal mark; every other choice keeps the period.
icu::DecimalFormatSymbols SymbolsFor(const config::Field& field) {
  UErrorCode status = U_ZERO_ERROR;
  icu::DecimalFormatSymbols symbols(DisplayLocale(), status);
  const std::string_view separator = Property(field, "thousandsSeparator");
  const char* group = nullptr;
  const char* decimal = ".";
  if (separator == "comma") group = ",";
  if (separator == "period") {
    group = ".";
    decimal = ",";
  }
  if (separator == "space") group = kNoBreakSpace.data();
  if (group != nullptr) {
    const auto group_text = icu::UnicodeString::fromUTF8(group);
    const auto decimal_text = icu::UnicodeString::fromUTF8(decimal);
    using Symbol = icu::DecimalFormatSymbols::ENumberFormatSymbol;
    symbols.setSymbol(Symbol::kGroupingSeparatorSymbol, group_text);
    symbols.setSymbol(Symbol::kMonetaryGroupingSeparatorSymbol, group_text);
    symbols.setSymbol(Symbol::kDecimalSeparatorSymbol, decimal_text);
    symbols.setSymbol(Symbol::kMonetarySeparatorSymbol, decimal_text);
  }
  return symbols;
}

// The symbol ICU gives the currency in the display locale (`$`, `€`, `CA$`, `CHF`).
std::string CurrencySymbol(const std::string& code) {
  if (code.size() != 3) return code;
  const UChar iso[4] = {static_cast<UChar>(code[0]), static_cast<UChar>(code[1]),
                        static_cast<UChar>(code[2]), 0};
  UBool is_choice = false;
  int32_t length = 0;
  UErrorCode status = U_ZERO_ERROR;
  const UChar* name = ucurr_getName(iso, DisplayLocale().getName(), UCURR_SYMBOL_NAME, &is_choice,
                                    &length, &status);
  if (U_FAILURE(status) || name == nullptr) return code;
  std::string symbol;
  icu::UnicodeString(name, length).toUTF8String(symbol);
  return symbol;
}

NumberStyle StyleFor(const config::Field& field) {
  LocalizedNumberFormatter formatter = NumberFormatter::withLocale(DisplayLocale());
  if (field.type == config::FieldType::kInteger) {
    formatter = formatter.precision(Precision::integer());
  } else {
    formatter = formatter.precision(Precision::fixedFraction(field.scale));
  }
  if (Property(field, "thousandsSeparator") == "none") {
    formatter = formatter.grouping(UNUM_GROUPING_OFF);
  } else {
    formatter = formatter.symbols(SymbolsFor(field));
  }
  NumberStyle style{std::move(formatter), {}, false, false};
  if (field.type == config::FieldType::kPercentage) {
    style.formatter = style.formatter.unit(icu::MeasureUnit::getPercent());
  }
  if (field.type == config::FieldType::kCurrency) {
    style.symbol = CurrencySymbol(field.currency);
    style.symbol_after = Property(field, "symbolPosition") == "after";
    style.parentheses = Property(field, "negativeFormat") == "parentheses";
  }
  return style;
}

std::string Format(const LocalizedNumberFormatter& formatter, std::string_view digits) {
  UErrorCode status = U_ZERO_ERROR;
  const icu::UnicodeString text =
      formatter
          .formatDecimal(icu::StringPiece(digits.data(), static_cast<int32_t>(digits.size())),
                         status)
          .toString(status);
  if (U_FAILURE(status)) return std::string(digits);
  std::string utf8;
  text.toUTF8String(utf8);
  return utf8;
}

bool EndsWithLetter(std::string_view text) {
  if (text.empty()) return false;
  const char last = text.back();
  return (last >= 'A' && last <= 'Z') || (last >= 'a' && last <= 'z');
}

// The display text of `digits` (a plain decimal, `-` for negatives). ICU places a currency
// symbol by the locale's pattern; the field chooses its side and its negative form, so for
// currencies the symbol and sign are placed here around ICU's digits.
std::string NumberText(const NumberStyle& style, const config::Field& field, std::string digits) {
  if (field.type != config::FieldType::kCurrency) return Format(style.formatter, digits);
  const bool negative = digits.starts_with('-');
  if (negative) digits.erase(0, 1);
  std::string text;
  if (negative) text += style.parentheses ? "(" : "-";
  if (!style.symbol_after) {
    text += style.symbol;
    if (EndsWithLetter(style.symbol)) text += kNoBreakSpace;  // `CHF 5.00`, as ICU spaces it
  }
  text += Format(style.formatter, digits);
  if (style.symbol_after) {
    text += kNoBreakSpace;
    text += style.symbol;
  }
  if (negative && style.parentheses) text += ')';
  return text;
}

bool IsDigit(char c) {
  return c >= '0' && c <= '9';
}

// A regular expression for every number formatted like `sample`, the text of 1234567 with
// `scale` places: the literals around the digits kept, the digit groups generalized. Empty when
// the sample does not have that form (then the schema names no pattern).
std::string RegexOfSample(std::string_view sample, int scale) {
  const std::size_t first = sample.find_first_of("0123456789");
  const std::size_t last = sample.find_last_of("0123456789");
  if (first == std::string_view::npos) return {};
  std::string_view core = sample.substr(first, last - first + 1);
  std::string fraction;
  if (scale > 0) {
    const auto places = static_cast<std::size_t>(scale);
    if (core.size() <= places) return {};
    core.remove_suffix(places);
    std::size_t mark = core.size();
    while (mark > 0 && !IsDigit(core[mark - 1])) --mark;
    if (mark == core.size() || mark == 0) return {};
    fraction = RegexLiteral(core.substr(mark)) + "[0-9]{" + std::to_string(scale) + "}";
    core = core.substr(0, mark);
  }
  // The integer digits: groups joined by one separator (`1,234,567`) or one run (`1234567`).
  std::vector<std::string_view> groups;
  std::string_view separator;
  for (std::size_t at = 0; at < core.size();) {
    std::size_t end = at;
    while (end < core.size() && IsDigit(core[end])) ++end;
    if (end == at) return {};
    groups.push_back(core.substr(at, end - at));
    if (end == core.size()) break;
    std::size_t next = end;
    while (next < core.size() && !IsDigit(core[next])) ++next;
    const std::string_view between = core.substr(end, next - end);
    if (!separator.empty() && between != separator) return {};
    separator = between;
    at = next;
  }
  std::string integer = "[0-9]+";
  if (groups.size() > 1) {
    bool thousands = groups.front().size() <= 3;
    for (std::size_t i = 1; i < groups.size(); ++i) thousands = thousands && groups[i].size() == 3;
    const std::string join = RegexLiteral(separator);
    integer = thousands ? "[0-9]{1,3}(?:" + join + "[0-9]{3})*" : "[0-9]+(?:" + join + "[0-9]+)*";
  }
  return RegexLiteral(sample.substr(0, first)) + integer + fraction +
         RegexLiteral(sample.substr(last + 1));
}

}  // namespace

void AppendInteger(DisplayContext& context, const config::Field& field, std::int64_t value,
                   std::string& out) {
  const NumberStyle& style = context.formatters().Number(field, [&] { return StyleFor(field); });
  json::AppendString(out, NumberText(style, field, std::to_string(value)));
}

void AppendDecimalNumber(DisplayContext& context, const config::Field& field, db::Decimal value,
                         std::string& out) {
  const NumberStyle& style = context.formatters().Number(field, [&] { return StyleFor(field); });
  json::AppendString(out, NumberText(style, field, db::FormatDecimal(value)));
}

boost::json::object NumberDisplaySchema(const config::Field& field, bool may_be_negative) {
  // One per kind of field: the formatter is slow to build and the documents ask for every
  // number field of every table.
  static std::mutex mutex;
  static std::map<std::string, boost::json::object> cache;
  std::string key = std::to_string(static_cast<int>(field.type)) + "/" +
                    std::to_string(field.scale) + "/" + (may_be_negative ? "-" : "+") + "/" +
                    field.currency;
  for (const char* property : {"thousandsSeparator", "symbolPosition", "negativeFormat"}) {
    key += "/" + std::string(Property(field, property));
  }
  std::lock_guard lock(mutex);
  if (const auto found = cache.find(key); found != cache.end()) return found->second;

  const NumberStyle style = StyleFor(field);
  const int scale = field.type == config::FieldType::kInteger ? 0 : field.scale;
  const std::string digits =
      "1234567" + (scale > 0 ? "." + std::string(static_cast<std::size_t>(scale), '5') : "");
  const std::string positive = NumberText(style, field, digits);
  boost::json::object schema{{"type", "string"}, {"examples", boost::json::array{positive}}};
  std::string pattern = RegexOfSample(positive, scale);
  if (may_be_negative && !pattern.empty()) {
    const std::string negative = RegexOfSample(NumberText(style, field, "-" + digits), scale);
    pattern = negative.empty() ? std::string() : "(?:" + pattern + "|" + negative + ")";
  }
  if (!pattern.empty()) schema["pattern"] = "^" + pattern + "$";
  return cache.emplace(std::move(key), std::move(schema)).first->second;
}

void AppendByteSize(std::int64_t bytes, std::string& out) {
  struct Step {
    std::int64_t size;
    icu::MeasureUnit (*unit)();
  };
  static constexpr Step kSteps[] = {{1'000'000'000'000, &icu::MeasureUnit::getTerabyte},
                                    {1'000'000'000, &icu::MeasureUnit::getGigabyte},
                                    {1'000'000, &icu::MeasureUnit::getMegabyte},
                                    {1'000, &icu::MeasureUnit::getKilobyte},
                                    {1, &icu::MeasureUnit::getByte}};
  const Step* step = &kSteps[4];
  for (const Step& candidate : kSteps) {
    if (bytes >= candidate.size) {
      step = &candidate;
      break;
    }
  }
  const LocalizedNumberFormatter formatter = NumberFormatter::withLocale(DisplayLocale())
                                                 .unit(step->unit())
                                                 .unitWidth(UNUM_UNIT_WIDTH_SHORT)
                                                 .precision(Precision::maxFraction(1));
  UErrorCode status = U_ZERO_ERROR;
  const icu::UnicodeString text =
      formatter.formatDouble(static_cast<double>(bytes) / static_cast<double>(step->size), status)
          .toString(status);
  AppendJsonString(text, out);
}

}  // namespace cairn::records::display
