#include "config/json_lines.hpp"

#include <algorithm>

#include "common/json.hpp"

namespace cairn::config {
namespace {

// Line numbers for JSON text. The text has already been parsed by Boost.JSON, so it is valid;
// this walks it once more, only to note the line each key (or array item) starts on.

class JsonLineScanner {
 public:
  JsonLineScanner(std::string_view text, const std::string& file, LocationMap& locations,
                  std::vector<ConfigIssue>& issues)
      : text_(text), file_(file), locations_(locations), issues_(issues) {}

  void Scan(const std::string& root_path) {
    SkipSpace();
    locations_.Set(root_path, {file_, line_});
    Value(root_path, 0);
  }

 private:
  void SkipSpace() {
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (c == '\n') {
        ++line_;
      } else if (c != ' ' && c != '\t' && c != '\r') {
        break;
      }
      ++pos_;
    }
  }

  static void AppendUtf8(std::string& out, std::uint32_t cp) {
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

  std::uint32_t Hex4() {
    std::uint32_t cp = 0;
    for (int i = 0; i < 4 && pos_ < text_.size(); ++i, ++pos_) {
      const char c = text_[pos_];
      cp <<= 4;
      if (c >= '0' && c <= '9')
        cp |= static_cast<std::uint32_t>(c - '0');
      else if (c >= 'a' && c <= 'f')
        cp |= static_cast<std::uint32_t>(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F')
        cp |= static_cast<std::uint32_t>(c - 'A' + 10);
    }
    return cp;
  }

  std::string String() {
    std::string out;
    ++pos_;  // opening quote
    while (pos_ < text_.size() && text_[pos_] != '"') {
      char c = text_[pos_++];
      if (c != '\\') {
        out.push_back(c);
        continue;
      }
      if (pos_ >= text_.size()) break;
      c = text_[pos_++];
      switch (c) {
        case 'b':
          out.push_back('\b');
          break;
        case 'f':
          out.push_back('\f');
          break;
        case 'n':
          out.push_back('\n');
          break;
        case 'r':
          out.push_back('\r');
          break;
        case 't':
          out.push_back('\t');
          break;
        case 'u': {
          std::uint32_t cp = Hex4();
          if (cp >= 0xD800 && cp <= 0xDBFF && pos_ + 1 < text_.size() && text_[pos_] == '\\' &&
              text_[pos_ + 1] == 'u') {
            pos_ += 2;
            const std::uint32_t low = Hex4();
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
          }
          AppendUtf8(out, cp);
          break;
        }
        default:
          out.push_back(c);
      }
    }
    ++pos_;  // closing quote
    return out;
  }

  void Value(const std::string& path, int depth) {
    SkipSpace();
    if (pos_ >= text_.size()) return;
    const char c = text_[pos_];
    if (c == '{') {
      Object(path, depth);
    } else if (c == '[') {
      Array(path, depth);
    } else if (c == '"') {
      String();
    } else {
      while (pos_ < text_.size() &&
             std::string_view(",]} \t\r\n").find(text_[pos_]) == std::string_view::npos) {
        ++pos_;
      }
    }
  }

  void Object(const std::string& path, int depth) {
    ++pos_;
    std::vector<std::string> keys;
    SkipSpace();
    while (pos_ < text_.size() && text_[pos_] != '}') {
      SkipSpace();
      const int key_line = line_;
      std::string key = String();
      const std::string child = json::PathKey(path, key);
      if (std::find(keys.begin(), keys.end(), key) != keys.end()) {
        issues_.push_back({child, "duplicate key '" + key + "'", file_, key_line});
      }
      keys.push_back(std::move(key));
      locations_.Set(child, {file_, key_line});
      SkipSpace();
      ++pos_;  // ':'
      Value(child, depth + 1);
      SkipSpace();
      if (pos_ < text_.size() && text_[pos_] == ',') ++pos_;
      SkipSpace();
    }
    ++pos_;
  }

  void Array(const std::string& path, int depth) {
    ++pos_;
    std::size_t index = 0;
    SkipSpace();
    while (pos_ < text_.size() && text_[pos_] != ']') {
      SkipSpace();
      const std::string child = json::PathIndex(path, index++);
      locations_.Set(child, {file_, line_});
      Value(child, depth + 1);
      SkipSpace();
      if (pos_ < text_.size() && text_[pos_] == ',') ++pos_;
      SkipSpace();
    }
    ++pos_;
  }

  std::string_view text_;
  const std::string& file_;
  LocationMap& locations_;
  std::vector<ConfigIssue>& issues_;
  std::size_t pos_ = 0;
  int line_ = 1;
};

}  // namespace

void MapJsonLines(std::string_view text, const std::string& root_path, const std::string& file,
                  LocationMap& locations, std::vector<ConfigIssue>& issues) {
  JsonLineScanner(text, file, locations, issues).Scan(root_path);
}

std::pair<int, int> LineColumn(std::string_view text, std::size_t offset) {
  int line = 1, column = 1;
  for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return {line, column};
}

}  // namespace cairn::config
