// single-select: one of the field's options, stored as its text.
#include <boost/json/array.hpp>

#include "records/fields/codec_support.hpp"
#include "records/fields/codecs.hpp"
#include "records/fields/select_options.hpp"

namespace cairn::records::fields {
namespace {

class SingleSelectCodecImpl final : public TextColumnCodec {
 public:
  OperandKind Comparison() const override { return OperandKind::kOption; }

  Result<db::Value> Parse(const config::Field& field,
                          const boost::json::value& input) const override {
    if (input.is_null()) return db::Value(db::Null{});
    if (!input.is_string()) {
      return WrongKind(input, "one of: " + JoinList(field.options));
    }
    if (auto error = CheckOption(field, input.get_string())) return std::move(*error);
    return db::Value(std::string(input.get_string()));
  }

  boost::json::value JsonSchema(const config::Field& field) const override {
    boost::json::array options;
    for (const auto& option : field.options) options.emplace_back(option);
    return NullableSchema(field, {{"type", "string"}, {"enum", std::move(options)}});
  }
};

}  // namespace

const FieldCodec& SingleSelectCodec() {
  static const SingleSelectCodecImpl codec;
  return codec;
}

}  // namespace cairn::records::fields
