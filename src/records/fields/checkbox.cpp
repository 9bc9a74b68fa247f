// checkbox: true or false.
#include "records/fields/codec_support.hpp"
#include "records/fields/codecs.hpp"

namespace cairn::records::fields {
namespace {

class CheckboxCodecImpl final : public FieldCodec {
 public:
  std::optional<db::ColumnType> Column(const config::Field& /*field*/) const override {
    return db::ColumnType{db::ColumnKind::kBool};
  }
  OperandKind Comparison() const override { return OperandKind::kCheckbox; }

  Result<db::Value> Parse(const config::Field& /*field*/,
                          const boost::json::value& input) const override {
    if (input.is_null()) return db::Value(db::Null{});
    if (!input.is_bool()) return WrongKind(input, "true or false");
    return db::Value(input.get_bool());
  }

  void AppendJson(const config::Field& /*field*/, const db::Row& row, int column,
                  std::string& out) const override {
    if (row.IsNull(column)) {
      out += "null";
      return;
    }
    out += row.GetBool(column) ? "true" : "false";
  }

  boost::json::value JsonSchema(const config::Field& field) const override {
    return NullableSchema(field, {{"type", "boolean"}});
  }
};

}  // namespace

const FieldCodec& CheckboxCodec() {
  static const CheckboxCodecImpl codec;
  return codec;
}

}  // namespace cairn::records::fields
