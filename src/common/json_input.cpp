#include "common/json_input.hpp"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <optional>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include <boost/json/basic_parser_impl.hpp>
#include <boost/json/error.hpp>
#include <boost/json/parse_options.hpp>
#include <boost/json/value_stack.hpp>

#include "common/json.hpp"

namespace cairn::json {
namespace {

namespace bj = boost::json;

// Where the parser is: one frame per open object or array.
struct Frame {
  bool array = false;
  std::size_t index = 0;  // arrays: the element being parsed
  std::string key;        // objects: the member being parsed
  // Objects: the keys so far, in a vector while few (most bodies), in a set past kLinearKeys.
  std::vector<std::string> keys;
  std::unordered_set<std::string> many_keys;

  static constexpr std::size_t kLinearKeys = 16;

  // False when `k` was already a key of this object.
  bool AddKey(const std::string& k) {
    if (many_keys.empty()) {
      if (std::find(keys.begin(), keys.end(), k) != keys.end()) return false;
      keys.push_back(k);
      if (keys.size() > kLinearKeys) {
        many_keys.insert(std::make_move_iterator(keys.begin()),
                         std::make_move_iterator(keys.end()));
        keys.clear();
      }
      return true;
    }
    return many_keys.insert(k).second;
  }
};

// A boost::json::basic_parser handler that builds the value like boost::json::parse does and
// notes the text of each double by its JSON Pointer (nodes move while the tree is built, so
// they are found by pointer once it is complete).
class Handler {
 public:
  static constexpr std::size_t max_object_size = bj::object::max_size();
  static constexpr std::size_t max_array_size = bj::array::max_size();
  static constexpr std::size_t max_key_size = bj::string::max_size();
  static constexpr std::size_t max_string_size = bj::string::max_size();

  bj::value_stack stack;
  std::vector<std::pair<std::string, std::string>> number_texts;  // pointer, text
  std::optional<std::string> nul_path;                            // where a NUL was found
  std::optional<std::string> duplicate_path;                      // a key written twice

  explicit Handler(std::string_view root) : root_(root) {}

  bool on_document_begin(bj::error_code&) {
    stack.reset();
    return true;
  }
  bool on_document_end(bj::error_code&) { return true; }
  bool on_object_begin(bj::error_code&) {
    frames_.push_back({});
    return true;
  }
  bool on_object_end(std::size_t n, bj::error_code&) {
    frames_.pop_back();
    stack.push_object(n);
    return Done();
  }
  bool on_array_begin(bj::error_code&) {
    frames_.push_back({.array = true});
    return true;
  }
  bool on_array_end(std::size_t n, bj::error_code&) {
    frames_.pop_back();
    stack.push_array(n);
    return Done();
  }
  bool on_key_part(bj::string_view s, std::size_t, bj::error_code&) {
    key_.append(s.data(), s.size());
    stack.push_chars(s);
    return true;  // on_key checks the whole key
  }
  bool on_key(bj::string_view s, std::size_t, bj::error_code& ec) {
    key_.append(s.data(), s.size());
    frames_.back().key = std::move(key_);
    key_.clear();
    stack.push_key(s);
    // A NUL in a key is reported at the key itself.
    if (!CheckNul(frames_.back().key, ec)) return false;
    // Parsers disagree on which of two equal keys wins (a proxy may check one, cairn use the
    // other), so a key written twice is refused rather than resolved.
    if (!frames_.back().AddKey(frames_.back().key)) {
      duplicate_path = KeyPath();
      ec = bj::error::syntax;
      return false;
    }
    return true;
  }
  bool on_string_part(bj::string_view s, std::size_t, bj::error_code& ec) {
    stack.push_chars(s);
    return CheckNul(s, ec);
  }
  bool on_string(bj::string_view s, std::size_t, bj::error_code& ec) {
    stack.push_string(s);
    if (!CheckNul(s, ec)) return false;
    return Done();
  }
  bool on_number_part(bj::string_view s, bj::error_code&) {
    number_.append(s.data(), s.size());
    return true;
  }
  bool on_int64(std::int64_t i, bj::string_view, bj::error_code&) {
    number_.clear();
    stack.push_int64(i);
    return Done();
  }
  bool on_uint64(std::uint64_t u, bj::string_view, bj::error_code&) {
    number_.clear();
    stack.push_uint64(u);
    return Done();
  }
  bool on_double(double d, bj::string_view s, bj::error_code&) {
    number_.append(s.data(), s.size());
    if (!frames_.empty()) number_texts.emplace_back(Pointer(), std::move(number_));
    number_.clear();
    stack.push_double(d);
    return Done();
  }
  bool on_bool(bool b, bj::error_code&) {
    stack.push_bool(b);
    return Done();
  }
  bool on_null(bj::error_code&) {
    stack.push_null();
    return Done();
  }
  bool on_comment_part(bj::string_view, bj::error_code&) { return true; }
  bool on_comment(bj::string_view, bj::error_code&) { return true; }

