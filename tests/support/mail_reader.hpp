// Reads the messages cairn sends (outbox .eml files, or what an SMTP sink received): headers,
// the decoded subject, and the decoded text and HTML bodies, so tests can pick out links and
// codes. Supports exactly what src/mail writes: quoted-printable parts, B encoded-words.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace cairn::test {

struct ParsedMail {
  std::map<std::string, std::string> headers;  // lower-case name → unfolded raw value
  std::string subject;                         // RFC 2047-decoded
  std::string text;                            // decoded, line breaks as `\n`
  std::string html;                            // empty when the message has no HTML part

  std::string Header(const std::string& lower_case_name) const;
};

// Throws std::runtime_error when the text is not a message src/mail could have written.
ParsedMail ParseMail(std::string_view raw);

std::string DecodeQuotedPrintable(std::string_view encoded);
// Decodes `=?utf-8?B?...?=` words (and drops the whitespace between adjacent ones).
std::string DecodeEncodedWords(std::string_view value);

std::string ReadFileBytes(const std::filesystem::path& path);
// The outbox's `*.eml` files, oldest first (their names sort in send order).
std::vector<std::filesystem::path> ListOutbox(const std::filesystem::path& dir);

}  // namespace cairn::test
