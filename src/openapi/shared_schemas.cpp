#include "openapi/shared_schemas.hpp"

#include <cctype>

#include <boost/json/array.hpp>

#include "records/field_codec.hpp"

namespace cairn::openapi {
namespace {

using boost::json::array;
using boost::json::object;
using boost::json::value;

std::string Ref(std::string_view name) {
  return "#/components/schemas/" + std::string(name);
}

value NullableString(std::string_view description) {
  return object{{"type", array{"string", "null"}}, {"description", description}};
}

value Timestamp(std::string_view description) {
  return object{{"type", "string"}, {"format", "date-time"}, {"description", description}};
}

// The generic shapes say it at length; each table's, which a 50-table document has 50 of, briefly.
constexpr std::string_view kRawDescription = "A record (D30) as stored: format=raw, the default";
constexpr std::string_view kDisplayDescription =
    "A record (D30) with format=display (D39): each field value in its display form (numbers, "
    "dates, times and durations as formatted strings, json serialized, attachments with "
    "displayName and displaySize); id and the authorship stamps as stored";

// The read shape wraps a value in what D30 guarantees: every key, authorship by the server.
object RecordShape(value fields, bool display, std::string_view description) {
  return object{
      {"type", "object"},
      {"description", description},
      {kFormatExtension, display ? "display" : "raw"},
      {"required", array{"id", "fields", "createdBy", "createdAt", "updatedBy", "updatedAt",
                         "deletedBy", "deletedAt"}},
      {"properties",
       object{
           {"id", object{{"type", "string"}, {"pattern", "^[0-9]+$"}, {"examples", array{"7"}}}},
           {"fields", std::move(fields)},
           {"createdBy", NullableString("id of the user who created it")},
           {"createdAt", Timestamp("when it was created")},
           {"updatedBy", NullableString("id of the user who changed it last")},
           {"updatedAt", Timestamp("when it was changed last; send it back to detect conflicts")},
           {"deletedBy", NullableString("id of the user who moved it to the trash")},
           {"deletedAt", object{{"type", array{"string", "null"}}, {"format", "date-time"}}}}}};
}

object CreateShape(value fields) {
  return object{{"type", "object"},
                {"required", array{"fields"}},
                {"properties", object{{"fields", std::move(fields)}}}};
}

object UpdateShape(value fields) {
  return object{
      {"type", "object"},
      {"required", array{"fields"}},
      {"properties",
       object{{"fields", std::move(fields)},
              {"updatedAt",
               object{{"type", "string"},
                      {"format", "date-time"},
                      {"description", "the updatedAt last read; a newer one answers 409"}}}}}};
}

object ListShape(std::string_view record, bool display) {
  return object{{"type", "object"},
                {"description", display ? "A page of records with format=display"
                                        : "A page of records as stored (format=raw)"},
                {kFormatExtension, display ? "display" : "raw"},
                {"required", array{"records", "pagination"}},
                {"properties", object{{"records", ArrayOf(record)},
                                      {"pagination", SchemaRef(kPagination)},
                                      {"aggregations", object{{"type", "object"}}},
                                      {"groups", object{{"type", "array"}, {"items", object{}}}}}}};
}

// A field's value as read: what its codec accepts, or null (a value written before the field
// became required reads back as null).
value ReadSchema(const config::Field& field, bool display) {
  const records::FieldCodec& codec = records::CodecOf(field);
  value schema = display ? codec.DisplayJsonSchema(field) : codec.JsonSchema(field);
  if (!field.required) return schema;
  return object{{"anyOf", array{std::move(schema), object{{"type", "null"}}}}};
}

bool HasRef(const value& schema) {
  if (schema.is_array()) {
    for (const value& item : schema.get_array()) {
      if (HasRef(item)) return true;
    }
  } else if (schema.is_object()) {
    for (const auto& [key, member] : schema.get_object()) {
      if (key == "$ref" || HasRef(member)) return true;
    }
  }
  return false;
}

// Points the refs of an authored schema at its components: "#/$defs/size" → its $defs entry's
// own component (a ref through a component that is itself a $ref loops in some tools), any
// other "#…" → the schema's component.
void RebaseRefs(value& schema, const std::string& name) {
  if (schema.is_array()) {
    for (value& item : schema.get_array()) RebaseRefs(item, name);
  } else if (schema.is_object()) {
    for (auto& [key, member] : schema.get_object()) {
      if (key != "$ref" || !member.is_string() || !member.get_string().starts_with("#")) {
        RebaseRefs(member, name);
        continue;
      }
      const std::string_view ref = member.get_string();
      constexpr std::string_view kDefs = "#/$defs/";
      if (ref.starts_with(kDefs)) {
        const std::string_view rest = ref.substr(kDefs.size());
        const std::size_t slash = rest.find('/');
        member = Ref(name + "." + std::string(rest.substr(0, slash))) +
                 (slash == std::string_view::npos ? "" : std::string(rest.substr(slash)));
      } else {
        member = Ref(name) + std::string(ref.substr(1));
      }
    }
  }
}

// Replaces `embedded` inside `schema` with `ref`; true when found.
bool ReplaceEmbedded(value& schema, const value& embedded, const value& ref) {
  if (schema == embedded) {
    schema = ref;
    return true;
  }
  if (schema.is_array()) {
    for (value& item : schema.get_array()) {
      if (ReplaceEmbedded(item, embedded, ref)) return true;
    }
  } else if (schema.is_object()) {
    for (auto& [key, member] : schema.get_object()) {
      if (ReplaceEmbedded(member, embedded, ref)) return true;
    }
  }
  return false;
}

// A schema the config's author wrote for a field (a json field's `schema`) may $ref into itself
// ("#/$defs/size"); inside the document that would point at the document's root. Such a schema
// becomes a component of its own with its refs rebased, and the field's schema points at it.
value WithAuthorSchemaHoisted(value schema, const config::Field& field, const std::string& name,
                              object& schemas) {
  const value* written = field.properties.if_contains("schema");
  if (written == nullptr || !HasRef(*written)) return schema;
  value hoisted = *written;
  RebaseRefs(hoisted, name);
  if (!ReplaceEmbedded(schema, *written, SchemaRef(name))) return schema;
  if (hoisted.is_object()) {
    if (const value* defs = hoisted.get_object().if_contains("$defs"); defs && defs->is_object()) {
      for (const auto& [key, definition] : defs->get_object()) {
        schemas[name + "." + std::string(key)] = definition;
      }
      hoisted.get_object().erase("$defs");
    }
  }
  schemas[name] = std::move(hoisted);
  return schema;
}

}  // namespace

value SchemaRef(std::string_view name) {
  return object{{"$ref", Ref(name)}};
}

value ArrayOf(std::string_view name) {
  return object{{"type", "array"}, {"items", SchemaRef(name)}};
}

object SharedSchemas() {
  object schemas;
  schemas[kErrorEnvelope] = object{
      {"type", "object"},
      {"description", "Every 4xx and 5xx answer (D60)"},
      {"required", array{"success", "message", "code"}},
      {"properties",
       object{{"success", object{{"const", false}}},
              {"message", object{{"type", "string"}, {"examples", array{"Invalid request body"}}}},
              {"code",
               object{{"type", "string"},
                      {"enum", array{"VALIDATION_ERROR", "UNAUTHORIZED", "FORBIDDEN", "NOT_FOUND",
                                     "CONFLICT", "PAYLOAD_TOO_LARGE", "RATE_LIMITED",
                                     "INTERNAL_ERROR", "SERVICE_UNAVAILABLE"}}}},
              {"error", object{{"type", "string"}, {"description", "a reason code"}}},
              {"errors",
               object{{"type", "array"},
                      {"items", object{{"type", "object"},
                                       {"required", array{"field", "message"}},
                                       {"properties",
                                        object{{"field", object{{"type", "string"}}},
                                               {"message", object{{"type", "string"}}}}}}}}}}}};
  schemas[kPagination] =
      object{{"type", "object"},
             {"required", array{"total", "limit", "offset", "page", "totalPages"}},
             {"properties", object{{"total", object{{"type", "integer"}, {"minimum", 0}}},
                                   {"limit", object{{"type", "integer"}, {"minimum", 1}}},
                                   {"offset", object{{"type", "integer"}, {"minimum", 0}}},
                                   {"page", object{{"type", "integer"}, {"minimum", 1}}},
                                   {"totalPages", object{{"type", "integer"}, {"minimum", 0}}}}}};
  const value any_fields = object{{"type", "object"}, {"description", "field name → value"}};
  schemas[kRecordFields] = any_fields;
  schemas[kRecordFieldsDisplay] = any_fields;
  schemas[kRecord] = RecordShape(SchemaRef(kRecordFields), false, kRawDescription);
  schemas[kRecordDisplay] = RecordShape(SchemaRef(kRecordFieldsDisplay), true, kDisplayDescription);
  schemas[kRecordCreate] = CreateShape(SchemaRef(kRecordFields));
  schemas[kRecordUpdate] = UpdateShape(SchemaRef(kRecordFields));
  schemas[kRecordList] = ListShape(kRecord, false);
  schemas[kRecordListDisplay] = ListShape(kRecordDisplay, true);
  return schemas;
}

std::string TableSchemaPrefix(const config::Table& table) {
  std::string prefix;
  bool upper = true;
  for (char c : table.slug) {
    if (std::isalnum(static_cast<unsigned char>(c)) == 0) {
      upper = true;
      continue;
    }
    prefix.push_back(upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c);
    upper = false;
  }
  if (prefix.empty() || std::isdigit(static_cast<unsigned char>(prefix[0])) != 0) {
    prefix.insert(0, "Table");
  }
  return prefix;
}

value RawOrDisplay(std::string_view raw, std::string_view display) {
  return object{{"anyOf", array{SchemaRef(raw), SchemaRef(display)}}};
}

void AddTableSchemas(const config::Table& table, object& schemas) {
  const std::string prefix = TableSchemaPrefix(table);
  object read_properties;
  object display_properties;
  object write_properties;
  array required;
  for (const config::Field& field : table.fields) {
    const records::FieldCodec& codec = records::CodecOf(field);
    const std::string authored = prefix + "_" + field.name;  // names allow [A-Za-z0-9._-]
    read_properties[field.name] =
        WithAuthorSchemaHoisted(ReadSchema(field, false), field, authored, schemas);
    display_properties[field.name] = ReadSchema(field, true);
    if (!codec.Writable(field)) continue;
    write_properties[field.name] =
        WithAuthorSchemaHoisted(codec.JsonSchema(field), field, authored, schemas);
    if (field.required && field.default_value.is_null()) required.emplace_back(field.name);
  }
  const std::string description = "The fields of a " + table.name + " record";
  schemas[prefix + std::string(kRecordFields)] = object{{"type", "object"},
                                                        {"description", description},
                                                        {"properties", std::move(read_properties)},
                                                        {"additionalProperties", false}};
  object writable{{"type", "object"},
                  {"description", description + " a client may write"},
                  {"properties", write_properties},
                  {"additionalProperties", false}};
  object create = writable;
  if (!required.empty()) create["required"] = std::move(required);
  schemas[prefix + std::string(kRecordCreate)] = CreateShape(std::move(create));
  schemas[prefix + std::string(kRecordUpdate)] = UpdateShape(std::move(writable));
  schemas[prefix + std::string(kRecordFieldsDisplay)] =
      object{{"type", "object"},
             {"description", description + " with format=display"},
             {"properties", std::move(display_properties)},
             {"additionalProperties", false}};
  schemas[prefix + std::string(kRecord)] =
      RecordShape(SchemaRef(prefix + std::string(kRecordFields)), false,
                  "A " + table.name + " record (format=raw)");
  schemas[prefix + std::string(kRecordDisplay)] =
      RecordShape(SchemaRef(prefix + std::string(kRecordFieldsDisplay)), true,
                  "A " + table.name + " record with format=display (see RecordDisplay)");
  schemas[prefix + std::string(kRecordList)] = ListShape(prefix + std::string(kRecord), false);
  schemas[prefix + std::string(kRecordListDisplay)] =
      ListShape(prefix + std::string(kRecordDisplay), true);
}

}  // namespace cairn::openapi
