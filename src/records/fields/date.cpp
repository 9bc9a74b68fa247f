// date: `YYYY-MM-DD`, a real calendar date, stored as that text (it sorts as text).
#include "config/value_formats.hpp"
#include "records/display/date_display.hpp"
#include "records/fields/codec_support.hpp"
#include "records/fields/codecs.hpp"

namespace cairn::records::fields {
namespace {

constexpr std::string_view kAccepted = "a date as YYYY-MM-DD (such as 2024-05-01)";

class DateCodecImpl final : public TextColumnCodec {
 public:
  OperandKind Comparison() const override { return OperandKind::kTemporal; }
  bool Searchable() const override { return false; }

  Result<db::Value> Parse(const config::Field& /*field*/,
                          const boost::json::value& input) const override {
    if (input.is_null()) return db::Value(db::Null{});
    if (!input.is_string()) return WrongKind(input, kAccepted);
    const std::string_view text = input.get_string();
    if (!config::IsValidDate(text)) {
      return Invalid("must be " + std::string(kAccepted) + ", a real calendar date; got " +
                     Quoted(text));
    }
    return db::Value(std::string(text));
  }

  void AppendDisplayValue(const config::Field& field, const db::Row& row, int column,
                          DisplayContext& context, std::string& out) const override {
    display::AppendDate(context, field, row.GetText(column), out);
  }

  boost::json::value DisplayJsonSchema(const config::Field& field) const override {
    return NullableSchema(field, display::DateDisplaySchema(field));
  }

  boost::json::value JsonSchema(const config::Field& field) const override {
    return NullableSchema(field, {{"type", "string"}, {"format", "date"}});
  }
};

}  // namespace

const FieldCodec& DateCodec() {
  static const DateCodecImpl codec;
  return codec;
}

}  // namespace cairn::records::fields
