// phone-number: plain text as written (no formatting): a number of digits, spaces and + - ( ) .
// with at least 3 digits and `+` only in front, optionally followed by an extension the way
// people write one ("ext. 7", "extension 7", "x12", "#12"; 1 to 6 digits), 3–40 characters.
#include <cctype>
#include <string_view>

#include "records/fields/codec_support.hpp"
#include "records/fields/codecs.hpp"

namespace cairn::records::fields {
namespace {

constexpr std::size_t kMinChars = 3;
constexpr std::size_t kMaxChars = 40;
constexpr std::size_t kMinDigits = 3;
constexpr std::size_t kMaxExtensionDigits = 6;
constexpr std::string_view kAccepted =
    "a phone number of 3 to 40 characters: digits, spaces and + - ( ) ., optionally with an "
    "extension (such as +1 555-0100 or 555-0100 ext. 12)";

bool IsDigit(char c) {
  return c >= '0' && c <= '9';
}

bool StartsWithNoCase(std::string_view text, std::string_view prefix) {
  if (text.size() < prefix.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(text[i])) != prefix[i]) return false;
  }
  return true;
}

// The extension's marker at the start of `text`, longest first; 0 when there is none.
std::size_t ExtensionMarkerLength(std::string_view text) {
  for (std::string_view marker : {"extension", "ext.", "ext", "x", "#"}) {
    if (StartsWithNoCase(text, marker)) return marker.size();
  }
  return 0;
}

// `text` is " ext. 7", "x12", "#3": optional spaces, a marker, optional spaces, 1–6 digits.
bool IsExtension(std::string_view text) {
  std::size_t i = text.find_first_not_of(' ');
  if (i == std::string_view::npos) return false;
  const std::size_t marker = ExtensionMarkerLength(text.substr(i));
  if (marker == 0) return false;
  i = text.find_first_not_of(' ', i + marker);
  if (i == std::string_view::npos) return false;
  const std::string_view digits = text.substr(i);
  if (digits.empty() || digits.size() > kMaxExtensionDigits) return false;
  for (char c : digits) {
    if (!IsDigit(c)) return false;
  }
  return true;
}

bool IsPhoneNumber(std::string_view text) {
  if (text.size() < kMinChars || text.size() > kMaxChars) return false;
  std::size_t digits = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (IsDigit(c)) {
      ++digits;
    } else if (c == '+') {
      if (i != 0) return false;
    } else if (c != ' ' && c != '-' && c != '(' && c != ')' && c != '.') {
      // Only an extension may follow the number, and only after its digits.
      return digits >= kMinDigits && IsExtension(text.substr(i));
    }
  }
  return digits >= kMinDigits;
}

class PhoneNumberCodecImpl final : public TextColumnCodec {
 public:
  Result<db::Value> Parse(const config::Field& /*field*/,
                          const boost::json::value& input) const override {
    if (input.is_null()) return db::Value(db::Null{});
    if (!input.is_string()) return WrongKind(input, kAccepted);
    const std::string_view text = input.get_string();
    if (!IsPhoneNumber(text)) {
      return Invalid("must be " + std::string(kAccepted) + "; got " + Quoted(text));
    }
    return db::Value(std::string(text));
  }

  boost::json::value JsonSchema(const config::Field& field) const override {
    return NullableSchema(
        field, {{"type", "string"},
                {"minLength", kMinChars},
                {"maxLength", kMaxChars},
                {"pattern",
                 "^\\+?[0-9 ().-]+( *([Ee][Xx][Tt]([Ee][Nn][Ss][Ii][Oo][Nn]|\\.)?|[Xx]|#) "
                 "*[0-9]{1,6})?$"}});
  }
};

}  // namespace

const FieldCodec& PhoneNumberCodec() {
  static const PhoneNumberCodecImpl codec;
  return codec;
}

}  // namespace cairn::records::fields
