// multi-select: an array of distinct options, at most maxSelections, stored as JSON array text
// in the order given (`["lead","vip"]`) and written back as that array.
#include <algorithm>
#include <vector>

#include <boost/json/array.hpp>

#include "common/json.hpp"
#include "records/fields/codec_support.hpp"
#include "records/fields/codecs.hpp"
#include "records/fields/select_options.hpp"

namespace cairn::records::fields {
namespace {

class MultiSelectCodecImpl final : public FieldCodec {
 public:
  std::optional<db::ColumnType> Column(const config::Field& /*field*/) const override {
    return db::ColumnType{db::ColumnKind::kJson};
  }
  OperandKind Comparison() const override { return OperandKind::kOptions; }
  bool Searchable() const override { return true; }

  Result<db::Value> Parse(const config::Field& field,
                          const boost::json::value& input) const override {
    if (input.is_null()) return db::Value(db::Null{});
    if (!input.is_array()) {
      return WrongKind(input, "an array of distinct values from: " + JoinList(field.options));
    }
    const boost::json::array& values = input.get_array();
    if (field.max_selections && values.size() > static_cast<std::size_t>(*field.max_selections)) {
      return Invalid("must have at most " + std::to_string(*field.max_selections) +
                     (*field.max_selections == 1 ? " value" : " values") + ", got " +
                     std::to_string(values.size()));
    }
    std::vector<std::string_view> seen;
    std::string text = "[";
    for (std::size_t i = 0; i < values.size(); ++i) {
      if (!values[i].is_string()) {
        return AtItem(i, WrongKind(values[i], "one of: " + JoinList(field.options)));
      }
      const std::string_view option = values[i].get_string();
      if (auto error = CheckOption(field, option)) return AtItem(i, std::move(*error));
      if (std::find(seen.begin(), seen.end(), option) != seen.end()) {
        return AtItem(i, Invalid(Quoted(option) + " is listed twice; values must be distinct"));
      }
      seen.push_back(option);
      if (i > 0) text += ',';
      json::AppendString(text, option);
    }
    text += ']';
    return db::Value(db::Json{std::move(text)});
  }

  void AppendJson(const config::Field& /*field*/, const db::Row& row, int column,
                  std::string& out) const override {
    AppendJsonColumn(row, column, out);
  }

  boost::json::value JsonSchema(const config::Field& field) const override {
    boost::json::array options;
    for (const auto& option : field.options) options.emplace_back(option);
    boost::json::object schema{{"type", "array"},
                               {"items", {{"type", "string"}, {"enum", std::move(options)}}},
                               {"uniqueItems", true}};
    if (field.max_selections) schema["maxItems"] = *field.max_selections;
    return NullableSchema(field, std::move(schema));
  }
};

}  // namespace

const FieldCodec& MultiSelectCodec() {
  static const MultiSelectCodecImpl codec;
  return codec;
}

}  // namespace cairn::records::fields
