// One-time passwords for two-factor sign-in: HOTP (RFC 4226) and TOTP (RFC 6238) with
// HMAC-SHA1, 6 digits and 30-second steps, as authenticator apps and Better Auth use them, and
// the otpauth:// URI those apps scan.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace cairn::auth::totp {

inline constexpr int kDigits = 6;
inline constexpr std::int64_t kPeriodSeconds = 30;
// A code of the previous or the next step is accepted too (clock drift between phone and server).
inline constexpr std::int64_t kWindowSteps = 1;

// RFC 4226: the `digits`-digit code (1 to 8) of `key` at `counter`, zero-padded.
std::string Hotp(std::string_view key, std::uint64_t counter, int digits = kDigits);
// RFC 6238: the time step of a Unix time in seconds.
std::int64_t StepAt(std::int64_t unix_seconds);
// The step within kWindowSteps of `unix_seconds` whose code is `code`, or nullopt. Every step
// of the window is compared (in constant time), whichever matches.
std::optional<std::int64_t> MatchingStep(std::string_view key, std::string_view code,
                                         std::int64_t unix_seconds);

// RFC 4648 base32 without padding (the `secret` of an otpauth URI).
std::string Base32(std::string_view bytes);
// otpauth://totp/<issuer>:<account>?secret=…&issuer=…&digits=6&period=30, encoded exactly as
// Better Auth encodes it (encodeURIComponent for the label, form encoding for the query).
std::string KeyUri(std::string_view issuer, std::string_view account, std::string_view key);

}  // namespace cairn::auth::totp
