// Limits and timeouts of the mail module, in one place (ARCHITECTURE.md, "Names and size").
#pragma once

#include <chrono>
#include <cstddef>

namespace cairn::mail {

// SMTP: a server that does not answer the TCP/TLS handshake within kConnectTimeout, or a whole
// exchange that takes longer than kTotalTimeout, fails the send with Error::Unavailable. Both are
// short because Send runs on a worker thread that a request is waiting on.
inline constexpr std::chrono::milliseconds kConnectTimeout{10'000};
inline constexpr std::chrono::milliseconds kTotalTimeout{30'000};

// RFC 5321 §4.5.3.1: 64 octets of local part (the whole path's 254 is common/email.hpp's).
inline constexpr std::size_t kMaxLocalPartLength = 64;
// Display names and subjects longer than this are refused rather than folded over many lines.
inline constexpr std::size_t kMaxDisplayNameBytes = 200;
inline constexpr std::size_t kMaxSubjectBytes = 900;

// RFC 5322 §2.1.1: header lines SHOULD stay within 78 characters (folded at whitespace).
inline constexpr std::size_t kHeaderLineLength = 78;
// RFC 2045 §6.7: encoded lines at most 76 characters; 75 plus the `=` of a soft line break.
inline constexpr std::size_t kQuotedPrintableLineLength = 76;
// RFC 2047 §2: an encoded-word is at most 75 characters, and a line holding one at most 76. A
// chunk of 39 bytes is 52 base64 characters, 64 with `=?utf-8?B?` and `?=`, so even the first
// word, after `Subject: `, stays within 76 (and within RFC 5322's 78).
inline constexpr std::size_t kEncodedWordBytes = 39;

// The durable queue (mail_queue.hpp): retries after kFirstRetryDelay, doubling up to
// kMaxRetryDelay, kMaxDeliveryAttempts attempts in all (about 11 hours), then the message is
// kept as failed. A node's claim on a message it is sending lasts kDeliveryClaim (longer than
// an SMTP exchange may take), then another node may send it. The sender looks for due messages
// every kSenderPollInterval, kRetryBatchSize at a time.
inline constexpr std::chrono::milliseconds kFirstRetryDelay{5'000};
inline constexpr std::chrono::milliseconds kMaxRetryDelay{3'600'000};
inline constexpr int kMaxDeliveryAttempts = 20;
inline constexpr std::chrono::milliseconds kDeliveryClaim{4 * kTotalTimeout};
inline constexpr std::chrono::milliseconds kSenderPollInterval{1'000};
inline constexpr int kRetryBatchSize = 16;

}  // namespace cairn::mail
