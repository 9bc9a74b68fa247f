// HTTP limits (D61). Every limit answers with a clear 4xx, never a 500 or a hang.
#pragma once

#include <chrono>
#include <cstddef>

namespace cairn::http {

inline constexpr std::size_t kMaxHeaderBytes = 16 * 1024;       // 431 past this
inline constexpr std::size_t kMaxBodyBytes = 10 * 1024 * 1024;  // 413 past this
inline constexpr int kMaxJsonDepth = 64;                        // 400 past this
inline constexpr std::size_t kMaxRequestIdLength = 128;         // longer incoming ids are replaced
// A request's headers and body must arrive within this time once its first byte has.
inline constexpr std::chrono::seconds kRequestReadTimeout{30};
// A keep-alive connection with no request in flight is closed after this.
inline constexpr std::chrono::seconds kIdleTimeout{60};
inline constexpr std::chrono::seconds kWriteTimeout{30};
// Graceful shutdown waits this long for in-flight requests (D5).
inline constexpr std::chrono::seconds kShutdownGrace{10};

}  // namespace cairn::http
