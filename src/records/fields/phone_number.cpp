// phone-number: plain text as written (no formatting), 3–32 characters of digits, spaces and
// + - ( ) . with at least 3 digits and `+` only in front.
#include <string_view>

#include "records/fields/codec_support.hpp"
#include "records/fields/codecs.hpp"

namespace cairn::records::fields {
namespace {

constexpr std::size_t kMinChars = 3;
constexpr std::size_t kMaxChars = 32;
constexpr std::size_t kMinDigits = 3;
constexpr std::string_view kAccepted =
    "a phone number of 3 to 32 characters: digits, spaces and + - ( ) . (such as +1 555-0100)";

bool IsPhoneNumber(std::string_view text) {
  if (text.size() < kMinChars || text.size() > kMaxChars) return false;
  std::size_t digits = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c >= '0' && c <= '9') {
      ++digits;
    } else if (c == '+') {
      if (i != 0) return false;
    } else if (c != ' ' && c != '-' && c != '(' && c != ')' && c != '.') {
      return false;
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
    return NullableSchema(field, {{"type", "string"},
                                  {"minLength", kMinChars},
                                  {"maxLength", kMaxChars},
                                  {"pattern", "^\\+?[0-9 ().-]+$"}});
  }
};

}  // namespace

const FieldCodec& PhoneNumberCodec() {
  static const PhoneNumberCodecImpl codec;
  return codec;
}

}  // namespace cairn::records::fields
