// long-text: at most 100 000 characters (code points); line breaks and tabs allowed.
#include "records/fields/codec_support.hpp"
#include "records/fields/codecs.hpp"

namespace cairn::records::fields {
namespace {

constexpr std::size_t kMaxChars = 100'000;

class LongTextCodecImpl final : public TextColumnCodec {
 public:
  Result<db::Value> Parse(const config::Field& /*field*/,
                          const boost::json::value& input) const override {
    if (input.is_null()) return db::Value(db::Null{});
    if (auto error = CheckText(
            input, {.max_chars = kMaxChars, .controls = Controls::kTabAndLineBreaks}, "text")) {
      return std::move(*error);
    }
    return db::Value(std::string(input.get_string()));
  }

  boost::json::value JsonSchema(const config::Field& field) const override {
    return NullableSchema(field, {{"type", "string"}, {"maxLength", kMaxChars}});
  }
};

}  // namespace

const FieldCodec& LongTextCodec() {
  static const LongTextCodecImpl codec;
  return codec;
}

}  // namespace cairn::records::fields
