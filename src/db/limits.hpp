// Every tunable of the database layer, named in one place.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace cairn::db {

// --- Both backends ------------------------------------------------------------------------------
// Prepared statements kept per connection (least recently used ones are finalized beyond this).
inline constexpr std::size_t kStatementCacheCapacity = 256;
// A write transaction failing with kBusy is run again, at most this many times in all, sleeping
// kRetryBackoffBase * 2^attempt (plus jitter) in between.
inline constexpr int kMaxTransactionAttempts = 6;
inline constexpr std::chrono::milliseconds kRetryBackoffBase{5};
// How long Transaction waits for a connection (or for the SQLite writer) before kUnavailable.
inline constexpr std::chrono::milliseconds kAcquireTimeout{15000};
// Ping's deadline (the health check).
inline constexpr std::chrono::milliseconds kPingTimeout{2000};
// Close() waits this long for transactions in flight before closing their connections anyway.
inline constexpr std::chrono::milliseconds kCloseGrace{10000};

// --- SQLite
// --------------------------------------------------------------------------------------- Every
// commit is fsynced before it is acknowledged, so acknowledged writes survive a process kill and a
// power loss (NORMAL in WAL mode may lose the last commits on power loss).
inline constexpr std::string_view kSqliteSynchronous = "FULL";
// How long a connection waits on a lock held by another process before SQLITE_BUSY.
inline constexpr std::chrono::milliseconds kSqliteBusyTimeout{5000};
// Bytes of the database file each connection reads through a memory map instead of read()
// calls into its own page cache: scans of large tables stop copying every page per query, and
// all connections share the operating system's cached pages. Address space, not memory.
inline constexpr std::int64_t kSqliteMmapBytes = 256LL * 1024 * 1024;
// Reader connections (concurrent read transactions) when DatabaseOptions::pool_size is 0.
inline constexpr int kDefaultSqliteReaders = 4;
// The background checkpointer copies the WAL into the database (PASSIVE, never blocking
// anyone) once this many frames are in the WAL ...
inline constexpr int kSqliteCheckpointFrames = 1000;
// ... and forces it back to empty (TRUNCATE, waiting briefly for readers) once the WAL file
// grows past this many bytes, so the WAL stays bounded even under a steady stream of readers.
inline constexpr std::int64_t kSqliteWalLimitBytes = 64LL * 1024 * 1024;
// The checkpointer also wakes this often when no commit signalled it.
inline constexpr std::chrono::milliseconds kSqliteCheckpointInterval{1000};

// --- PostgreSQL
// ----------------------------------------------------------------------------------- Connections
// per node when DatabaseOptions::pool_size is 0.
inline constexpr int kDefaultPostgresPoolSize = 8;
// Defaults of the DATABASE_* settings (db::PostgresOptions, docs/settings.md).
// libpq connect_timeout (seconds) unless the URL sets one.
inline constexpr int kPostgresConnectTimeoutSeconds = 10;
// statement_timeout: a statement running longer is cancelled (SQLSTATE 57014 → 503).
inline constexpr int kPostgresStatementTimeoutMs = 30'000;
// lock_timeout: a wait for a row or table lock longer than this fails (55P03 → 503).
inline constexpr int kPostgresLockTimeoutMs = 10'000;
// idle_in_transaction_session_timeout: the server ends a session idle inside a transaction.
inline constexpr int kPostgresIdleInTransactionTimeoutMs = 60'000;
// TCP keepalives: a silent peer is probed after this much idle time, every interval, and given
// up after count unanswered probes (about 110 s for a server that vanished without a FIN).
inline constexpr int kPostgresKeepalivesIdleSeconds = 60;
inline constexpr int kPostgresKeepalivesIntervalSeconds = 10;
inline constexpr int kPostgresKeepalivesCount = 5;
// Failures to (re)connect are logged at most once per this interval per pool; the next line
// says how many were left out.
inline constexpr std::chrono::milliseconds kReconnectLogInterval{10'000};
// The Retry-After hint of an answer that a database timeout or a full disk cut short.
inline constexpr int kRetryAfterSeconds = 5;

// NOTIFY payloads (NotificationChannel): PostgreSQL refuses 8000 bytes and more, so past this a
// payload is stored in `_cairn_notifications` and the notification names its row, which is
// deleted after the retention (listeners read it within moments).
inline constexpr std::size_t kMaxNotifyPayloadBytes = 7000;
inline constexpr int kNotificationRetentionSeconds = 60;
// A listener whose connection was lost tries again this often.
inline constexpr std::chrono::milliseconds kListenReconnectInterval{1000};
// How long a listener waits on its socket before it checks whether it should stop.
inline constexpr std::chrono::milliseconds kListenPollInterval{250};

}  // namespace cairn::db
