#include "common/log.hpp"

#include <atomic>
#include <cstdio>
#include <mutex>
#include <string>

#include "common/time.hpp"

namespace cairn::log {
namespace {

std::atomic<int> g_level{static_cast<int>(Level::kInfo)};
std::mutex g_write_mutex;

std::string_view LevelName(Level level) {
  switch (level) {
    case Level::kDebug:
      return "DEBUG";
    case Level::kInfo:
      return "INFO";
    case Level::kWarn:
      return "WARN";
    case Level::kError:
      return "ERROR";
  }
  return "INFO";
}

}  // namespace

void SetLevel(Level level) {
  g_level.store(static_cast<int>(level));
}

bool ParseLevel(std::string_view text, Level& out) {
  if (text == "debug")
    out = Level::kDebug;
  else if (text == "info")
    out = Level::kInfo;
  else if (text == "warn" || text == "warning")
    out = Level::kWarn;
  else if (text == "error")
    out = Level::kError;
  else
    return false;
  return true;
}

bool Enabled(Level level) {
  return static_cast<int>(level) >= g_level.load(std::memory_order_relaxed);
}

void AppendEscaped(std::string& out, std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '\\') {
      out += "\\\\";
    } else if (byte < 0x20 || byte == 0x7f) {
      out += "\\x";
      out.push_back(kHex[byte >> 4]);
      out.push_back(kHex[byte & 0xf]);
    } else {
      out.push_back(c);
    }
  }
}

void Write(Level level, std::string_view message) {
  if (!Enabled(level)) return;
  std::string line;
  line.reserve(message.size() + 40);
  time::AppendIso(line, time::NowMillis());
  line.push_back(' ');
  line.append(LevelName(level));
  line.push_back(' ');
  AppendEscaped(line, message);
  line.push_back('\n');
  std::lock_guard lock(g_write_mutex);
  std::fwrite(line.data(), 1, line.size(), stderr);
  std::fflush(stderr);
}

}  // namespace cairn::log
