// Minimal leveled logging to stderr. Never pass tokens, passwords or secrets to it.
#pragma once

#include <string_view>

namespace cairn::log {

enum class Level { kDebug = 0, kInfo = 1, kWarn = 2, kError = 3 };

void SetLevel(Level level);
// `debug`, `info`, `warn`, `error`; false when unknown.
bool ParseLevel(std::string_view text, Level& out);
bool Enabled(Level level);
// Writes one line. Control characters and `\` in `message` are escaped (`\x0a`, `\\`), so text
// that came from a request (a decoded path, a header) can never forge a line of its own.
void Write(Level level, std::string_view message);
// The escaping Write applies, for tests and for callers that build lines elsewhere.
void AppendEscaped(std::string& out, std::string_view text);

inline void Debug(std::string_view message) {
  Write(Level::kDebug, message);
}
inline void Info(std::string_view message) {
  Write(Level::kInfo, message);
}
inline void Warn(std::string_view message) {
  Write(Level::kWarn, message);
}
inline void Error(std::string_view message) {
  Write(Level::kError, message);
}

}  // namespace cairn::log
