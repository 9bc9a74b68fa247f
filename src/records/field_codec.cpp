#include "records/field_codec.hpp"

namespace cairn::records {

bool FieldCodec::Writable(const config::Field& /*field*/) const {
  return true;
}

Result<db::Value> FieldCodec::ParseWritten(const config::Field& field,
                                           const boost::json::value& input,
                                           std::string_view /*written*/) const {
  return Parse(field, input);
}

Result<db::Value> FieldCodec::ParseWithFiles(const config::Field& field,
                                             const boost::json::value& input,
                                             const AttachmentFiles& /*files*/) const {
  return Parse(field, input);
}

boost::json::value FieldCodec::DisplayJsonSchema(const config::Field& field) const {
  return JsonSchema(field);
}

void FieldCodec::AppendReadJson(const config::Field& field, const db::Row& row, int column,
                                const AttachmentFiles& /*files*/, std::string& out) const {
  AppendJson(field, row, column, out);
}

Result<db::Value> ParseFieldValue(const config::Field& field, const boost::json::value& input,
                                  const json::NumberTexts& numbers, const AttachmentFiles* files) {
  const FieldCodec& codec = CodecOf(field);
  if (const std::string* written = numbers.Find(input)) {
    return codec.ParseWritten(field, input, *written);
  }
  if (files != nullptr) return codec.ParseWithFiles(field, input, *files);
  return codec.Parse(field, input);
}

void FieldCodec::AppendDisplay(const config::Field& field, const db::Row& row, int column,
                               DisplayContext& context, std::string& out) const {
  if (row.IsNull(column)) {
    out += "null";
    return;
  }
  AppendDisplayValue(field, row, column, context, out);
}

void FieldCodec::AppendDisplayValue(const config::Field& field, const db::Row& row, int column,
                                    DisplayContext& /*context*/, std::string& out) const {
  AppendJson(field, row, column, out);
}

}  // namespace cairn::records