 private:
  // A value ended: the enclosing array moves on to its next element.
  bool Done() {
    if (!frames_.empty() && frames_.back().array) ++frames_.back().index;
    return true;
  }

  bool CheckNul(std::string_view s, bj::error_code& ec) {
    if (s.find('\0') == std::string_view::npos) return true;
    nul_path = KeyPath();
    ec = bj::error::syntax;  // stops the parser; the caller reports nul_path
    return false;
  }

  // RFC 6901, for boost::json::value::find_pointer.
  std::string Pointer() const {
    std::string out;
    for (const Frame& frame : frames_) {
      out += '/';
      if (frame.array) {
        out += std::to_string(frame.index);
        continue;
      }
      for (const char c : frame.key) {
        if (c == '~') {
          out += "~0";
        } else if (c == '/') {
          out += "~1";
        } else {
          out += c;
        }
      }
    }
    return out;
  }

  // `records[2].fields.name`, as validation errors name fields.
  std::string KeyPath() const {
    std::string out(root_);
    for (const Frame& frame : frames_) {
      out = frame.array ? PathIndex(out, frame.index) : PathKey(out, frame.key);
    }
    return out;
  }

  std::string_view root_;
  std::vector<Frame> frames_;
  std::string key_;
  std::string number_;
};

}  // namespace

const std::string* NumberTexts::Find(const boost::json::value& number) const {
  const auto found = texts_.find(&number);
  return found == texts_.end() ? nullptr : &found->second;
}

void NumberTexts::Add(const boost::json::value& number, std::string text) {
  texts_.insert_or_assign(&number, std::move(text));
}

Result<InputDocument> ParseInput(std::string_view text, int max_depth, std::string_view what,
                                 std::string_view root) {
  bj::parse_options options;
  options.max_depth = static_cast<std::size_t>(max_depth);
  bj::basic_parser<Handler> parser(options, root);
  bj::error_code ec;
  const std::size_t used = parser.write_some(false, text.data(), text.size(), ec);
  if (parser.handler().nul_path) {
    return Error::Validation(std::string(what) + " must not contain NUL characters",
                             {{*parser.handler().nul_path, "must not contain NUL characters"}});
  }
  if (parser.handler().duplicate_path) {
    return Error::Validation(std::string(what) + " must not write a key twice",
                             {{*parser.handler().duplicate_path, "is written more than once"}});
  }
  if (!ec && used != text.size()) ec = bj::error::extra_data;
  if (ec == bj::error::too_deep) {
    return Error::Validation(std::string(what) + " nesting exceeds " + std::to_string(max_depth) +
                             " levels");
  }
  if (ec) return Error::Validation("Malformed " + std::string(what) + ": " + ec.message());
  InputDocument document{parser.handler().stack.release(), {}};
  for (auto& [pointer, number] : parser.handler().number_texts) {
    bj::error_code missing;
    const bj::value* node = document.value.find_pointer(pointer, missing);
    if (node != nullptr && node->is_double()) document.numbers.Add(*node, std::move(number));
  }
  return document;
}

}  // namespace cairn::json
