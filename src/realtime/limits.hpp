// The limits that keep realtime subscriptions (D53) from taking the server down.
#pragma once

#include <chrono>
#include <cstddef>

namespace cairn::realtime {

// Live subscriptions per user, over every table and node-local connection; one more → 429.
inline constexpr int kMaxSubscriptionsPerUser = 10;
// The seconds a refused subscriber is told to wait (Retry-After).
inline constexpr int kSubscriptionRetryAfterSeconds = 5;
// A client frame (or message) larger than this closes the connection (1009, too big): clients
// only send pings.
inline constexpr std::size_t kMaxClientFrameBytes = 4096;
// The send queue of one connection. A subscriber that lets more pile up (it reads slower than
// changes come) is closed with 1013, so memory stays bounded whatever it does.
inline constexpr std::size_t kMaxQueuedMessages = 1000;
inline constexpr std::size_t kMaxQueuedBytes = std::size_t{1} << 20;
// The hub dispatches at most once per this while changes keep coming: what commits meanwhile is
// read, framed and handed to the network threads together. A change after a quiet spell goes at
// once; under a stream each waits at most this long, and the cost of a round (a read per
// permission group, waking each network thread, a queue entry and a socket write per
// subscriber) is paid per window, not per change (bench/realtime and docs/realtime.md: with
// 1,000 subscribers it doubled the write rate of dispatching each change on its own).
inline constexpr std::chrono::milliseconds kDispatchWindow{50};
// A connection writes at most once per this while messages keep coming (what arrives meanwhile
// goes out in the same write). Shorter than kDispatchWindow, so a dispatch round is written at
// once; it gathers what else comes (pongs, resyncs, rounds of a busy hub).
inline constexpr std::chrono::milliseconds kCoalesceWindow{20};
// With several nodes (PostgreSQL), committed changes go out to every node as one NOTIFY at most
// once per this while commits keep coming; one after a quiet spell goes at once. Each NOTIFY is a
// transaction of its own on PostgreSQL (bench/realtime: one per commit held writes without
// subscribers to 3,180–3,750 a second, one per window lets 4,390–4,540 through).
inline constexpr std::chrono::milliseconds kSendWindow{10};
// Committed changes waiting for the dispatcher; past this the change is dropped and the table's
// subscribers get a `resync` message instead.
inline constexpr std::size_t kMaxPendingChanges = 100'000;
// `{type:"heartbeat"}` after this much silence (D53).
inline constexpr std::chrono::seconds kHeartbeatInterval{30};
// How often every subscription's session is checked again: a revoked session, a banned user or
// a role that lost read access closes it (1008) within this plus one check.
inline constexpr std::chrono::seconds kRevalidateInterval{2};
// At shutdown: how long subscribers get to answer the 1001 close.
inline constexpr std::chrono::milliseconds kShutdownGrace{2000};

}  // namespace cairn::realtime
