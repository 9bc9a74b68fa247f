// Small pure helpers: path globs, referrer domains and UTC period arithmetic.
#include <boost/url/parse.hpp>
#include <cctype>
#include <chrono>

#include "analytics/analytics_service.hpp"
#include "analytics/limits.hpp"

namespace cairn::analytics {

bool MatchesGlob(std::string_view pattern, std::string_view path) {
  // Iterative wildcard match with one backtrack point: linear for patterns of one `*`, never
  // exponential.
  std::size_t p = 0;
  std::size_t s = 0;
  std::size_t star = std::string_view::npos;
  std::size_t resume = 0;
  while (s < path.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      resume = s;
    } else if (p < pattern.size() && pattern[p] == path[s]) {
      ++p;
      ++s;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      s = ++resume;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

std::optional<std::string> ReferrerDomain(std::string_view url) {
  auto parsed = boost::urls::parse_absolute_uri(url);
  if (!parsed) return std::nullopt;
  const std::string scheme(parsed->scheme());
  if (scheme != "http" && scheme != "https") return std::nullopt;
  std::string host = parsed->encoded_host().decode();
  if (host.empty()) return std::nullopt;
  for (char& c : host) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (host.starts_with("www.")) host.erase(0, 4);
  return host;
}

std::int64_t FloorDiv(std::int64_t a, std::int64_t b) {
  return a / b - ((a % b != 0) && ((a < 0) != (b < 0)) ? 1 : 0);
}

namespace {

std::int64_t MonthStart(std::int64_t millis, int months_ahead) {
  using namespace std::chrono;
  const sys_days day{days{FloorDiv(millis, kDayMillis)}};
  year_month_day ymd{day};
  year_month first = ymd.year() / ymd.month();
  first += months{months_ahead};
  const sys_days start{first / std::chrono::day{1}};
  return static_cast<std::int64_t>(start.time_since_epoch().count()) * kDayMillis;
}

}  // namespace

std::int64_t PeriodStart(std::int64_t millis, Granularity granularity) {
  switch (granularity) {
    case Granularity::kHour:
      return FloorDiv(millis, kHourMillis) * kHourMillis;
    case Granularity::kDay:
      return FloorDiv(millis, kDayMillis) * kDayMillis;
    case Granularity::kWeek: {
      // Day 0 (1970-01-01) was a Thursday: (day + 3) mod 7 counts days since Monday.
      const std::int64_t day = FloorDiv(millis, kDayMillis);
      return (day - (((day + 3) % 7) + 7) % 7) * kDayMillis;
    }
    case Granularity::kMonth:
      return MonthStart(millis, 0);
  }
  return millis;
}

std::int64_t NextPeriod(std::int64_t start, Granularity granularity) {
  switch (granularity) {
    case Granularity::kHour:
      return start + kHourMillis;
    case Granularity::kDay:
      return start + kDayMillis;
    case Granularity::kWeek:
      return start + 7 * kDayMillis;
    case Granularity::kMonth:
      return MonthStart(start, 1);
  }
  return start;
}

}  // namespace cairn::analytics
