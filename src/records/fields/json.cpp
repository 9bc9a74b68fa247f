// json: any JSON value, validated against the field's `schema` property when it has one, stored
// as compact JSON text (db::Json) and written back as that JSON.
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include "common/json.hpp"
#include "common/json_schema.hpp"
#include "common/text.hpp"
#include "records/fields/codec_support.hpp"
#include "records/fields/codecs.hpp"

namespace cairn::records::fields {
namespace {

constexpr std::size_t kMaxIssuesReported = 5;

// Valid UTF-8 without NUL (PostgreSQL's JSONB cannot hold \u0000).
bool IsStorableText(std::string_view text) {
  return cairn::text::IsValidUtf8(text) && !cairn::text::ContainsNul(text);
}

bool AllStringsStorable(const boost::json::value& value) {
  switch (value.kind()) {
    case boost::json::kind::string:
      return IsStorableText(value.get_string());
    case boost::json::kind::array:
      for (const auto& item : value.get_array()) {
        if (!AllStringsStorable(item)) return false;
      }
      return true;
    case boost::json::kind::object:
      for (const auto& member : value.get_object()) {
        if (!IsStorableText(member.key()) || !AllStringsStorable(member.value())) return false;
      }
      return true;
    default:
      return true;
  }
}

const boost::json::value* FieldSchema(const config::Field& field) {
  const boost::json::value* schema = field.properties.if_contains("schema");
  return schema != nullptr && (schema->is_object() || schema->is_bool()) ? schema : nullptr;
}

class JsonCodecImpl final : public FieldCodec {
 public:
  std::optional<db::ColumnType> Column(const config::Field& /*field*/) const override {
    return db::ColumnType{db::ColumnKind::kJson};
  }
  OperandKind Comparison() const override { return OperandKind::kOpaque; }

  Result<db::Value> Parse(const config::Field& field,
                          const boost::json::value& input) const override {
    if (input.is_null()) return db::Value(db::Null{});
    if (!AllStringsStorable(input)) {
      return Invalid("must hold only strings of valid UTF-8 without NUL characters (\\u0000)");
    }
    if (const boost::json::value* schema = FieldSchema(field)) {
      // Compiled per write: json fields are rare and schemas small; the config already checked
      // that it compiles.
      auto compiled = json::JsonSchema::Compile(*schema);
      if (!compiled.ok()) {
        return Error::Internal("json field schema does not compile: " + compiled.error().message);
      }
      std::vector<json::SchemaIssue> issues;
      if (!compiled->Validate(input, issues)) {
        std::string message = "must match the field's JSON Schema: ";
        for (std::size_t i = 0; i < issues.size() && i < kMaxIssuesReported; ++i) {
          if (i > 0) message += "; ";
          message += issues[i].path.empty() ? "the value" : issues[i].path;
          message += ": " + issues[i].message;
        }
        if (issues.size() > kMaxIssuesReported) {
          message += "; and " + std::to_string(issues.size() - kMaxIssuesReported) + " more";
        }
        return Invalid(std::move(message));
      }
    }
    return db::Value(db::Json{json::Serialize(input)});
  }

  void AppendJson(const config::Field& /*field*/, const db::Row& row, int column,
                  std::string& out) const override {
    AppendJsonColumn(row, column, out);
  }

  // The value serialized compactly, as one string (the database may store it spaced).
  void AppendDisplayValue(const config::Field& /*field*/, const db::Row& row, int column,
                          DisplayContext& /*context*/, std::string& out) const override {
    boost::system::error_code ec;
    const boost::json::value value = boost::json::parse(row.GetText(column), ec);
    json::AppendString(out, ec ? std::string(row.GetText(column)) : boost::json::serialize(value));
  }

  boost::json::value DisplayJsonSchema(const config::Field& field) const override {
    return NullableSchema(field, {{"type", "string"},
                                  {"contentMediaType", "application/json"},
                                  {"description", "the value serialized compactly"}});
  }

  boost::json::value JsonSchema(const config::Field& field) const override {
    const boost::json::value* schema = FieldSchema(field);
    if (schema == nullptr) return boost::json::object{};  // any JSON, null included
    if (field.required) return *schema;
    return boost::json::object{
        {"anyOf", boost::json::array{boost::json::object{{"type", "null"}}, *schema}}};
  }
};

}  // namespace

const FieldCodec& JsonCodec() {
  static const JsonCodecImpl codec;
  return codec;
}

}  // namespace cairn::records::fields
