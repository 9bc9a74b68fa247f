#include "records/display/number_display.hpp"

#include <unicode/dcfmtsym.h>
#include <unicode/measunit.h>
#include <unicode/ucurr.h>

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

}  // namespace

void AppendInteger(DisplayContext& context, const config::Field& field, std::int64_t value,
                   std::string& out) {
  const NumberStyle& style = context.formatters().Number(field, [&] { return StyleFor(field); });
  json::AppendString(out, Format(style.formatter, std::to_string(value)));
}

void AppendDecimalNumber(DisplayContext& context, const config::Field& field, db::Decimal value,
                         std::string& out) {
  const NumberStyle& style = context.formatters().Number(field, [&] { return StyleFor(field); });
  if (field.type != config::FieldType::kCurrency) {
    json::AppendString(out, Format(style.formatter, db::FormatDecimal(value)));
    return;
  }
  // ICU places a currency symbol by the locale's pattern; the field chooses its side and its
  // negative form, so the symbol and sign are placed here around ICU's digits.
  const bool negative = value.units < 0;
  std::string digits = db::FormatDecimal(value);
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
  json::AppendString(out, text);
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
