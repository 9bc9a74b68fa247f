#include "storage/s3/s3_xml.hpp"

#include <charconv>

#include "common/time.hpp"

namespace cairn::storage::s3 {
namespace {

void AppendUtf8(std::string& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

// The next element `name` at or after `pos`: its raw text, with `pos` moved past its end tag.
// `<name/>` is empty text. nullopt when there is none (or it is not closed).
std::optional<std::string_view> NextElement(std::string_view xml, std::string_view name,
                                            std::size_t& pos) {
  const std::string open = "<" + std::string(name);
  while (true) {
    const std::size_t start = xml.find(open, pos);
    if (start == std::string_view::npos) return std::nullopt;
    std::size_t after = start + open.size();
    if (after >= xml.size()) return std::nullopt;
    const char next = xml[after];
    if (next != '>' && next != '/' && next != ' ' && next != '\t' && next != '\r' && next != '\n') {
      pos = after;  // a longer name with the same start ("<KeyCount>" for "<Key")
      continue;
    }
    const std::size_t tag_end = xml.find('>', after);
    if (tag_end == std::string_view::npos) return std::nullopt;
    if (xml[tag_end - 1] == '/') {
      pos = tag_end + 1;
      return std::string_view{};
    }
    const std::string close = "</" + std::string(name) + ">";
    const std::size_t end = xml.find(close, tag_end + 1);
    if (end == std::string_view::npos) return std::nullopt;
    pos = end + close.size();
    return xml.substr(tag_end + 1, end - tag_end - 1);
  }
}

std::optional<std::string> Child(std::string_view xml, std::string_view name) {
  std::size_t pos = 0;
  const auto raw = NextElement(xml, name, pos);
  if (!raw) return std::nullopt;
  return DecodeXmlText(*raw);
}

Error Malformed(std::string_view what) {
  return Error::Unavailable("File storage is unavailable",
                            "S3 ListObjectsV2 answer: " + std::string(what));
}

}  // namespace

std::optional<std::string> DecodeXmlText(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  std::size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (c != '&') {
      out.push_back(c);
      ++i;
      continue;
    }
    const std::size_t semi = text.find(';', i);
    if (semi == std::string_view::npos) return std::nullopt;
    const std::string_view entity = text.substr(i + 1, semi - i - 1);
    if (entity == "amp") {
      out.push_back('&');
    } else if (entity == "lt") {
      out.push_back('<');
    } else if (entity == "gt") {
      out.push_back('>');
    } else if (entity == "quot") {
      out.push_back('"');
    } else if (entity == "apos") {
      out.push_back('\'');
    } else if (entity.size() > 1 && entity[0] == '#') {
      const bool hex = entity[1] == 'x' || entity[1] == 'X';
      const std::string_view digits = entity.substr(hex ? 2 : 1);
      std::uint32_t cp = 0;
      const auto [end, ec] =
          std::from_chars(digits.data(), digits.data() + digits.size(), cp, hex ? 16 : 10);
      if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size() || cp == 0 ||
          cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
        return std::nullopt;
      }
      AppendUtf8(out, cp);
    } else {
      return std::nullopt;
    }
    i = semi + 1;
  }
  return out;
}

Result<ListResult> ParseListObjectsV2(std::string_view xml) {
  if (xml.find("<ListBucketResult") == std::string_view::npos) {
    return Malformed("no ListBucketResult");
  }
  ListResult result;
  std::size_t pos = 0;
  while (const auto contents = NextElement(xml, "Contents", pos)) {
    ListedObject object;
    const auto key = Child(*contents, "Key");
    if (!key || key->empty()) return Malformed("an object without a Key");
    object.key = *key;
    const auto size = Child(*contents, "Size");
    if (!size) return Malformed("no Size for " + object.key);
    const auto [end, ec] = std::from_chars(size->data(), size->data() + size->size(), object.size);
    if (ec != std::errc() || end != size->data() + size->size()) {
      return Malformed("bad Size for " + object.key);
    }
    object.etag = Child(*contents, "ETag").value_or("");
    if (const auto modified = Child(*contents, "LastModified")) {
      object.last_modified_ms = time::ParseIso(*modified).value_or(0);
    }
    result.objects.push_back(std::move(object));
  }
  result.truncated = Child(xml, "IsTruncated").value_or("false") == "true";
  result.next_continuation_token = Child(xml, "NextContinuationToken").value_or("");
  if (result.truncated && result.next_continuation_token.empty()) {
    return Malformed("truncated without a NextContinuationToken");
  }
  return result;
}

S3ErrorBody ParseErrorBody(std::string_view xml) {
  S3ErrorBody body;
  std::size_t pos = 0;
  const auto error = NextElement(xml, "Error", pos);
  if (!error) return body;
  body.code = Child(*error, "Code").value_or("");
  body.message = Child(*error, "Message").value_or("");
  return body;
}

}  // namespace cairn::storage::s3
