// decimal, currency, percentage (D9): exact numbers with the field's number of decimal places,
// bound as db::Decimal{units, scale}. Values with more places than the field keeps are refused,
// never rounded. A number from a request is read from the text the client wrote (ParseWritten:
// `1.0000000000000000000001` is refused, not rounded to 1); one without its text (a config
// default) from its shortest decimal form, refused beyond 15 significant digits. Numeric strings
// (`"12.50"`) are accepted too.
#include <limits>

#include "db/decimal.hpp"
#include "records/display/number_display.hpp"
#include "records/fields/codec_support.hpp"
#include "records/fields/codecs.hpp"
#include "records/fields/exact_number.hpp"

namespace cairn::records::fields {
namespace {

std::string Places(int scale) {
  return std::to_string(scale) + (scale == 1 ? " decimal place" : " decimal places");
}

std::string Accepted(int scale) {
  return "a number with at most " + Places(scale) + " (a JSON number or a numeric string such as " +
         (scale == 0 ? std::string("\"12\"") : "\"12." + std::string(scale, '5') + "\"") + ")";
}

class DecimalCodecImpl final : public FieldCodec {
 public:
  std::optional<db::ColumnType> Column(const config::Field& field) const override {
    return db::ColumnType{db::ColumnKind::kDecimal, field.scale};
  }
  OperandKind Comparison() const override { return OperandKind::kNumber; }

  Result<db::Value> Parse(const config::Field& field,
                          const boost::json::value& input) const override {
    if (input.is_null()) return db::Value(db::Null{});
    const int scale = field.scale;
    std::optional<ExactNumber> number;
    if (input.is_string()) {
      number = ParseExactNumber(input.get_string());
      if (!number) {
        return Invalid("must be " + Accepted(scale) + "; " + Quoted(input.get_string()) +
                       " is not a number");
      }
    } else if (input.is_number()) {
      number = ExactFromJson(input);
      if (!number) return Invalid("must be " + Accepted(scale) + "; got a non-finite number");
    } else {
      return WrongKind(input, Accepted(scale));
    }

    std::int64_t units = 0;
    switch (ToUnits(*number, scale, units)) {
      case ScaleOutcome::kOk:
        break;
      case ScaleOutcome::kTooManyPlaces:
        return Invalid("must have at most " + Places(scale) + ", got " + ToText(*number));
      case ScaleOutcome::kOutOfRange: {
        constexpr auto kMax = std::numeric_limits<std::int64_t>::max();
        return Invalid("is out of range: with " + Places(scale) + " the largest magnitude is " +
                       db::FormatDecimal(db::Decimal{kMax, scale}) + ", got " + ToText(*number));
      }
    }
    if (IsInexactDouble(input, *number)) {
      return Invalid("has more than " + std::to_string(kExactDoubleDigits) +
                     " significant digits, which a JSON number does not carry exactly; send it "
                     "as a string, such as \"" +
                     ToText(*number) + "\"");
    }
    if (auto error = CheckBounds(field, *number)) return std::move(*error);
    return db::Value(db::Decimal{units, scale});
  }

  // The written text is a numeric string, which Parse reads exactly.
  Result<db::Value> ParseWritten(const config::Field& field, const boost::json::value& /*input*/,
                                 std::string_view written) const override {
    return Parse(field, boost::json::value(boost::json::string_view(written)));
  }

  void AppendJson(const config::Field& field, const db::Row& row, int column,
                  std::string& out) const override {
    if (row.IsNull(column)) {
      out += "null";
      return;
    }
    // A JSON number with exactly the field's places (`12.50`).
    db::AppendDecimal(out, row.GetDecimal(column, field.scale));
  }

  void AppendDisplayValue(const config::Field& field, const db::Row& row, int column,
                          DisplayContext& context, std::string& out) const override {
    display::AppendDecimalNumber(context, field, row.GetDecimal(column, field.scale), out);
  }

  boost::json::value DisplayJsonSchema(const config::Field& field) const override {
    return NullableSchema(field, display::NumberDisplaySchema(field));
  }

  boost::json::value JsonSchema(const config::Field& field) const override {
    boost::json::object schema{{"type", "number"}};
    AddBounds(field, schema);
    return NullableSchema(field, std::move(schema));
  }
};

}  // namespace

const FieldCodec& DecimalCodec() {
  static const DecimalCodecImpl codec;
  return codec;
}

}  // namespace cairn::records::fields
