// The MIME encodings a message needs: quoted-printable bodies (RFC 2045), encoded-words for
// non-ASCII header text (RFC 2047), the RFC 5322 date, and random tokens for ids and boundaries.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "common/time.hpp"

namespace cairn::mail {

// Quoted-printable of UTF-8 text. Every line break (`\n`, `\r\n`, lone `\r`) becomes CRLF; lines
// are at most 76 characters (soft breaks `=`), `=`, non-ASCII and control bytes are `=XX`, and
// whitespace before a line break is encoded so transports cannot strip it. A `.` that starts a
// line is encoded too, so no line of the body can read as the end of SMTP DATA.
std::string EncodeQuotedPrintable(std::string_view text);

// RFC 2047 B-encoded words (`=?utf-8?B?...?=`), each at most 75 characters and holding whole
// UTF-8 characters, separated by `separator` (folding whitespace in headers).
std::string EncodeWords(std::string_view text, std::string_view separator = "\r\n ");

// True when every byte is printable ASCII (0x20–0x7E), so header text can go out unencoded.
bool IsPrintableAscii(std::string_view text);

// True when the text holds a byte below 0x20 or DEL: header values must not (CR/LF injection).
bool HasControlCharacter(std::string_view text);

// `Tue, 14 Nov 2023 22:13:20 +0000` (RFC 5322 §3.3), in UTC.
std::string FormatDate(time::EpochMillis millis);

// `bytes` random bytes as lower-case hex (Message-IDs, boundaries, file names; not secrets).
std::string RandomHex(std::size_t bytes);

}  // namespace cairn::mail
