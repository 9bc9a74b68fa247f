#include "mail/message_builder.hpp"

#include "mail/limits.hpp"
#include "mail/mime.hpp"

namespace cairn::mail {
namespace {

void AppendHeader(std::string& out, std::string_view name, std::string_view value) {
  out.append(name).append(": ").append(value).append("\r\n");
}

// Plain ASCII subjects are folded at spaces (unfolding removes only the CRLF, so the text is
// unchanged); anything else becomes encoded-words. kMaxSubjectBytes keeps even an unfoldable
// subject within the 998-character hard line limit, so folding here is only for readability.
void AppendSubject(std::string& out, std::string_view subject) {
  constexpr std::string_view kName = "Subject: ";
  out += kName;
  if (!IsPrintableAscii(subject) || subject.find("=?") != std::string_view::npos) {
    out += EncodeWords(subject);
    out += "\r\n";
    return;
  }
  std::size_t column = kName.size();
  std::size_t start = 0;
  while (true) {
    const std::size_t space = subject.find(' ', start);
    const std::string_view word =
        subject.substr(start, space == std::string_view::npos ? space : space - start);
    if (start > 0) {
      // Fold only before a non-empty word, so no folded line is whitespace alone.
      if (!word.empty() && column + 1 + word.size() > kHeaderLineLength) {
        out += "\r\n";
        column = 0;
      }
      out += ' ';
      ++column;
    }
    out += word;
    column += word.size();
    if (space == std::string_view::npos) break;
    start = space + 1;
  }
  out += "\r\n";
}

// The part's headers and encoded body. Inside a multipart the CRLF before the next boundary
// belongs to the boundary (RFC 2046 §5.1.1), so it is always added and the body round-trips
// exactly; a single part only needs the message to end with CRLF.
void AppendPart(std::string& out, std::string_view type, std::string_view body, bool in_multipart) {
  AppendHeader(out, "Content-Type", std::string(type) + "; charset=utf-8");
  AppendHeader(out, "Content-Transfer-Encoding", "quoted-printable");
  out += "\r\n";
  out += EncodeQuotedPrintable(body);
  if (in_multipart || !out.ends_with("\r\n")) out += "\r\n";
}

Error InvalidSubject(std::string message) {
  return Error::Validation(message, {FieldError{"subject", message}});
}

}  // namespace

Result<BuiltMessage> BuildMessage(const Message& message, const Mailbox& from,
                                  time::EpochMillis now) {
  CAIRN_ASSIGN_OR_RETURN(const Mailbox to, ParseMailbox(message.to, "to"));
  if (message.subject.find_first_of("\r\n") != std::string::npos) {
    return InvalidSubject("subject must not contain line breaks");
  }
  if (HasControlCharacter(message.subject)) {
    return InvalidSubject("subject must not contain control characters");
  }
  if (message.subject.size() > kMaxSubjectBytes) return InvalidSubject("subject is too long");

  BuiltMessage built;
  built.envelope_from = from.address;
  built.envelope_to = to.address;
  built.message_id =
      "<" + RandomHex(16) + "." + std::to_string(now) + "@" + std::string(from.Domain()) + ">";

  std::string& out = built.data;
  out.reserve(1024 + message.text.size() * 11 / 10 + message.html.size() * 11 / 10);
  AppendHeader(out, "Date", FormatDate(now));
  AppendHeader(out, "From", FormatMailbox(from));
  AppendHeader(out, "To", FormatMailbox(to));
  AppendSubject(out, message.subject);
  AppendHeader(out, "Message-ID", built.message_id);
  AppendHeader(out, "MIME-Version", "1.0");
  if (message.html.empty()) {
    AppendPart(out, "text/plain", message.text, false);
    return built;
  }
  // `=_` cannot occur in quoted-printable text (a literal `=` is always `=3D`), so the boundary
  // can never collide with a body line.
  const std::string boundary = "=_cairn_" + RandomHex(16);
  AppendHeader(out, "Content-Type", "multipart/alternative; boundary=\"" + boundary + "\"");
  out += "\r\n";
  out += "--" + boundary + "\r\n";
  AppendPart(out, "text/plain", message.text, true);
  out += "--" + boundary + "\r\n";
  AppendPart(out, "text/html", message.html, true);
  out += "--" + boundary + "--\r\n";
  return built;
}

}  // namespace cairn::mail
