#include "records/fields/codec_support.hpp"

#include <boost/json/array.hpp>

#include "common/json.hpp"
#include "common/text.hpp"

namespace cairn::records::fields {
namespace {

constexpr std::size_t kQuotedChars = 40;

bool ControlAllowed(unsigned char c, Controls controls) {
  switch (controls) {
    case Controls::kNone:
      return false;
    case Controls::kTab:
      return c == '\t';
    case Controls::kTabAndLineBreaks:
      return c == '\t' || c == '\n' || c == '\r';
  }
  return false;
}

std::string_view ControlsAccepted(Controls controls) {
  switch (controls) {
    case Controls::kNone:
      return "no control characters";
    case Controls::kTab:
      return "no line breaks or control characters other than tab";
    case Controls::kTabAndLineBreaks:
      return "no control characters other than tab, line feed and carriage return";
  }
  return "";
}

}  // namespace

Error Invalid(std::string message) {
  return Error::Validation(std::move(message));
}

Error WrongKind(const boost::json::value& input, std::string_view expected) {
  return Invalid("must be " + std::string(expected) + ", not " + std::string(KindName(input)));
}

Error AtItem(std::size_t index, Error error) {
  error.message.insert(0, "item " + std::to_string(index) + ": ");
  for (FieldError& part : error.errors) {
    part.field.insert(0, "[" + std::to_string(index) + "]" + (part.field.empty() ? "" : "."));
  }
  return error;
}

Error ReadOnly(std::string_view why) {
  return Invalid("is read-only: " + std::string(why));
}

std::string_view KindName(const boost::json::value& input) {
  switch (input.kind()) {
    case boost::json::kind::null:
      return "null";
    case boost::json::kind::bool_:
      return "a boolean";
    case boost::json::kind::int64:
    case boost::json::kind::uint64:
    case boost::json::kind::double_:
      return "a number";
    case boost::json::kind::string:
      return "a string";
    case boost::json::kind::array:
      return "an array";
    case boost::json::kind::object:
      return "an object";
  }
  return "a value";
}

std::string Quoted(std::string_view text) {
  std::size_t end = 0, chars = 0;
  while (end < text.size() && chars < kQuotedChars) {
    const std::size_t length = cairn::text::Utf8SequenceLength(text, end);
    end += length == 0 ? 1 : length;
    ++chars;
  }
  std::string out;
  json::AppendString(out, text.substr(0, end));
  if (end < text.size()) out.insert(out.size() - 1, "…");
  return out;
}

std::string JoinList(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& word : words) {
    if (!out.empty()) out += ", ";
    out += word;
  }
  return out;
}

std::optional<Error> CheckText(const boost::json::value& input, const TextRules& rules,
                               std::string_view expected) {
  if (!input.is_string()) return WrongKind(input, expected);
  const std::string_view text = input.get_string();
  if (!cairn::text::IsValidUtf8(text)) return Invalid("must be valid UTF-8 text");
  std::size_t chars = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    const bool c0 = c < 0x20 && !ControlAllowed(c, rules.controls);
    const bool c1 = c == 0xC2 && i + 1 < text.size() &&
                    static_cast<unsigned char>(text[i + 1]) <= 0x9F;  // U+0080–U+009F
    if (c0 || c == 0x7F || c1) {
      return Invalid("must be " + std::string(expected) + " with " +
                     std::string(ControlsAccepted(rules.controls)));
    }
    if ((c & 0xC0) != 0x80) ++chars;
  }
  if (rules.max_chars != 0 && chars > rules.max_chars) {
    return Invalid("must be at most " + std::to_string(rules.max_chars) + " characters long (has " +
                   std::to_string(chars) + ")");
  }
  if (chars < rules.min_chars) {
    return Invalid("must be at least " + std::to_string(rules.min_chars) +
                   " characters long (has " + std::to_string(chars) + ")");
  }
  return std::nullopt;
}

void AppendTextColumn(const db::Row& row, int column, std::string& out) {
  if (row.IsNull(column)) {
    out += "null";
    return;
  }
  json::AppendString(out, row.GetText(column));
}

void AppendJsonColumn(const db::Row& row, int column, std::string& out) {
  const std::string_view text = row.IsNull(column) ? std::string_view() : row.GetText(column);
  out += text.empty() ? std::string_view("null") : text;
}

boost::json::value NullableSchema(const config::Field& field, boost::json::object schema) {
  if (field.required) return schema;
  if (boost::json::value* type = schema.if_contains("type"); type != nullptr && type->is_string()) {
    *type = boost::json::array{*type, "null"};
  }
  if (boost::json::value* options = schema.if_contains("enum");
      options != nullptr && options->is_array()) {
    options->get_array().emplace_back(nullptr);
  }
  return schema;
}

void AddBounds(const config::Field& field, boost::json::object& schema) {
  const auto bound = [&](std::string_view key, const std::optional<double>& typed) {
    const boost::json::value* written = field.properties.if_contains(key);
    if (written != nullptr && written->is_number()) {
      schema[key == "min" ? "minimum" : "maximum"] = *written;
    } else if (typed) {
      schema[key == "min" ? "minimum" : "maximum"] = *typed;
    }
  };
  bound("min", field.min);
  bound("max", field.max);
}

}  // namespace cairn::records::fields
