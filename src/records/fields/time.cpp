// time: `HH:MM` or `HH:MM:SS` on a 24-hour clock, stored as written.
#include "config/value_formats.hpp"
#include "records/display/date_display.hpp"
#include "records/fields/codec_support.hpp"
#include "records/fields/codecs.hpp"

namespace cairn::records::fields {
namespace {

constexpr std::string_view kAccepted = "a time as HH:MM or HH:MM:SS, 00:00 to 23:59:59";

class TimeCodecImpl final : public TextColumnCodec {
 public:
  OperandKind Comparison() const override { return OperandKind::kTemporal; }
  bool Searchable() const override { return false; }

  Result<db::Value> Parse(const config::Field& /*field*/,
                          const boost::json::value& input) const override {
    if (input.is_null()) return db::Value(db::Null{});
    if (!input.is_string()) return WrongKind(input, kAccepted);
    const std::string_view text = input.get_string();
    if (!config::IsValidTime(text)) {
      return Invalid("must be " + std::string(kAccepted) + "; got " + Quoted(text));
    }
    return db::Value(std::string(text));
  }

  void AppendDisplayValue(const config::Field& field, const db::Row& row, int column,
                          DisplayContext& context, std::string& out) const override {
    display::AppendTime(context, field, row.GetText(column), out);
  }

  boost::json::value DisplayJsonSchema(const config::Field& field) const override {
    return NullableSchema(field, display::TimeDisplaySchema(field));
  }

  boost::json::value JsonSchema(const config::Field& field) const override {
    return NullableSchema(field, {{"type", "string"},
                                  {"format", "time"},
                                  {"pattern", "^([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9])?$"}});
  }
};

}  // namespace

const FieldCodec& TimeCodec() {
  static const TimeCodecImpl codec;
  return codec;
}

}  // namespace cairn::records::fields
