#include "config/value_formats.hpp"

#include <array>
#include <charconv>
#include <string>

#include <boost/url/parse.hpp>

#include "common/time.hpp"

namespace cairn::config {
namespace {

bool Digits(std::string_view text, std::size_t from, std::size_t count, int& out) {
  if (from + count > text.size()) return false;
  out = 0;
  for (std::size_t i = from; i < from + count; ++i) {
    if (text[i] < '0' || text[i] > '9') return false;
    out = out * 10 + (text[i] - '0');
  }
  return true;
}

bool IsLeapYear(int year) {
  return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
}

}  // namespace

bool IsValidUrl(std::string_view text) {
  auto url = boost::urls::parse_absolute_uri(text);
  if (!url) return false;
  const std::string scheme(url->scheme());
  if (scheme == "http" || scheme == "https" || scheme == "ftp")
    return url->has_authority() && !url->host().empty();
  return scheme == "mailto" || scheme == "tel";
}

bool IsValidDate(std::string_view text) {
  int year = 0, month = 0, day = 0;
  if (text.size() != 10 || text[4] != '-' || text[7] != '-') return false;
  if (!Digits(text, 0, 4, year) || !Digits(text, 5, 2, month) || !Digits(text, 8, 2, day)) {
    return false;
  }
  static constexpr std::array<int, 12> kDays = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (month < 1 || month > 12 || day < 1) return false;
  const int last =
      kDays[static_cast<std::size_t>(month - 1)] + (month == 2 && IsLeapYear(year) ? 1 : 0);
  return day <= last;
}

bool IsValidDatetime(std::string_view text) {
  return text.size() >= 16 && IsValidDate(text.substr(0, 10)) && time::ParseIso(text).has_value();
}

bool IsValidTime(std::string_view text) {
  int hour = 0, minute = 0, second = 0;
  if (text.size() != 5 && text.size() != 8) return false;
  if (text[2] != ':' || !Digits(text, 0, 2, hour) || !Digits(text, 3, 2, minute)) return false;
  if (text.size() == 8 && (text[5] != ':' || !Digits(text, 6, 2, second))) return false;
  return hour <= 23 && minute <= 59 && second <= 59;
}

int DecimalPlaces(double number) {
  std::array<char, 32> buffer;
  auto [end, ec] = std::to_chars(buffer.data(), buffer.data() + buffer.size(), number);
  if (ec != std::errc()) return 0;
  const std::string_view text(buffer.data(), static_cast<std::size_t>(end - buffer.data()));
  const std::size_t e = text.find_first_of("eE");
  const std::string_view mantissa = text.substr(0, e);
  int exponent = 0;
  if (e != std::string_view::npos) {
    std::string_view exp_text = text.substr(e + 1);
    if (!exp_text.empty() && exp_text[0] == '+') exp_text.remove_prefix(1);
    std::from_chars(exp_text.data(), exp_text.data() + exp_text.size(), exponent);
  }
  const std::size_t dot = mantissa.find('.');
  const int fraction =
      dot == std::string_view::npos ? 0 : static_cast<int>(mantissa.size() - dot - 1);
  return std::max(0, fraction - exponent);
}

}  // namespace cairn::config
