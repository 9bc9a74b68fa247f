// Helpers for the field codec tests: fields built in code, a fake db::Row holding the values
// Parse produced, and round trips through Parse → row → AppendJson checked against JsonSchema.
#pragma once

#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include <gtest/gtest.h>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>

#include "common/json_schema.hpp"
#include "config/model.hpp"
#include "db/decimal.hpp"
#include "db/row.hpp"
#include "records/field_codec.hpp"

namespace cairn::records::testing {

inline config::Field MakeField(config::FieldType type, std::string name = "value") {
  config::Field field;
  field.name = std::move(name);
  field.type = type;
  return field;
}

// One row whose columns hold db::Values as a driver would return them.
class FakeRow final : public db::Row {
 public:
  explicit FakeRow(std::vector<db::Value> values) : values_(std::move(values)) {}

  int ColumnCount() const override { return static_cast<int>(values_.size()); }
  std::string_view ColumnName(int /*column*/) const override { return "value"; }
  bool IsNull(int column) const override {
    return std::holds_alternative<db::Null>(values_.at(column));
  }
  std::int64_t GetInt64(int column) const override {
    const db::Value& v = values_.at(column);
    if (auto* i = std::get_if<std::int64_t>(&v)) return *i;
    if (auto* b = std::get_if<bool>(&v)) return *b ? 1 : 0;
    throw std::logic_error("not an int64 column");
  }
  double GetDouble(int column) const override { return std::get<double>(values_.at(column)); }
  bool GetBool(int column) const override { return std::get<bool>(values_.at(column)); }
  std::string_view GetText(int column) const override {
    const db::Value& v = values_.at(column);
    if (auto* s = std::get_if<std::string>(&v)) return *s;
    if (auto* j = std::get_if<db::Json>(&v)) return j->text;
    throw std::logic_error("not a text column");
  }
  std::string GetBlob(int column) const override {
    return std::get<db::Blob>(values_.at(column)).bytes;
  }
  std::int64_t GetTimestampMillis(int column) const override {
    return std::get<db::Timestamp>(values_.at(column)).epoch_millis;
  }
  db::Decimal GetDecimal(int column, int scale) const override {
    return db::Rescale(std::get<db::Decimal>(values_.at(column)), scale).value();
  }

 private:
  std::vector<db::Value> values_;
};

inline boost::json::value J(std::string_view text) {
  return boost::json::parse(text);
}

inline Result<db::Value> Parse(const config::Field& field, std::string_view json_text) {
  return CodecOf(field).Parse(field, J(json_text));
}

// The JSON AppendJson writes for a column holding `value`.
inline std::string Output(const config::Field& field, db::Value value) {
  const FakeRow row({db::Value(db::Null{}), std::move(value)});
  std::string out;
  CodecOf(field).AppendJson(field, row, 1, out);
  return out;
}

// Parse → output, checking that the output is valid JSON that matches the field's JsonSchema.
inline std::string RoundTrip(const config::Field& field, std::string_view json_text) {
  auto parsed = Parse(field, json_text);
  if (!parsed.ok()) {
    ADD_FAILURE() << json_text << " was refused: " << parsed.error().message;
    return {};
  }
  const std::string out = Output(field, std::move(*parsed));
  boost::system::error_code ec;
  const boost::json::value written = boost::json::parse(out, ec);
  EXPECT_FALSE(ec) << "not JSON: " << out;
  auto schema = json::JsonSchema::Compile(CodecOf(field).JsonSchema(field));
  EXPECT_TRUE(schema.ok()) << (schema.ok() ? "" : schema.error().message);
  if (schema.ok() && !ec) {
    std::vector<json::SchemaIssue> issues;
    EXPECT_TRUE(schema->Validate(written, issues))
        << out << " does not match its schema: " << (issues.empty() ? "" : issues[0].message);
  }
  return out;
}

// The error message for `json_text`, or a failure when it is accepted.
inline std::string ErrorOf(const config::Field& field, std::string_view json_text) {
  auto parsed = Parse(field, json_text);
  if (parsed.ok()) {
    ADD_FAILURE() << json_text << " was accepted";
    return {};
  }
  EXPECT_EQ(parsed.error().code, ErrorCode::kValidation) << json_text;
  EXPECT_FALSE(parsed.error().message.empty());
  return parsed.error().message;
}

inline void ExpectRefused(const config::Field& field, std::initializer_list<const char*> inputs) {
  for (const char* input : inputs) {
    SCOPED_TRACE(input);
    ErrorOf(field, input);
  }
}

inline void ExpectAccepted(const config::Field& field, std::initializer_list<const char*> inputs) {
  for (const char* input : inputs) {
    SCOPED_TRACE(input);
    auto parsed = Parse(field, input);
    EXPECT_TRUE(parsed.ok()) << input << ": " << (parsed.ok() ? "" : parsed.error().message);
  }
}

}  // namespace cairn::records::testing
