// duration (D8): a whole number of seconds, at least 0.
#include "records/fields/codec_support.hpp"
#include "records/fields/codecs.hpp"
#include "records/fields/exact_number.hpp"

namespace cairn::records::fields {
namespace {

class DurationCodecImpl final : public FieldCodec {
 public:
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
