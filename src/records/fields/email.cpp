// email: an address by the WHATWG grammar browsers use (common/email.hpp), stored as written.
#include "common/email.hpp"
#include "records/fields/codec_support.hpp"
#include "records/fields/codecs.hpp"

namespace cairn::records::fields {
namespace {

constexpr std::size_t kMaxChars = email::kMaxAddressLength;
constexpr std::string_view kAccepted = "an email address such as name@example.com";

class EmailCodecImpl final : public TextColumnCodec {
 public:
  Result<db::Value> Parse(const config::Field& /*field*/,
                          const boost::json::value& input) const override {
    if (input.is_null()) return db::Value(db::Null{});
    if (auto error = CheckText(input, {.max_chars = kMaxChars}, kAccepted)) {
      return std::move(*error);
    }
    const std::string_view text = input.get_string();
    if (!email::IsValidAddress(text)) {
      return Invalid("must be " + std::string(kAccepted) + "; got " + Quoted(text));
    }
    return db::Value(std::string(text));
  }

  boost::json::value JsonSchema(const config::Field& field) const override {
    return NullableSchema(field,
                          {{"type", "string"}, {"format", "email"}, {"maxLength", kMaxChars}});
  }
};

}  // namespace

const FieldCodec& EmailCodec() {
  static const EmailCodecImpl codec;
  return codec;
}

}  // namespace cairn::records::fields
