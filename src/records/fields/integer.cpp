// integer: a whole number within int64 and the field's min/max.
#include "records/display/number_display.hpp"
#include "records/fields/codec_support.hpp"
#include "records/fields/codecs.hpp"
#include "records/fields/exact_number.hpp"

namespace cairn::records::fields {
namespace {

class IntegerCodecImpl final : public FieldCodec {
 public:
  std::optional<db::ColumnType> Column(const config::Field& /*field*/) const override {
    return db::ColumnType{db::ColumnKind::kInt64};
  }
  OperandKind Comparison() const override { return OperandKind::kNumber; }

  Result<db::Value> Parse(const config::Field& field,
                          const boost::json::value& input) const override {
    if (input.is_null()) return db::Value(db::Null{});
    CAIRN_ASSIGN_OR_RETURN(const std::int64_t value, ParseWholeNumber(input, "an integer"));
    if (auto error = CheckBounds(field, ExactFromInt64(value))) return std::move(*error);
    return db::Value(value);
  }

  // The written text is a numeric string, which Parse reads exactly.
  Result<db::Value> ParseWritten(const config::Field& field, const boost::json::value& /*input*/,
                                 std::string_view written) const override {
    return Parse(field, boost::json::value(boost::json::string_view(written)));
  }

  void AppendJson(const config::Field& /*field*/, const db::Row& row, int column,
                  std::string& out) const override {
    if (row.IsNull(column)) {
      out += "null";
      return;
    }
    out += std::to_string(row.GetInt64(column));
  }

  void AppendDisplayValue(const config::Field& field, const db::Row& row, int column,
                          DisplayContext& context, std::string& out) const override {
    display::AppendInteger(context, field, row.GetInt64(column), out);
  }

  boost::json::value DisplayJsonSchema(const config::Field& field) const override {
    return NullableSchema(field, display::NumberDisplaySchema(field));
  }

  boost::json::value JsonSchema(const config::Field& field) const override {
    boost::json::object schema{{"type", "integer"}};
    AddBounds(field, schema);
    return NullableSchema(field, std::move(schema));
  }
};

}  // namespace

const FieldCodec& IntegerCodec() {
  static const IntegerCodecImpl codec;
  return codec;
}

}  // namespace cairn::records::fields
