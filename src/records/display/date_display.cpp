#include "records/display/date_display.hpp"

#include <charconv>
#include <memory>

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

}  // namespace cairn::records::display
