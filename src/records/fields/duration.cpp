// duration (D8): a whole number of seconds, at least 0.
#include <cstdio>

#include <boost/json/array.hpp>

#include "records/display/number_display.hpp"
#include "records/fields/codec_support.hpp"
#include "records/fields/codecs.hpp"
#include "records/fields/exact_number.hpp"

namespace cairn::records::fields {
namespace {

// The number format of decimal hours: two places, grouped.
const config::Field& DecimalHours() {
  static const config::Field field = [] {
    config::Field hours;
    hours.type = config::FieldType::kDecimal;
    hours.scale = 2;
    return hours;
  }();
  return field;
}

// The field's displayFormat: h:mm (the default), h:mm:ss or decimal.
std::string_view DisplayStyle(const config::Field& field) {
  const boost::json::value* format = field.properties.if_contains("displayFormat");
  return format != nullptr && format->is_string() ? std::string_view(format->get_string()) : "h:mm";
}

class DurationCodecImpl final : public FieldCodec {
 public:
  std::optional<db::ColumnType> Column(const config::Field& /*field*/) const override {
    return db::ColumnType{db::ColumnKind::kInt64};
  }
  OperandKind Comparison() const override { return OperandKind::kNumber; }

  Result<db::Value> Parse(const config::Field& /*field*/,
                          const boost::json::value& input) const override {
    if (input.is_null()) return db::Value(db::Null{});
    CAIRN_ASSIGN_OR_RETURN(const std::int64_t seconds,
                           ParseWholeNumber(input, "a whole number of seconds"));
    if (seconds < 0) {
      return Invalid("must be a whole number of seconds, at least 0; got " +
                     std::to_string(seconds));
    }
    return db::Value(seconds);
  }

  void AppendJson(const config::Field& /*field*/, const db::Row& row, int column,
                  std::string& out) const override {
    if (row.IsNull(column)) {
      out += "null";
      return;
    }
    out += std::to_string(row.GetInt64(column));
  }

  // displayFormat (D8): h:mm (default, minutes truncated), h:mm:ss, or decimal hours to two
  // places (rounded half up). Hours do not wrap at 24.
  void AppendDisplayValue(const config::Field& field, const db::Row& row, int column,
                          DisplayContext& context, std::string& out) const override {
    const std::int64_t seconds = row.GetInt64(column);
    const std::string_view style = DisplayStyle(field);
    if (style == "decimal") {
      // Hundredths of an hour; seconds ≤ int64 max / 100 would be 29 billion years.
      const std::int64_t hundredths = (seconds / 36) + (seconds % 36 >= 18 ? 1 : 0);
      display::AppendDecimalNumber(context, DecimalHours(), db::Decimal{hundredths, 2}, out);
      return;
    }
    char text[40];
    const std::int64_t hours = seconds / 3600;
    const int minutes = static_cast<int>(seconds % 3600 / 60);
    const int rest = static_cast<int>(seconds % 60);
    const int length =
        style == "h:mm:ss"
            ? std::snprintf(text, sizeof text, "%lld:%02d:%02d", static_cast<long long>(hours),
                            minutes, rest)
            : std::snprintf(text, sizeof text, "%lld:%02d", static_cast<long long>(hours), minutes);
    out.push_back('"');
    out.append(text, static_cast<std::size_t>(length));
    out.push_back('"');
  }

  // What AppendDisplayValue writes: hours unbounded, minutes and seconds two digits.
  boost::json::value DisplayJsonSchema(const config::Field& field) const override {
    const std::string_view style = DisplayStyle(field);
    if (style == "decimal") {
      return NullableSchema(field, display::NumberDisplaySchema(DecimalHours(), false));
    }
    const bool seconds = style == "h:mm:ss";
    return NullableSchema(
        field, {{"type", "string"},
                {"pattern", seconds ? "^[0-9]+:[0-5][0-9]:[0-5][0-9]$" : "^[0-9]+:[0-5][0-9]$"},
                {"examples", boost::json::array{seconds ? "1:05:05" : "1:05"}}});
  }

  boost::json::value JsonSchema(const config::Field& field) const override {
    return NullableSchema(field, {{"type", "integer"}, {"minimum", 0}});
  }
};

}  // namespace

const FieldCodec& DurationCodec() {
  static const DurationCodecImpl codec;
  return codec;
}

}  // namespace cairn::records::fields
