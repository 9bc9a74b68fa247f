#include "common/time.hpp"

#include <chrono>
#include <cstdio>

namespace cairn::time {
namespace {

bool ReadDigits(std::string_view text, std::size_t& pos, int count, int& out) {
  if (pos + count > text.size()) return false;
  int value = 0;
  for (int i = 0; i < count; ++i) {
    const char c = text[pos + i];
    if (c < '0' || c > '9') return false;
    value = value * 10 + (c - '0');
  }
  pos += count;
  out = value;
  return true;
}

bool Expect(std::string_view text, std::size_t& pos, char c) {
  if (pos < text.size() && text[pos] == c) {
    ++pos;
    return true;
  }
  return false;
}

}  // namespace

EpochMillis NowMillis() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

void AppendIso(std::string& out, EpochMillis millis) {
  using namespace std::chrono;
  const sys_time<milliseconds> tp{milliseconds{millis}};
  const auto day = floor<days>(tp);
  const year_month_day ymd{day};
  const hh_mm_ss hms{tp - day};
  const int year = static_cast<int>(ymd.year());
  if (year < 0 || year > 9999) {  // rare: printf handles signs and widths
    char buffer[40];
    const int n = std::snprintf(
        buffer, sizeof buffer, "%04d-%02u-%02uT%02d:%02d:%02d.%03dZ", year,
        static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()),
        static_cast<int>(hms.hours().count()), static_cast<int>(hms.minutes().count()),
        static_cast<int>(hms.seconds().count()), static_cast<int>(hms.subseconds().count()));
    out.append(buffer, static_cast<std::size_t>(n));
    return;
  }
  // Every record carries several timestamps: digits by hand, no printf on the hot path.
  char text[] = "0000-00-00T00:00:00.000Z";
  const auto put = [&text](std::size_t at, unsigned value, int width) {
    for (int i = width - 1; i >= 0; --i, value /= 10) {
      text[at + static_cast<std::size_t>(i)] = static_cast<char>('0' + value % 10);
    }
  };
  put(0, static_cast<unsigned>(year), 4);
  put(5, static_cast<unsigned>(ymd.month()), 2);
  put(8, static_cast<unsigned>(ymd.day()), 2);
  put(11, static_cast<unsigned>(hms.hours().count()), 2);
  put(14, static_cast<unsigned>(hms.minutes().count()), 2);
  put(17, static_cast<unsigned>(hms.seconds().count()), 2);
  put(20, static_cast<unsigned>(hms.subseconds().count()), 3);
  out.append(text, sizeof text - 1);
}

std::string FormatIso(EpochMillis millis) {
  std::string out;
  AppendIso(out, millis);
  return out;
}

std::optional<EpochMillis> ParseIso(std::string_view text) {
  using namespace std::chrono;
  std::size_t pos = 0;
  int y, mo, d, h, mi, s = 0, ms = 0;
  if (!ReadDigits(text, pos, 4, y) || !Expect(text, pos, '-') || !ReadDigits(text, pos, 2, mo) ||
      !Expect(text, pos, '-') || !ReadDigits(text, pos, 2, d)) {
    return std::nullopt;
  }
  if (!Expect(text, pos, 'T') && !Expect(text, pos, ' ')) return std::nullopt;
  if (!ReadDigits(text, pos, 2, h) || !Expect(text, pos, ':') || !ReadDigits(text, pos, 2, mi)) {
    return std::nullopt;
  }
  if (Expect(text, pos, ':')) {
    if (!ReadDigits(text, pos, 2, s)) return std::nullopt;
    if (Expect(text, pos, '.')) {
      int digits = 0;
      while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
        if (digits < 3) ms = ms * 10 + (text[pos] - '0');
        ++digits;
        ++pos;
      }
      if (digits == 0) return std::nullopt;
      for (int i = digits; i < 3; ++i) ms *= 10;
    }
  }
  int offset_minutes = 0;
  if (Expect(text, pos, 'Z') || Expect(text, pos, 'z')) {
  } else if (pos < text.size() && (text[pos] == '+' || text[pos] == '-')) {
    const int sign = text[pos] == '-' ? -1 : 1;
    ++pos;
    int oh, om = 0;
    if (!ReadDigits(text, pos, 2, oh)) return std::nullopt;
    if (Expect(text, pos, ':')) {
      if (!ReadDigits(text, pos, 2, om)) return std::nullopt;
    } else if (pos < text.size()) {
      if (!ReadDigits(text, pos, 2, om)) return std::nullopt;
    }
    if (oh > 23 || om > 59) return std::nullopt;
    offset_minutes = sign * (oh * 60 + om);
  } else {
    return std::nullopt;
  }
  if (pos != text.size()) return std::nullopt;
  if (h > 23 || mi > 59 || s > 59) return std::nullopt;
  const year_month_day ymd{year{y}, month{static_cast<unsigned>(mo)},
                           day{static_cast<unsigned>(d)}};
  if (!ymd.ok()) return std::nullopt;
  const auto tp = sys_days{ymd} + hours{h} + minutes{mi} + seconds{s} + milliseconds{ms} -
                  minutes{offset_minutes};
  return duration_cast<milliseconds>(tp.time_since_epoch()).count();
}

}  // namespace cairn::time
