#include "support/mail_reader.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace cairn::test {
namespace {

using Headers = std::map<std::string, std::string>;

std::string Lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

// Splits `headers CRLF CRLF body`, unfolding continuation lines; duplicate names are an error.
Headers SplitHeaders(std::string_view raw, std::string_view& body) {
  const std::size_t end = raw.find("\r\n\r\n");
  if (end == std::string_view::npos) throw std::runtime_error("no blank line after the headers");
  body = raw.substr(end + 4);
  Headers headers;
  std::string name;
  std::string_view block = raw.substr(0, end + 2);
  while (!block.empty()) {
    const std::size_t eol = block.find("\r\n");
    const std::string_view line = block.substr(0, eol);
    block.remove_prefix(eol + 2);
    if (line.starts_with(' ') || line.starts_with('\t')) {
      if (name.empty()) throw std::runtime_error("continuation before the first header");
      headers[name] += line;  // unfolding removes only the CRLF
      continue;
    }
    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) throw std::runtime_error("header without a colon");
    name = Lower(line.substr(0, colon));
    std::string_view value = line.substr(colon + 1);
    while (value.starts_with(' ')) value.remove_prefix(1);
    if (!headers.emplace(name, std::string(value)).second) {
      throw std::runtime_error("duplicate header " + name);
    }
  }
  return headers;
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;  // RFC 2045: uppercase only
}

std::string DecodeBase64(std::string_view in) {
  static constexpr std::string_view kAlphabet =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  std::uint32_t bits = 0;
  int count = 0;
  for (char c : in) {
    if (c == '=') break;
    const std::size_t v = kAlphabet.find(c);
    if (v == std::string_view::npos) throw std::runtime_error("bad base64");
    bits = (bits << 6) | static_cast<std::uint32_t>(v);
    if (++count == 4) {
      out += static_cast<char>(bits >> 16);
      out += static_cast<char>(bits >> 8);
      out += static_cast<char>(bits);
      bits = 0;
      count = 0;
    }
  }
  if (count == 2) out += static_cast<char>(bits >> 4);
  if (count == 3) {
    out += static_cast<char>(bits >> 10);
    out += static_cast<char>(bits >> 2);
  }
  return out;
}

std::string CrlfToLf(std::string text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\r' && i + 1 < text.size() && text[i + 1] == '\n') continue;
    out += text[i];
  }
  return out;
}

void StorePart(ParsedMail& mail, const Headers& headers, std::string_view body) {
  const auto type = headers.find("content-type");
  const auto encoding = headers.find("content-transfer-encoding");
  if (type == headers.end()) throw std::runtime_error("part without Content-Type");
  std::string decoded(body);
  if (encoding != headers.end() && Lower(encoding->second) == "quoted-printable") {
    decoded = DecodeQuotedPrintable(body);
  }
  decoded = CrlfToLf(std::move(decoded));
  if (type->second.starts_with("text/plain")) {
    mail.text = std::move(decoded);
  } else if (type->second.starts_with("text/html")) {
    mail.html = std::move(decoded);
  } else {
    throw std::runtime_error("unexpected part type " + type->second);
  }
}

}  // namespace

std::string ParsedMail::Header(const std::string& lower_case_name) const {
  const auto it = headers.find(lower_case_name);
  return it == headers.end() ? std::string() : it->second;
}

ParsedMail ParseMail(std::string_view raw) {
  ParsedMail mail;
  std::string_view body;
  mail.headers = SplitHeaders(raw, body);
  mail.subject = DecodeEncodedWords(mail.Header("subject"));
  const std::string type = mail.Header("content-type");
  if (!type.starts_with("multipart/")) {
    StorePart(mail, mail.headers, body);
    return mail;
  }
  const std::size_t at = type.find("boundary=\"");
  if (at == std::string::npos) throw std::runtime_error("multipart without a quoted boundary");
  const std::size_t start = at + 10;
  const std::string boundary = "--" + type.substr(start, type.find('"', start) - start);
  // The CRLF before each delimiter belongs to the delimiter (RFC 2046 §5.1.1).
  std::size_t pos = body.find(boundary + "\r\n");
  if (pos != 0) throw std::runtime_error("multipart body does not start with the boundary");
  pos += boundary.size() + 2;
  while (true) {
    const std::size_t end = body.find("\r\n" + boundary, pos);
    if (end == std::string_view::npos) throw std::runtime_error("unterminated part");
    std::string_view part_body;
    const Headers part_headers = SplitHeaders(body.substr(pos, end - pos), part_body);
    StorePart(mail, part_headers, part_body);
    pos = end + 2 + boundary.size();
    if (body.substr(pos) == "--\r\n") return mail;
    if (body.substr(pos, 2) != "\r\n") throw std::runtime_error("malformed boundary line");
    pos += 2;
  }
}

std::string DecodeQuotedPrintable(std::string_view encoded) {
  std::string out;
  for (std::size_t i = 0; i < encoded.size(); ++i) {
    if (encoded[i] != '=') {
      out += encoded[i];
      continue;
    }
    if (encoded.substr(i + 1, 2) == "\r\n") {  // soft line break
      i += 2;
      continue;
    }
    const int high = i + 2 < encoded.size() ? HexValue(encoded[i + 1]) : -1;
    const int low = high >= 0 ? HexValue(encoded[i + 2]) : -1;
    if (low < 0) throw std::runtime_error("bad quoted-printable escape");
    out += static_cast<char>(high * 16 + low);
    i += 2;
  }
  return out;
}

std::string DecodeEncodedWords(std::string_view value) {
  std::string out;
  std::string pending_space;  // whitespace after an encoded-word: dropped if another follows
  bool after_word = false;
  while (!value.empty()) {
    if (value.starts_with("=?")) {
      const std::size_t q1 = value.find('?', 2);
      const std::size_t q2 = value.find('?', q1 + 1);
      const std::size_t end = value.find("?=", q2 + 1);
      if (end == std::string_view::npos || Lower(value.substr(q1 + 1, q2 - q1 - 1)) != "b") {
        throw std::runtime_error("unsupported encoded-word");
      }
      if (!after_word) out += pending_space;
      pending_space.clear();
      out += DecodeBase64(value.substr(q2 + 1, end - q2 - 1));
      value.remove_prefix(end + 2);
      after_word = true;
    } else if (value.front() == ' ' || value.front() == '\t') {
      pending_space += value.front();
      value.remove_prefix(1);
    } else {
      out += pending_space;
      pending_space.clear();
      out += value.front();
      value.remove_prefix(1);
      after_word = false;
    }
  }
  return out + pending_space;
}

std::string ReadFileBytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  std::ostringstream content;
  content << in.rdbuf();
  return content.str();
}

std::vector<std::filesystem::path> ListOutbox(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() == ".eml" && !entry.path().filename().string().starts_with(".")) {
      files.push_back(entry.path());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace cairn::test
