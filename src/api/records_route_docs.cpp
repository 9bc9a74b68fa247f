#include "api/records_route_docs.hpp"

#include <boost/json/parse.hpp>

#include "config/model.hpp"
#include "openapi/shared_schemas.hpp"
#include "records/field_codec.hpp"
#include "records/limits.hpp"

namespace cairn::api {
namespace {

using boost::json::array;
using boost::json::object;
using boost::json::value;
using openapi::ArrayOf;
using openapi::SchemaRef;

value Integer(std::int64_t min, std::int64_t max, std::int64_t fallback) {
  return object{{"type", "integer"}, {"minimum", min}, {"maximum", max}, {"default", fallback}};
}

// A parameter whose value is JSON text (MCP lets agents give the object itself).
value JsonText() {
  return object{{"type", "string"}, {"contentMediaType", "application/json"}};
}

value String(std::size_t max_length = 0) {
  object schema{{"type", "string"}};
  if (max_length > 0) schema["maxLength"] = max_length;
  return schema;
}

// The first name is the default (what the explorer pre-fills).
value Enum(std::initializer_list<std::string_view> names) {
  array options;
  for (std::string_view name : names) options.emplace_back(name);
  return object{{"type", "string"}, {"enum", options}, {"default", options.front()}};
}

constexpr std::int64_t kMaxOffset = 1'000'000'000;  // as records_api.cpp reads it

std::vector<http::QueryParam> ReadParams() {
  return {{"format", Enum({"raw", "display"}), "display: values as people read them (D39)"},
          {"timezone", String(), "IANA zone of display dates (format=display)"}};
}

std::vector<http::QueryParam> ListParams() {
  std::vector<http::QueryParam> params = {
      {"limit", Integer(1, records::kMaxListLimit, records::kDefaultListLimit), "page size"},
      {"offset", Integer(0, kMaxOffset, 0), "records to skip (not with page)"},
      {"page", object{{"type", "integer"}, {"minimum", 1}}, "1-based page (not with offset)"},
      {"sort", String(),
       "field[:asc|desc], comma-separated, at most " + std::to_string(records::kMaxSortKeys) +
           " keys"},
      {"order", value(object{{"type", "string"}, {"enum", array{"asc", "desc"}}}),
       "direction of sort"},
      {"fields", String(), "comma-separated fields to return"},
      {"filter", JsonText(),
       R"(JSON: {"field":value,…} or a tree of {"and"|"or":[{field, operator, value}]})"},
      {"q", String(records::kMaxSearchLength), "full-text search over the searchable fields"},
      {"view", String(), "a saved view's id"},
      {"groupBy", String(), "a field to group by (with aggregate)"},
      {"aggregate", String(), "sum:amount,avg:amount,min:due,max:due,count,count:email"},
      {"includeDeleted", Enum({"false", "true", "only"}), "also or only trashed records"}};
  for (http::QueryParam& param : ReadParams()) params.push_back(std::move(param));
  return params;
}

value Parse(std::string_view text) {
  return boost::json::parse(text);
}

value ObjectWith(std::initializer_list<std::pair<std::string_view, value>> properties,
                 std::initializer_list<std::string_view> required) {
  object props;
  for (const auto& [name, schema] : properties) props[name] = schema;
  array names;
  for (std::string_view name : required) names.emplace_back(name);
  return object{
      {"type", "object"}, {"required", std::move(names)}, {"properties", std::move(props)}};
}

value Ids() {
  return object{{"type", "array"},
                {"maxItems", records::kMaxBatchItems},
                {"items", object{{"type", array{"string", "integer"}}}}};
}

const value& RecordExample() {
  static const value example = Parse(
      R"({"id":"7","fields":{"title":"Write the report"},"createdBy":"u1",
          "createdAt":"2026-11-24T08:44:00.000Z","updatedBy":"u1",
          "updatedAt":"2026-11-24T08:44:00.000Z","deletedBy":null,"deletedAt":null})");
  return example;
}

// The first example of the display schema the codec gives `field`, its own formatter's output.
value DisplayExample(const config::Field& field) {
  const value schema = records::CodecOf(field).DisplayJsonSchema(field);
  const value* examples =
      schema.is_object() ? schema.get_object().if_contains("examples") : nullptr;
  return examples != nullptr && examples->is_array() && !examples->get_array().empty()
             ? examples->get_array().front()
             : value(nullptr);
}

// A record read with format=raw and with format=display (one record of a table with a budget in
// USD, a due date and an estimate in h:mm): the display values come from the codecs.
std::pair<value, value> ReadExamples() {
  config::Field budget;
  budget.type = config::FieldType::kCurrency;
  budget.scale = 2;
  budget.currency = "USD";
  config::Field due;
  due.type = config::FieldType::kDate;
  config::Field estimate;
  estimate.type = config::FieldType::kDuration;
  value raw = RecordExample();
  value display = raw;
  raw.get_object()["fields"] = Parse(
      R"({"title":"Write the report","budget":1234567.55,"due":"2026-11-24","estimate":3900})");
  display.get_object()["fields"] = object{{"title", "Write the report"},
                                          {"budget", DisplayExample(budget)},
                                          {"due", DisplayExample(due)},
                                          {"estimate", DisplayExample(estimate)}};
  return {std::move(raw), std::move(display)};
}

// The named examples of a read answer: raw, and display (`list`: a page of one record).
value ReadAnswerExamples(bool list) {
  auto [raw, display] = ReadExamples();
  const auto page = [list](value record) -> value {
    if (!list) return record;
    return object{{"records", array{std::move(record)}},
                  {"pagination", object{{"total", 1},
                                        {"limit", records::kDefaultListLimit},
                                        {"offset", 0},
                                        {"page", 1},
                                        {"totalPages", 1}}}};
  };
  return object{{"raw", object{{"summary", "format=raw (the default): values as stored"},
                               {"value", page(std::move(raw))}}},
                {"display", object{{"summary", "format=display: values as people read them"},
                                   {"value", page(std::move(display))}}}};
}

}  // namespace

