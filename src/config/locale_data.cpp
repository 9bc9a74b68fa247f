#include "config/locale_data.hpp"

#include <algorithm>
#include <set>
#include <string>

#include <unicode/smpdtfmt.h>
#include <unicode/timezone.h>
#include <unicode/ucurr.h>
#include <unicode/uenum.h>
#include <unicode/unistr.h>

namespace cairn::config {
namespace {

const std::set<std::string, std::less<>>& Currencies() {
  static const std::set<std::string, std::less<>> currencies = [] {
    std::set<std::string, std::less<>> codes;
    UErrorCode status = U_ZERO_ERROR;
    UEnumeration* all = ucurr_openISOCurrencies(UCURR_ALL, &status);
    if (U_FAILURE(status)) return codes;
    int32_t length = 0;
    while (const char* code = uenum_next(all, &length, &status)) {
      if (U_FAILURE(status)) break;
      codes.emplace(code, static_cast<std::size_t>(length));
    }
    uenum_close(all);
    return codes;
  }();
  return currencies;
}

}  // namespace

bool IsKnownCurrency(std::string_view code) {
  return Currencies().contains(code);
}

std::optional<int> CurrencyFractionDigits(std::string_view code) {
  if (code.size() != 3 || !IsKnownCurrency(code)) return std::nullopt;
  const UChar iso[4] = {static_cast<UChar>(code[0]), static_cast<UChar>(code[1]),
                        static_cast<UChar>(code[2]), 0};
  UErrorCode status = U_ZERO_ERROR;
  const int32_t digits = ucurr_getDefaultFractionDigits(iso, &status);
  if (U_FAILURE(status)) return std::nullopt;
  return digits;
}

bool IsKnownTimeZone(std::string_view id) {
  if (id.empty() || id.size() > 64) return false;
  const icu::UnicodeString zone =
      icu::UnicodeString::fromUTF8(icu::StringPiece(id.data(), static_cast<int32_t>(id.size())));
  icu::UnicodeString canonical;
  UBool is_system_id = false;
  UErrorCode status = U_ZERO_ERROR;
  icu::TimeZone::getCanonicalID(zone, canonical, is_system_id, status);
  return U_SUCCESS(status) && is_system_id;
}

std::string IcuDatePattern(std::string_view format) {
  std::string pattern(format);
  bool quoted = false;
  for (char& c : pattern) {
    if (c == '\'') quoted = !quoted;
    if (quoted) continue;
    if (c == 'Y') c = 'y';
    if (c == 'D') c = 'd';
    if (c == 'A') c = 'a';
  }
  return pattern;
}

bool IsValidDatePattern(std::string_view format) {
  if (format.empty() || format.size() > kMaxDatePatternLength) return false;
  const std::string pattern = IcuDatePattern(format);
  if (std::count(pattern.begin(), pattern.end(), '\'') % 2 != 0) return false;
  UErrorCode status = U_ZERO_ERROR;
  icu::SimpleDateFormat formatter(icu::UnicodeString::fromUTF8(icu::StringPiece(
                                      pattern.data(), static_cast<int32_t>(pattern.size()))),
                                  icu::Locale("en", "US"), status);
  if (U_FAILURE(status)) return false;
  // Unknown symbols fail only when used.
  icu::UnicodeString sample;
  formatter.format(1.7e12, sample, nullptr, status);
  return U_SUCCESS(status);
}

}  // namespace cairn::config
