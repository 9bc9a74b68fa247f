#include "mail/mime.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <random>

#include "common/crypto.hpp"
#include "mail/limits.hpp"

namespace cairn::mail {
namespace {

constexpr char kHexUpper[] = "0123456789ABCDEF";
constexpr char kHexLower[] = "0123456789abcdef";

bool IsUtf8Continuation(char c) {
  return (std::uint8_t(c) & 0xC0) == 0x80;
}

// One quoted-printable line (no line break inside) appended with soft breaks.
void AppendQuotedPrintableLine(std::string& out, std::string_view line) {
  // Room for the `=` of a soft break: content of a physical line stays within 75 characters.
  constexpr std::size_t kMaxContent = kQuotedPrintableLineLength - 1;
  std::size_t column = 0;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const auto byte = std::uint8_t(line[i]);
    const bool last = i + 1 == line.size();
    const bool whitespace = byte == ' ' || byte == '\t';
    bool literal = (byte >= 33 && byte <= 126 && byte != '=') || (whitespace && !last);
    // A physical line starting with `.` would be dot-stuffed or misread by a naive relay.
    if (byte == '.' && column == 0) literal = false;
    const std::size_t width = literal ? 1 : 3;
    if (column + width > kMaxContent) {
      out += "=\r\n";
      column = 0;
      // The soft break moved this byte to the start of a line: re-check the `.` rule.
      if (byte == '.') literal = false;
    }
    if (literal) {
      out += char(byte);
      column += 1;
    } else {
      out += '=';
      out += kHexUpper[byte >> 4];
      out += kHexUpper[byte & 0xF];
      column += 3;
    }
  }
}

}  // namespace

std::string EncodeQuotedPrintable(std::string_view text) {
  std::string out;
  out.reserve(text.size() + text.size() / 8 + 16);
  std::size_t start = 0;
  while (true) {
    const std::size_t end = text.find_first_of("\r\n", start);
    AppendQuotedPrintableLine(out, text.substr(start, end - start));
    if (end == std::string_view::npos) break;
    out += "\r\n";
    start = end + 1;
    if (text[end] == '\r' && start < text.size() && text[start] == '\n') ++start;
  }
  return out;
}

std::string EncodeWords(std::string_view text, std::string_view separator) {
  std::string out;
  if (text.empty()) return out;
  std::size_t start = 0;
  do {
    std::size_t end = std::min(text.size(), start + kEncodedWordBytes);
    // Never split a UTF-8 sequence: back up to the start of the character that would be cut.
    // (Invalid input with a longer run of continuation bytes is cut anyway.)
    std::size_t cut = end;
    while (cut > start && cut < text.size() && IsUtf8Continuation(text[cut])) --cut;
    if (cut > start) end = cut;
    if (start > 0) out += separator;
    out += "=?utf-8?B?";
    out += crypto::Base64(text.substr(start, end - start));
    out += "?=";
    start = end;
  } while (start < text.size());
  return out;
}

bool IsPrintableAscii(std::string_view text) {
  for (char c : text) {
    if (c < 0x20 || c > 0x7E) return false;
  }
  return true;
}

bool HasControlCharacter(std::string_view text) {
  for (char c : text) {
    if (std::uint8_t(c) < 0x20 || c == 0x7F) return true;
  }
  return false;
}

std::string FormatDate(time::EpochMillis millis) {
  using namespace std::chrono;
  static constexpr std::array<const char*, 7> kDays = {"Sun", "Mon", "Tue", "Wed",
                                                       "Thu", "Fri", "Sat"};
  static constexpr std::array<const char*, 12> kMonths = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                          "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  const sys_time<milliseconds> tp{milliseconds{millis}};
  const auto day = floor<days>(tp);
  const year_month_day ymd{day};
  const hh_mm_ss<seconds> tod{floor<seconds>(tp - day)};
  char buffer[40];
  std::snprintf(buffer, sizeof buffer, "%s, %02u %s %04d %02d:%02d:%02d +0000",
                kDays[weekday{day}.c_encoding()], unsigned(ymd.day()),
                kMonths[unsigned(ymd.month()) - 1], int(ymd.year()), int(tod.hours().count()),
                int(tod.minutes().count()), int(tod.seconds().count()));
  return buffer;
}

std::string RandomHex(std::size_t bytes) {
  // Seeded per thread from the OS; unpredictability is not needed, only uniqueness.
  thread_local std::mt19937_64 engine = [] {
    std::random_device device;
    std::seed_seq seed{device(), device(), device(), device()};
    return std::mt19937_64(seed);
  }();
  std::string out;
  out.reserve(bytes * 2);
  std::uint64_t bits = 0;
  for (std::size_t i = 0; i < bytes; ++i) {
    if (i % 8 == 0) bits = engine();
    out += kHexLower[(bits >> 4) & 0xF];
    out += kHexLower[bits & 0xF];
    bits >>= 8;
  }
  return out;
}

}  // namespace cairn::mail
