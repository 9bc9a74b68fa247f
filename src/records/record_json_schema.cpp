#include "records/record_json_schema.hpp"

#include <boost/json/array.hpp>

#include "records/field_codec.hpp"

namespace cairn::records {

boost::json::object RecordWriteSchema(const config::Table& table, RecordWriteKind kind) {
  boost::json::object properties;
  boost::json::array required;
  for (const config::Field& field : table.fields) {
    const FieldCodec& codec = CodecOf(field);
    if (!codec.Writable(field)) continue;
    properties[field.name] = codec.JsonSchema(field);
    if (kind == RecordWriteKind::kCreate && field.required && field.default_value.is_null()) {
      required.emplace_back(field.name);
    }
  }
  boost::json::object fields{
      {"type", "object"}, {"properties", std::move(properties)}, {"additionalProperties", false}};
  if (!required.empty()) fields["required"] = std::move(required);
  boost::json::object body{{"type", "object"}};
  boost::json::object body_properties{{"fields", std::move(fields)}};
  if (kind == RecordWriteKind::kUpdate) {
    body_properties["updatedAt"] = {
        {"type", "string"},
        {"description",
         "The updatedAt the change is based on; a newer one on the server is a 409"}};
  }
  body["properties"] = std::move(body_properties);
  body["required"] = boost::json::array{"fields"};
  return body;
}

}  // namespace cairn::records
