// datetime: ISO 8601 with an offset or Z, stored as UTC milliseconds (db::Timestamp) and written
// back as ISO 8601 UTC with milliseconds (`2024-05-01T07:00:00.000Z`).
#include "common/time.hpp"
#include "records/display/date_display.hpp"
#include "records/fields/codec_support.hpp"
#include "records/fields/codecs.hpp"

namespace cairn::records::fields {
namespace {

constexpr std::string_view kAccepted =
    "an ISO 8601 date-time with an offset or Z (such as 2024-05-01T09:00:00+02:00 or "
    "2024-05-01T07:00:00.000Z)";

class DatetimeCodecImpl final : public FieldCodec {
 public:
  std::optional<db::ColumnType> Column(const config::Field& /*field*/) const override {
    return db::ColumnType{db::ColumnKind::kTimestamp};
  }
  OperandKind Comparison() const override { return OperandKind::kTemporal; }

  Result<db::Value> Parse(const config::Field& /*field*/,
                          const boost::json::value& input) const override {
    if (input.is_null()) return db::Value(db::Null{});
    if (!input.is_string()) return WrongKind(input, kAccepted);
    const std::string_view text = input.get_string();
    const auto millis = time::ParseIso(text);
    if (!millis) return Invalid("must be " + std::string(kAccepted) + "; got " + Quoted(text));
    return db::Value(db::Timestamp{*millis});
  }

  void AppendJson(const config::Field& /*field*/, const db::Row& row, int column,
                  std::string& out) const override {
    if (row.IsNull(column)) {
      out += "null";
      return;
    }
    out += '"';
    time::AppendIso(out, row.GetTimestampMillis(column));
    out += '"';
  }

  void AppendDisplayValue(const config::Field& field, const db::Row& row, int column,
                          DisplayContext& context, std::string& out) const override {
    display::AppendDatetime(context, field, row.GetTimestampMillis(column), out);
  }

  boost::json::value DisplayJsonSchema(const config::Field& field) const override {
    return NullableSchema(field, display::DatetimeDisplaySchema(field));
  }

  boost::json::value JsonSchema(const config::Field& field) const override {
    return NullableSchema(field, {{"type", "string"}, {"format", "date-time"}});
  }
};

}  // namespace

const FieldCodec& DatetimeCodec() {
  static const DatetimeCodecImpl codec;
  return codec;
}

}  // namespace cairn::records::fields