void DescribeRecordRoute(http::RouteSpec& spec, std::string_view suffix) {
  const std::string_view method = spec.method;
  const auto is = [&](std::string_view m, std::string_view s) {
    return method == m && suffix == s;
  };
  const value record = SchemaRef(openapi::kRecord);
  // A read taking `format` answers either shape; each component says which (x-cairn-format).
  const value read = openapi::RawOrDisplay(openapi::kRecord, openapi::kRecordDisplay);
  const value list = openapi::RawOrDisplay(openapi::kRecordList, openapi::kRecordListDisplay);
  const auto read_ok = [&](std::string description, const value& schema, bool is_list) {
    spec.responses.push_back({200, std::move(description) + " (format=raw or display)", schema,
                              nullptr, ReadAnswerExamples(is_list)});
  };
  const auto ok = [&](int status, std::string description, value schema, value example = nullptr) {
    spec.responses.push_back(
        {status, std::move(description), std::move(schema), std::move(example)});
  };
  const auto error = [&](int status, std::string description) {
    spec.responses.push_back({status, std::move(description), nullptr, nullptr});
  };
  const value batch_limit = object{{"type", "array"}, {"maxItems", records::kMaxBatchItems}};

  if (is("POST", "/records")) {
    spec.operation_id = "createRecord";
    spec.body_doc = SchemaRef(openapi::kRecordCreate);
    spec.body_example = Parse(R"({"fields":{"title":"Write the report"}})");
    ok(201, "The new record", record, RecordExample());
    error(403, "The caller may not create records here");
  } else if (is("GET", "/records")) {
    spec.operation_id = "listRecords";
    spec.query = ListParams();
    read_ok("A page of records", list, true);
  } else if (is("GET", "/trash")) {
    spec.operation_id = "listTrash";
    spec.query = ListParams();
    read_ok("A page of soft-deleted records", list, true);
  } else if (is("POST", "/records/batch")) {
    spec.operation_id = "createRecords";
    spec.body_doc =
        ObjectWith({{"records", value(object{{"type", "array"},
                                             {"maxItems", records::kMaxBatchItems},
                                             {"items", SchemaRef(openapi::kRecordCreate)}})}},
                   {"records"});
    ok(201, "All records created",
       ObjectWith({{"created", value(object{{"type", "integer"}})},
                   {"records", ArrayOf(openapi::kRecord)}},
                  {"created", "records"}));
    error(413, "More than 1000 records");
  } else if (is("PATCH", "/records/batch")) {
    spec.operation_id = "updateRecords";
    spec.body_doc = ObjectWith(
        {{"records",
          value(object{
              {"type", "array"},
              {"maxItems", records::kMaxBatchItems},
              {"items",
               value(object{{"allOf", array{SchemaRef(openapi::kRecordUpdate)}},
                            {"required", array{"id"}},
                            {"properties",
                             object{{"id", object{{"type", array{"string", "integer"}}}}}}})}})}},
        {"records"});
    ok(200, "All records updated",
       ObjectWith({{"updated", value(object{{"type", "integer"}})},
                   {"records", ArrayOf(openapi::kRecord)}},
                  {"updated", "records"}));
    error(409, "A record changed since its updatedAt");
    error(413, "More than 1000 records");
  } else if (is("DELETE", "/records/batch")) {
    spec.operation_id = "deleteRecords";
    spec.body_doc =
        ObjectWith({{"ids", Ids()}, {"permanent", value(object{{"type", "boolean"}})}}, {"ids"});
    ok(200, "All records deleted",
       ObjectWith({{"deleted", value(object{{"type", "integer"}})}}, {"deleted"}));
    error(413, "More than 1000 ids");
  } else if (is("POST", "/records/batch/restore")) {
    spec.operation_id = "restoreRecords";
    spec.body_doc = ObjectWith({{"ids", Ids()}}, {"ids"});
    ok(200, "All records restored",
       ObjectWith({{"restored", value(object{{"type", "integer"}})}}, {"restored"}));
    error(413, "More than 1000 ids");
  } else if (is("POST", "/records/upsert")) {
    spec.operation_id = "upsertRecords";
    spec.body_example = Parse(R"({"fields":{"title":"Write the report"},"matchFields":["title"]})");
    ok(200, "One record ({id, operation, record}) or many ({records, created, updated})",
       value(object{{"type", "object"}}));
    error(409, "More than one record matches");
  } else if (is("GET", "/records/{recordId}")) {
    spec.operation_id = "getRecord";
    spec.query = ReadParams();
    read_ok("The record", read, false);
  } else if (is("PATCH", "/records/{recordId}")) {
    spec.operation_id = "updateRecord";
    spec.body_doc = SchemaRef(openapi::kRecordUpdate);
    spec.body_example = Parse(R"({"fields":{"title":"Send the report"}})");
    ok(200, "The updated record", record, RecordExample());
    error(403, "The caller may not update this record");
    error(409, "The record changed since updatedAt");
  } else if (is("DELETE", "/records/{recordId}")) {
    spec.operation_id = "deleteRecord";
    spec.query = {
        {"permanent", Enum({"false", "true"}), "true: delete for good, not to the trash"}};
    ok(204, "Deleted", nullptr);
    error(403, "The caller may not delete this record");
  } else if (is("POST", "/records/{recordId}/restore")) {
    spec.operation_id = "restoreRecord";
    ok(200, "The restored record", record);
  } else if (is("GET", "/records/{recordId}/history")) {
    spec.operation_id = "getRecordHistory";
    spec.query = {{"limit", Integer(1, records::kMaxListLimit, 50), "page size"},
                  {"offset", Integer(0, kMaxOffset, 0), "entries to skip"}};
    ok(200, "The record's revisions, newest first",
       ObjectWith(
           {{"history", value(object{{"type", "array"}, {"items", object{{"type", "object"}}}})},
            {"pagination", ObjectWith({{"total", value(object{{"type", "integer"}})},
                                       {"limit", value(object{{"type", "integer"}})},
                                       {"offset", value(object{{"type", "integer"}})}},
                                      {"total", "limit", "offset"})}},
           {"history", "pagination"}));
  } else if (is("GET", "/views")) {
    spec.operation_id = "listViews";
    ok(200, "The table's saved views",
       ObjectWith(
           {{"views", value(object{{"type", "array"}, {"items", object{{"type", "object"}}}})}},
           {"views"}));
  } else if (is("GET", "/views/{viewId}")) {
    spec.operation_id = "getView";
    ok(200, "The view {id, name, filters, sorts}", value(object{{"type", "object"}}));
  } else if (is("GET", "/views/{viewId}/records")) {
    spec.operation_id = "listViewRecords";
    spec.query = ListParams();
    read_ok("A page of the view's records", list, true);
  }
}

}  // namespace cairn::api
