// updated-at: the time of the last write (db::Timestamp), set by the server; read-only.
#include "common/time.hpp"
#include "records/display/date_display.hpp"
#include "records/fields/codec_support.hpp"
#include "records/fields/codecs.hpp"

namespace cairn::records::fields {
namespace {

class UpdatedAtCodecImpl final : public FieldCodec {
 public:
  std::optional<db::ColumnType> Column(const config::Field& /*field*/) const override {
    return db::ColumnType{db::ColumnKind::kTimestamp};
  }
  OperandKind Comparison() const override { return OperandKind::kTemporal; }

  bool Writable(const config::Field& /*field*/) const override { return false; }

  Result<db::Value> Parse(const config::Field& /*field*/,
                          const boost::json::value& /*input*/) const override {
    return ReadOnly("the server sets it on every write");
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
    boost::json::object schema = display::DatetimeDisplaySchema(field);
    schema["readOnly"] = true;
    return NullableSchema(field, std::move(schema));
  }

  boost::json::value JsonSchema(const config::Field& field) const override {
    return NullableSchema(field, {{"type", "string"}, {"format", "date-time"}, {"readOnly", true}});
  }
};

}  // namespace

const FieldCodec& UpdatedAtCodec() {
  static const UpdatedAtCodecImpl codec;
  return codec;
}

}  // namespace cairn::records::fields
