#include "records/display/date_display.hpp"

#include <charconv>
#include <cmath>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include <boost/json/array.hpp>

#include <unicode/dtfmtsym.h>
#include <unicode/dtptngen.h>
#include <unicode/gregocal.h>
#include <unicode/smpdtfmt.h>
#include <unicode/timezone.h>

#include "common/json.hpp"
#include "config/locale_data.hpp"
#include "records/display/display_support.hpp"
#include "records/display/formatter_cache.hpp"

namespace cairn::records::display {
namespace {

constexpr double kMillisPerDay = 86'400'000.0;

enum class Kind { kDate, kDatetime, kTime };

icu::UnicodeString FromUtf8(std::string_view text) {
  return icu::UnicodeString::fromUTF8(
      icu::StringPiece(text.data(), static_cast<int32_t>(text.size())));
}

// ICU's patterns for the display locale, looked up once (the generator is slow to build):
// skeleton `hmm` → `h:mm a`, `HHmm` → `HH:mm`, `yMMMd` → `MMM d, y`.
struct LocalePatterns {
  icu::UnicodeString twelve_hour, twenty_four_hour, medium_date;
};

const LocalePatterns& Patterns() {
  static const LocalePatterns patterns = [] {
    UErrorCode status = U_ZERO_ERROR;
    std::unique_ptr<icu::DateTimePatternGenerator> generator(
        icu::DateTimePatternGenerator::createInstance(DisplayLocale(), status));
    LocalePatterns found{u"h:mm a", u"HH:mm", u"MMM d, y"};
    if (U_FAILURE(status)) return found;
    auto best = [&](const char16_t* skeleton, icu::UnicodeString& pattern) {
      UErrorCode lookup = U_ZERO_ERROR;
      icu::UnicodeString result = generator->getBestPattern(skeleton, lookup);
      if (U_SUCCESS(lookup)) pattern = result;
    };
    best(u"hmm", found.twelve_hour);
    best(u"HHmm", found.twenty_four_hour);
    best(u"yMMMd", found.medium_date);
    return found;
  }();
  return patterns;
}

icu::UnicodeString PatternFor(const config::Field& field, Kind kind) {
  if (const std::string_view format = Property(field, "format"); !format.empty()) {
    return FromUtf8(config::IcuDatePattern(format));
  }
  const std::string_view date_format = Property(field, "dateFormat");
  const std::string_view time_format = Property(field, "timeFormat");
  const bool with_time =
      kind == Kind::kTime ||
      (kind == Kind::kDatetime &&
       !(field.properties.contains("includeTime") && field.properties.at("includeTime") == false));
  const bool twelve_hour =
      time_format.empty() ? date_format.empty() || date_format == "US" : time_format == "12-hour";
  const icu::UnicodeString& time =
      twelve_hour ? Patterns().twelve_hour : Patterns().twenty_four_hour;
  if (kind == Kind::kTime) return time;

  icu::UnicodeString date;
  if (date_format == "US") date = u"MM/dd/yyyy";
  if (date_format == "European") date = u"dd/MM/yyyy";
  if (date_format == "ISO") date = u"yyyy-MM-dd";
  const bool locale_date = date.isEmpty();
  if (locale_date) date = Patterns().medium_date;
  if (!with_time) return date;
  // ICU's medium date joins its time with a comma; the numeric forms read better with a space.
  return date + (locale_date ? u", " : u" ") + time;
}

// The zone a date-time field renders in; dates and times have none and render as written.
std::string ZoneFor(const DisplayContext& context, const config::Field& field, Kind kind) {
  if (kind != Kind::kDatetime) return "UTC";
  if (!context.timezone().empty()) return context.timezone();
  if (const std::string_view zone = Property(field, "timezone"); !zone.empty()) {
    return std::string(zone);
  }
  if (const std::string_view zone = Property(field, "timeZone"); !zone.empty() && zone != "local") {
    return std::string(zone);
  }
  return "UTC";
}

std::unique_ptr<icu::DateFormat> BuildFormat(const DisplayContext& context,
                                             const config::Field& field, Kind kind) {
  UErrorCode status = U_ZERO_ERROR;
  auto format =
      std::make_unique<icu::SimpleDateFormat>(PatternFor(field, kind), DisplayLocale(), status);
  if (U_FAILURE(status)) {  // config validation checks `format`; keep a readable fallback
    status = U_ZERO_ERROR;
    format = std::make_unique<icu::SimpleDateFormat>(u"yyyy-MM-dd HH:mm", DisplayLocale(), status);
  }
  // Proleptic Gregorian, like the stored ISO dates: no switch to the Julian calendar in 1582.
  auto calendar = std::make_unique<icu::GregorianCalendar>(
      icu::TimeZone::createTimeZone(FromUtf8(ZoneFor(context, field, kind))), DisplayLocale(),
      status);
  calendar->setGregorianChange(-1e300, status);
  if (U_SUCCESS(status)) format->adoptCalendar(calendar.release());
  return format;
}

void Append(DisplayContext& context, const config::Field& field, Kind kind, double epoch_millis,
            std::string& out) {
  icu::DateFormat& format =
      context.formatters().Date(field, [&] { return BuildFormat(context, field, kind); });
  icu::UnicodeString text;
  format.format(epoch_millis, text);
  AppendJsonString(text, out);
}

int Digits(std::string_view text, std::size_t at, std::size_t count) {
  int value = 0;
  std::from_chars(text.data() + at, text.data() + at + count, value);
  return value;
}

// Days since 1970-01-01 in the proleptic Gregorian calendar (Howard Hinnant's days_from_civil).
std::int64_t DaysFromCivil(std::int64_t year, unsigned month, unsigned day) {
  year -= month <= 2;
  const std::int64_t era = (year >= 0 ? year : year - 399) / 400;
  const auto year_of_era = static_cast<unsigned>(year - era * 400);
  const unsigned day_of_year = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
  const unsigned day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
  return era * 146097 + static_cast<std::int64_t>(day_of_era) - 719468;
}

// `names` as alternatives: `(?:Jan|Feb|…)`.
std::string Alternatives(const icu::UnicodeString* names, int32_t count) {
  std::string out = "(?:";
  bool first = true;
  for (int32_t i = 0; i < count; ++i) {
    std::string name;
    names[i].toUTF8String(name);
    if (name.empty()) continue;
    if (!first) out += '|';
    first = false;
    out += RegexLiteral(name);
  }
  return first ? std::string(".+") : out + ")";
}

// The text one run of a pattern letter (`MMM`, `d`, `a`) formats to, as a regular expression
// over the display locale's own names.
std::string LetterRegex(char16_t letter, int32_t n) {
  static const icu::DateFormatSymbols* const symbols = [] {
    UErrorCode status = U_ZERO_ERROR;
    auto* made = new icu::DateFormatSymbols(DisplayLocale(), status);  // lives with the process
    if (U_FAILURE(status)) {
      delete made;
      return static_cast<icu::DateFormatSymbols*>(nullptr);
    }
    return made;
  }();
  const auto digits = [](int32_t min, int32_t max) {  // max 0: no upper bound
    if (min == max) return "[0-9]{" + std::to_string(min) + "}";
    return "[0-9]{" + std::to_string(min) + "," + (max > 0 ? std::to_string(max) : "") + "}";
  };
  using Symbols = icu::DateFormatSymbols;
  const auto width = [n] {
    return n == 4 ? Symbols::WIDE : n == 5 ? Symbols::NARROW : Symbols::ABBREVIATED;
  };
  // Each list's count is set by the call that returns it, so it is read after the call.
  int32_t count = 0;
  const icu::UnicodeString* list = nullptr;
  switch (letter) {
    case u'y':
    case u'Y':
    case u'u':
      return n == 2 ? digits(2, 2) : digits(n, 0);
    case u'M':
    case u'L':
      if (n <= 2) return digits(n, 2);
      if (symbols == nullptr) return ".+";
      list = symbols->getMonths(count, letter == u'M' ? Symbols::FORMAT : Symbols::STANDALONE,
                                width());
      return Alternatives(list, count);
    case u'E':
    case u'e':
    case u'c':
      if (letter != u'E' && n <= 2) return digits(1, 1);
      if (symbols == nullptr) return ".+";
      list = symbols->getWeekdays(count, letter == u'c' ? Symbols::STANDALONE : Symbols::FORMAT,
                                  width());
      return Alternatives(list, count);
    case u'a':
      if (symbols == nullptr) return ".+";
      list = symbols->getAmPmStrings(count);
      return Alternatives(list, count);
    case u'G':
      if (symbols == nullptr) return ".+";
      list = n == 4 ? symbols->getEraNames(count) : symbols->getEras(count);
      return Alternatives(list, count);
    case u'd':
    case u'h':
    case u'H':
    case u'k':
    case u'K':
    case u'm':
    case u's':
      return digits(n, 2);
    case u'D':
      return digits(n, 3);
    case u'S':
      return digits(n, n);
    default:  // zones, quarters, weeks, flexible day periods: any text
      return ".+";
  }
}

// A regular expression for every text `pattern` formats to: quoted text and punctuation kept,
// each run of a pattern letter replaced by what it writes.
std::string RegexOfPattern(const icu::UnicodeString& pattern) {
  std::string out = "^";
  const int32_t length = pattern.length();
  for (int32_t at = 0; at < length;) {
    const char16_t c = pattern.charAt(at);
    if (c == u'\'') {
      const int32_t close = pattern.indexOf(u'\'', at + 1);
      const int32_t end = close < 0 ? length : close;
      std::string literal;
      pattern.tempSubStringBetween(at + 1, end).toUTF8String(literal);
      out += RegexLiteral(end == at + 1 ? "'" : literal);  // '' is a quote
      at = end + 1;
    } else if ((c >= u'a' && c <= u'z') || (c >= u'A' && c <= u'Z')) {
      int32_t end = at;
      while (end < length && pattern.charAt(end) == c) ++end;
      out += LetterRegex(c, end - at);
      at = end;
    } else {
      const int32_t next = pattern.moveIndex32(at, 1);
      std::string literal;
      pattern.tempSubStringBetween(at, next).toUTF8String(literal);
      out += RegexLiteral(literal);
      at = next;
    }
  }
  return out + "$";
}

// The schema of a kind of field's display text, with the pattern's text for `sample_millis`
// (in UTC) as its example; cached per pattern.
boost::json::object DisplaySchema(const config::Field& field, Kind kind, double sample_millis) {
  static std::mutex mutex;
  static std::map<std::pair<std::u16string, int>, boost::json::object> cache;
  const icu::UnicodeString pattern = PatternFor(field, kind);
  std::pair<std::u16string, int> key{
      std::u16string(pattern.getBuffer(), static_cast<std::size_t>(pattern.length())),
      static_cast<int>(kind)};
  std::lock_guard lock(mutex);
  if (const auto found = cache.find(key); found != cache.end()) return found->second;
  UErrorCode status = U_ZERO_ERROR;
  icu::SimpleDateFormat format(pattern, DisplayLocale(), status);
  boost::json::object schema{{"type", "string"}, {"pattern", RegexOfPattern(pattern)}};
  if (U_SUCCESS(status)) {
    format.setTimeZone(*icu::TimeZone::getGMT());
    icu::UnicodeString text;
    format.format(sample_millis, text);
    std::string example;
    text.toUTF8String(example);
    schema["examples"] = boost::json::array{boost::json::string(example)};
  }
  return cache.emplace(std::move(key), std::move(schema)).first->second;
}

// 2026-11-24T14:05:09Z, the examples' instant.
constexpr double kSampleMillis = 1'795'529'109'000.0;
}  // namespace

void AppendDate(DisplayContext& context, const config::Field& field, std::string_view date,
                std::string& out) {
  if (date.size() != 10) {  // stored by the codec, so always YYYY-MM-DD; never guess otherwise
    json::AppendString(out, date);
    return;
  }
  const std::int64_t days =
      DaysFromCivil(Digits(date, 0, 4), static_cast<unsigned>(Digits(date, 5, 2)),
                    static_cast<unsigned>(Digits(date, 8, 2)));
  Append(context, field, Kind::kDate, static_cast<double>(days) * kMillisPerDay, out);
}

void AppendDatetime(DisplayContext& context, const config::Field& field, std::int64_t epoch_millis,
                    std::string& out) {
  Append(context, field, Kind::kDatetime, static_cast<double>(epoch_millis), out);
}

void AppendTime(DisplayContext& context, const config::Field& field, std::string_view time,
                std::string& out) {
  if (time.size() != 5 && time.size() != 8) {
    json::AppendString(out, time);
    return;
  }
  const int seconds = Digits(time, 0, 2) * 3600 + Digits(time, 3, 2) * 60 +
                      (time.size() == 8 ? Digits(time, 6, 2) : 0);
  Append(context, field, Kind::kTime, seconds * 1000.0, out);
}

boost::json::object DateDisplaySchema(const config::Field& field) {
  return DisplaySchema(field, Kind::kDate, kSampleMillis);
}

boost::json::object DatetimeDisplaySchema(const config::Field& field) {
  return DisplaySchema(field, Kind::kDatetime, kSampleMillis);
}

boost::json::object TimeDisplaySchema(const config::Field& field) {
  return DisplaySchema(field, Kind::kTime, std::fmod(kSampleMillis, kMillisPerDay));
}

}  // namespace cairn::records::display
