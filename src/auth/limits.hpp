// Auth constants (D11, D14): lifetimes, hashing cost, input bounds. Documented in docs/auth.md.
#pragma once

#include <cstddef>
#include <cstdint>

namespace cairn::auth {

inline constexpr std::int64_t kMillisPerDay = 24LL * 60 * 60 * 1000;
// A session lives 7 days and is extended when used more than a day after its last refresh.
inline constexpr std::int64_t kSessionLifetimeMillis = 7 * kMillisPerDay;
inline constexpr std::int64_t kSessionRefreshAgeMillis = kMillisPerDay;
// rememberMe: false gives a browser-session cookie and a session that ends within a day.
inline constexpr std::int64_t kShortSessionLifetimeMillis = kMillisPerDay;
// On SQLite (one node), a resolved session is reused for this long, so a burst of requests with
// one token reads the database once; every auth write clears the cache at once. PostgreSQL's
// nodes do not cache: a revocation on one must end the session on all of them at once (D11).
inline constexpr std::int64_t kSessionCacheTtlMillis = 1000;
// Past this many cached sessions the expired ones go, then all of them if none had expired.
inline constexpr std::size_t kSessionCacheMaxEntries = 10000;
// Impersonation sessions are short on purpose.
inline constexpr std::int64_t kImpersonationLifetimeMillis = 60LL * 60 * 1000;
// Expired sessions and tokens are deleted at startup and then at most this often.
inline constexpr std::int64_t kPurgeIntervalMillis = 60LL * 60 * 1000;
// D19a: delete-user without the password needs a session this young (Better Auth's freshAge);
// the erasure follows after ACCOUNT_DELETION_GRACE_DAYS, by default this many.
inline constexpr std::int64_t kFreshSessionMillis = kMillisPerDay;
inline constexpr std::int64_t kDefaultDeletionGraceDays = 7;
// The purge job erases at most this many accounts per run (the next run takes the rest).
inline constexpr int kMaxErasuresPerRun = 1000;
// Email verification, password reset and email change links.
inline constexpr std::int64_t kEmailTokenLifetimeMillis = 60LL * 60 * 1000;

// Magic links and email one-time codes (D19): both live 5 minutes; a code has 6 digits and
// allows 3 guesses, after which a new one must be asked for.
inline constexpr std::int64_t kMagicLinkLifetimeMillis = 5LL * 60 * 1000;
inline constexpr std::int64_t kEmailOtpLifetimeMillis = 5LL * 60 * 1000;
inline constexpr int kEmailOtpDigits = 6;
inline constexpr int kEmailOtpMaxAttempts = 3;
// Per address the `one-time-code` rate-limit group applies (ratelimit/limits.hpp); per email
// address, on top of it: at most this many codes or links mailed, and this many code guesses
// (across codes), per kOneTimeCodeEmailWindowMillis. Anyone may ask for mail to any address,
// so the first bounds mail to one inbox; the second bounds guesses at one account however many
// client addresses the guesser has.
inline constexpr std::int64_t kOneTimeCodeEmailWindowMillis = 15LL * 60 * 1000;
inline constexpr int kOneTimeCodeMailsPerEmail = 5;
inline constexpr int kOneTimeCodeGuessesPerEmail = 10;

// Session tokens: 32 characters from [A-Za-z0-9] (190 bits), as Better Auth issues them.
inline constexpr std::size_t kSessionTokenLength = 32;
inline constexpr std::size_t kIdLength = 32;

// argon2id at OWASP's baseline (m = 19 MiB, t = 2, p = 1).
inline constexpr unsigned long long kPasswordHashOps = 2;
inline constexpr std::size_t kPasswordHashMemoryBytes = 19 * 1024 * 1024;

// Default password bounds (D11); the emailAndPassword strategy may narrow or widen them.
inline constexpr int kDefaultMinPasswordLength = 8;
inline constexpr int kDefaultMaxPasswordLength = 128;

// Input bounds: RFC 5321 caps an address at 254 octets.
inline constexpr std::size_t kMaxEmailLength = 254;
inline constexpr std::size_t kMaxNameLength = 256;
inline constexpr std::size_t kMaxImageLength = 2048;
inline constexpr std::size_t kMaxUserAgentLength = 512;
inline constexpr std::size_t kMaxBanReasonLength = 1000;

// admin/list-users paging.
inline constexpr int kDefaultListUsersLimit = 100;
inline constexpr int kMaxListUsersLimit = 1000;

// --- Two-factor (D19), as Better Auth's twoFactor plugin ---
// The sign-in challenge (the `two_factor` cookie) between password and second factor.
inline constexpr std::int64_t kTwoFactorChallengeLifetimeMillis = 10LL * 60 * 1000;
// Wrong TOTP or backup codes one challenge allows; then a new sign-in is needed.
inline constexpr int kTwoFactorAttemptsPerChallenge = 5;
// A trusted device (the `trust_device` cookie) skips the challenge this long.
inline constexpr std::int64_t kTrustDeviceLifetimeMillis = 30 * kMillisPerDay;
// Mailed one-time codes: digits, lifetime, wrong guesses per code.
inline constexpr int kTwoFactorOtpDigits = 6;
inline constexpr std::int64_t kTwoFactorOtpLifetimeMillis = 3LL * 60 * 1000;
inline constexpr int kTwoFactorOtpAttempts = 5;
// TOTP secrets are this many random alphanumeric characters (used as the HMAC key's bytes).
inline constexpr std::size_t kTotpSecretLength = 32;
// Backup codes: how many, and characters each (shown as two halves joined by '-').
inline constexpr int kBackupCodeCount = 10;
inline constexpr std::size_t kBackupCodeLength = 10;
// Longer submitted codes are wrong without further work.
inline constexpr std::size_t kMaxTwoFactorCodeLength = 64;
// Code guesses (TOTP, OTP, backup code) allowed per user and per client address within
// kCodeGuessWindowMillis, on top of the /api/auth route limits (D16); beyond them, 429.
inline constexpr int kCodeGuessesPerUser = 10;
inline constexpr int kCodeGuessesPerAddress = 20;
inline constexpr std::int64_t kCodeGuessWindowMillis = 5LL * 60 * 1000;

}  // namespace cairn::auth
