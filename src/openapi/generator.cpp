#include "openapi/generator.hpp"

#include <cctype>
#include <optional>
#include <set>
#include <string>

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include "openapi/shared_schemas.hpp"

namespace cairn::openapi {
namespace {

using boost::json::array;
using boost::json::object;
using boost::json::value;

constexpr std::string_view kSchemaRefPrefix = "#/components/schemas/";

std::string ReasonPhrase(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 201:
      return "Created";
    case 204:
      return "No content";
    case 206:
      return "Partial content";
    case 302:
      return "Redirect";
    case 304:
      return "Not modified";
    case 400:
      return "Invalid request";
    case 401:
      return "No live session";
    case 403:
      return "Not allowed";
    case 404:
      return "Not found";
    case 409:
      return "Conflict";
    case 413:
      return "Too large";
    case 429:
      return "Rate limited";
    default:
      return "Answer";
  }
}

// "/api/files/{path...}" → "/api/files/{path}" (a path template has no rest-of-path form).
std::string OpenApiPath(std::string_view pattern) {
  std::string path(pattern);
  for (std::size_t at = path.find("...}"); at != std::string::npos; at = path.find("...}")) {
    path.erase(at, 3);
  }
  return path;
}

std::vector<std::string> PathParams(std::string_view pattern) {
  std::vector<std::string> names;
  for (std::size_t open = pattern.find('{'); open != std::string_view::npos;
       open = pattern.find('{', open + 1)) {
    const std::size_t close = pattern.find('}', open);
    if (close == std::string_view::npos) break;
    std::string name(pattern.substr(open + 1, close - open - 1));
    if (name.ends_with("...")) name.resize(name.size() - 3);
    names.push_back(std::move(name));
  }
  return names;
}

void AppendWord(std::string& out, std::string_view word) {
  bool upper = !out.empty();
  for (char c : word) {
    if (std::isalnum(static_cast<unsigned char>(c)) == 0) {
      upper = !out.empty();
      continue;
    }
    out.push_back(upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(c)))
                        : static_cast<char>(c));
    upper = false;
  }
}

// GET /api/auth/list-sessions → "getAuthListSessions"; {id} segments read "ById".
std::string DerivedOperationId(const http::RouteSpec& spec) {
  std::string id;
  for (char c : spec.method) id.push_back(static_cast<char>(std::tolower(c)));
  std::string_view path = spec.pattern;
  if (path.starts_with("/api/")) path.remove_prefix(5);
  std::size_t start = 0;
  while (start <= path.size()) {
    std::size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    std::string_view segment = path.substr(start, end - start);
    if (segment.starts_with('{')) {
      segment.remove_prefix(1);
      while (!segment.empty() && (segment.back() == '}' || segment.back() == '.')) {
        segment.remove_suffix(1);
      }
      AppendWord(id, "by");
    }
    AppendWord(id, segment);
    start = end + 1;
  }
  return id;
}

// Points the generic record components at a table's own (`Record` → `TasksRecord`).
void RetargetRecordRefs(value& schema, std::string_view prefix) {
  if (schema.is_array()) {
    for (value& item : schema.get_array()) RetargetRecordRefs(item, prefix);
    return;
  }
  if (!schema.is_object()) return;
  for (auto& [key, member] : schema.get_object()) {
    if (key == "$ref" && member.is_string()) {
      std::string_view ref = member.get_string();
      if (ref.starts_with(kSchemaRefPrefix) &&
          ref.substr(kSchemaRefPrefix.size()).starts_with(kRecord)) {
        member = std::string(kSchemaRefPrefix) + std::string(prefix) +
                 std::string(ref.substr(kSchemaRefPrefix.size()));
      }
      continue;
    }
    RetargetRecordRefs(member, prefix);
  }
}

// The media type of an answer that is not JSON: a response schema `{"type": "string",
// "contentMediaType": "text/html"}` (JSON Schema's own keyword) names it; null for JSON.
std::optional<std::string> NonJsonMediaType(const value& schema) {
  const object* fields = schema.if_object();
  if (fields == nullptr) return std::nullopt;
  const value* media_type = fields->if_contains("contentMediaType");
  if (media_type == nullptr || !media_type->is_string()) return std::nullopt;
  return std::string(media_type->get_string());
}

value JsonContent(value schema, const value& example, const value& examples = nullptr) {
  object media{{"schema", std::move(schema)}};
  if (!examples.is_null()) {
    media["examples"] = examples;
  } else if (!example.is_null()) {
    media["example"] = example;
  }
  return object{{"application/json", std::move(media)}};
}

// The shared error answers, in components.responses (each operation refers to them, so a
// document of many tables stays small).
constexpr std::string_view kResponseRefPrefix = "#/components/responses/";

value ErrorResponseRef(int status) {
  switch (status) {
    case 400:
      return object{{"$ref", std::string(kResponseRefPrefix) + "BadRequest"}};
    case 401:
      return object{{"$ref", std::string(kResponseRefPrefix) + "Unauthorized"}};
    case 404:
      return object{{"$ref", std::string(kResponseRefPrefix) + "NotFound"}};
    default:
      return object{{"$ref", std::string(kResponseRefPrefix) + "Error"}};
  }
}

object SharedResponses() {
  const auto error = [](std::string_view description) {
    return object{{"description", description},
                  {"content", JsonContent(SchemaRef(kErrorEnvelope), nullptr)}};
  };
  return object{{"BadRequest", error("Invalid request (the envelope's errors name each field)")},
                {"Unauthorized", error("No live session")},
                {"NotFound", error("Not found, or not visible to the caller")},
                {"Error", error("An error in the standard envelope (D60)")}};
}

struct Table {
  const config::Table* table = nullptr;  // null: the path is not expanded
  std::string prefix;                    // its record components' prefix
};

bool RefersToRecords(const value& schema) {
  if (schema.is_array()) {
    for (const value& item : schema.get_array()) {
      if (RefersToRecords(item)) return true;
    }
  } else if (schema.is_object()) {
    for (const auto& [key, member] : schema.get_object()) {
      if (key == "$ref" && member.is_string() &&
          member.get_string().starts_with(std::string(kSchemaRefPrefix) + std::string(kRecord))) {
        return true;
      }
      if (RefersToRecords(member)) return true;
    }
  }
  return false;
}

// In a route expanded per table, a schema that is the same for every table goes to
// components.schemas once (`<id>.<part>`); one that names the record shapes stays inline, to be
// pointed at each table's own.
value Shared(value schema, bool expanded, const std::string& key, object& shared_schemas) {
  if (!expanded || !schema.is_object() || schema.get_object().size() <= 1 ||
      RefersToRecords(schema)) {
    return schema;
  }
  shared_schemas[key] = std::move(schema);
  return SchemaRef(key);
}

// Named examples; in a route expanded per table each goes to components.examples once
// (`<key>.<name>`) and is referred to.
value SharedExamples(const value& examples, bool expanded, const std::string& key,
                     object& shared_examples) {
  if (!expanded || !examples.is_object()) return examples;
  object refs;
  for (const auto& [name, example] : examples.get_object()) {
    const std::string shared_key = key + "." + std::string(name);
    shared_examples[shared_key] = example;
    refs[name] = object{{"$ref", "#/components/examples/" + shared_key}};
  }
  return refs;
}

// Where the parts of operations expanded per table are written once.
struct SharedComponents {
  object& parameters;
  object& schemas;
  object& examples;
};

// An operation without its tags and operationId. For a route expanded per table its query
// parameters go to components.parameters once (`<id>.<name>`) and are referred to.
object OperationBody(const http::Route& route, bool expanded, const std::string& base_id,
                     SharedComponents shared) {
  object& shared_parameters = shared.parameters;
  object& shared_schemas = shared.schemas;
  const http::RouteSpec& spec = route.spec;
  object operation;
  if (!spec.summary.empty()) operation["summary"] = spec.summary;

  array parameters;
  for (const std::string& name : PathParams(spec.pattern)) {
    if (expanded && name == "tableId") continue;
    parameters.push_back(object{{"name", name},
                                {"in", "path"},
                                {"required", true},
                                {"schema", object{{"type", "string"}}}});
  }
  for (const http::QueryParam& param : spec.query) {
    object entry{
        {"name", param.name},
        {"in", "query"},
        {"required", param.required},
        {"schema", param.schema.is_null() ? value(object{{"type", "string"}}) : param.schema}};
    if (!param.description.empty()) entry["description"] = param.description;
    if (expanded) {
      const std::string key = base_id + "." + param.name;
      shared_parameters[key] = std::move(entry);
      parameters.push_back(object{{"$ref", "#/components/parameters/" + key}});
    } else {
      parameters.push_back(std::move(entry));
    }
  }
  if (!parameters.empty()) operation["parameters"] = std::move(parameters);

  const bool has_body = !spec.body_schema.is_null() || !spec.body_doc.is_null();
  if (has_body) {
    value schema = Shared(spec.body_doc.is_null() ? spec.body_schema : spec.body_doc, expanded,
                          base_id + ".body", shared_schemas);
    operation["requestBody"] =
        object{{"required", true}, {"content", JsonContent(std::move(schema), spec.body_example)}};
  } else if (route.stream_handler) {
    operation["requestBody"] = object{
        {"required", true},
        {"content",
         object{{"*/*",
                 object{{"schema", object{{"type", "string"},
                                          {"contentMediaType", "application/octet-stream"}}}}}}}};
  }

  object responses;
  for (const http::ResponseSpec& response : spec.responses) {
    object entry{{"description", response.description.empty() ? ReasonPhrase(response.status)
                                                              : response.description}};
    if (response.status >= 400 && response.schema.is_null()) {
      entry["content"] = JsonContent(SchemaRef(kErrorEnvelope), response.example);
    } else if (const auto media_type = NonJsonMediaType(response.schema)) {
      // A route answering something other than JSON says so with `contentMediaType`.
      entry["content"] = object{{*media_type, object{{"schema", object{{"type", "string"}}}}}};
    } else if (!response.schema.is_null()) {
      entry["content"] = JsonContent(
          Shared(response.schema, expanded, base_id + "." + std::to_string(response.status),
                 shared_schemas),
          response.example,
          SharedExamples(response.examples, expanded,
                         base_id + "." + std::to_string(response.status), shared.examples));
    } else if (response.status >= 200 && response.status != 204 && response.status != 304) {
      // A success answer whose spec names no schema still has a body: any JSON (informational
      // answers, 204 and 304 have none).
      entry["content"] = JsonContent(object{}, response.example);
    }
    responses[std::to_string(response.status)] = std::move(entry);
  }
  const bool has_success = [&] {
    for (const http::ResponseSpec& response : spec.responses) {
      if (response.status < 400) return true;
    }
    return false;
  }();
  if (!has_success) {
    // A route whose spec names no success answer: any 2xx, any JSON.
    responses["2XX"] =
        object{{"description", "Success"}, {"content", JsonContent(object{}, nullptr)}};
  }
  const auto add_error = [&](int status) {
    if (!responses.contains(std::to_string(status))) {
      responses[std::to_string(status)] = ErrorResponseRef(status);
    }
  };
  if (has_body || !spec.query.empty()) add_error(400);
  if (spec.requires_session) add_error(401);
  if (!PathParams(spec.pattern).empty()) add_error(404);
  // Every other failure (rate limits, 413, 500, 503) answers the envelope too (D60).
  responses["default"] = ErrorResponseRef(0);
  operation["responses"] = std::move(responses);

  if (spec.requires_session) {
    operation["security"] =
        array{object{{"sessionCookie", array{}}}, object{{"bearerAuth", array{}}}};
  } else if (spec.optional_session) {
    operation["security"] =
        array{object{{"sessionCookie", array{}}}, object{{"bearerAuth", array{}}}, object{}};
  }
  return operation;
}

std::string BaseOperationId(const http::RouteSpec& spec) {
  return spec.operation_id.empty() ? DerivedOperationId(spec) : spec.operation_id;
}

// Adds the tags and a unique operationId; for a table, points the record shapes at its own.
object Finish(object operation, const http::RouteSpec& spec, const Table& table,
              std::set<std::string>& ids) {
  std::string tag = spec.tag.empty() ? "other" : spec.tag;
  std::string id = BaseOperationId(spec);
  if (table.table != nullptr) {
    tag = table.table->name + " " + tag;
    id += table.prefix;
    for (const char* member : {"requestBody", "responses"}) {
      if (value* part = operation.if_contains(member)) RetargetRecordRefs(*part, table.prefix);
    }
  }
  operation["tags"] = array{value(tag)};
  std::string unique = id;
  for (int n = 2; !ids.insert(unique).second; ++n) unique = id + std::to_string(n);
  operation["operationId"] = unique;
  return operation;
}

std::string Lower(std::string_view text) {
  std::string out;
  for (char c : text) out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  return out;
}

object BaseDocument(const config::AppConfig& config, std::string_view title,
                    std::string_view description) {
  object info{{"title", title},
              {"version", config.version.empty() ? std::string("0.0.0") : config.version},
              {"description", description}};
  object components{
      {"schemas", SharedSchemas()},
      {"responses", SharedResponses()},
      {"parameters", object{}},
      {"examples", object{}},
      {"securitySchemes",
       object{{"sessionCookie", object{{"type", "apiKey"},
                                       {"in", "cookie"},
                                       {"name", "better-auth.session_token"},
                                       {"description", "the session cookie set by sign-in"}}},
              {"bearerAuth", object{{"type", "http"},
                                    {"scheme", "bearer"},
                                    {"description", "the session token (set-auth-token)"}}}}}};
  return object{{"openapi", "3.1.0"},
                {"info", std::move(info)},
                {"servers", array{object{{"url", "/"}}}},
                {"paths", object{}},
                {"components", std::move(components)}};
}

void AddOperation(object& paths, const std::string& path, const std::string& method,
                  object operation, const Table& table) {
  value& item = paths[path];
  if (!item.is_object()) item = object{};
  object& item_object = item.get_object();
  if (table.table != nullptr && !item_object.contains(kTableExtension)) {
    item_object[kTableExtension] = object{{"id", std::to_string(table.table->id)},
                                          {"name", table.table->name},
                                          {"slug", table.table->slug}};
  }
  item_object[Lower(method)] = std::move(operation);
}

// Marks a path whose last parameter takes the rest of the path (`{path...}`): an OpenAPI path
// parameter cannot hold a slash, so tools that match paths (the tests' answer check) read this.
void MarkRestOfPath(object& paths, const std::string& path, std::string_view pattern) {
  if (pattern.ends_with("...}")) paths[path].get_object()["x-cairn-rest-of-path"] = true;
}

// Tags in order of first use, so the explorer lists them as the routes were registered.
void AddTags(object& document) {
  array tags;
  std::set<std::string> seen;
  for (const auto& [path, item] : document.at("paths").get_object()) {
    for (const auto& [method, operation] : item.get_object()) {
      if (!operation.is_object() || !operation.get_object().contains("tags")) continue;
      for (const value& tag : operation.at("tags").get_array()) {
        const std::string name(tag.get_string());
        if (seen.insert(name).second) tags.push_back(object{{"name", name}});
      }
    }
  }
  document["tags"] = std::move(tags);
}

}  // namespace

Documents GenerateDocuments(std::span<const http::Route* const> routes,
                            const config::AppConfig& config) {
  object app = BaseDocument(config, config.name + " API",
                            "The application API of " + config.name + ", generated by cairn.");
  object auth = BaseDocument(
      config, config.name + " auth API",
      "The authentication surface of " + config.name + " (/api/auth), generated by cairn.");
  object& app_schemas = app["components"].get_object()["schemas"].get_object();
  std::vector<Table> tables;
  for (const config::Table& table : config.tables) {
    tables.push_back({&table, TableSchemaPrefix(table)});
    AddTableSchemas(table, app_schemas);
  }
  std::set<std::string> app_ids;
  std::set<std::string> auth_ids;
  object& app_paths = app["paths"].get_object();
  object& auth_paths = auth["paths"].get_object();
  object& app_parameters = app["components"].get_object()["parameters"].get_object();
  object& auth_parameters = auth["components"].get_object()["parameters"].get_object();
  object& app_examples = app["components"].get_object()["examples"].get_object();
  for (const http::Route* route : routes) {
    const http::RouteSpec& spec = route->spec;
    const std::string& pattern = spec.pattern;
    const bool is_auth = pattern.starts_with(kAuthPrefix);
    if (is_auth || !pattern.starts_with(kTablePrefix) || tables.empty()) {
      object body =
          OperationBody(*route, false, BaseOperationId(spec),
                        {is_auth ? auth_parameters : app_parameters, app_schemas, app_examples});
      AddOperation(is_auth ? auth_paths : app_paths, OpenApiPath(pattern), spec.method,
                   Finish(std::move(body), spec, {}, is_auth ? auth_ids : app_ids), {});
      MarkRestOfPath(is_auth ? auth_paths : app_paths, OpenApiPath(pattern), pattern);
      continue;
    }
    // Built once, copied per table.
    const object body = OperationBody(*route, true, BaseOperationId(spec),
                                      {app_parameters, app_schemas, app_examples});
    const std::string rest = OpenApiPath(std::string_view(pattern).substr(kTablePrefix.size()));
    for (const Table& table : tables) {
      AddOperation(app_paths, "/api/tables/" + table.table->slug + rest, spec.method,
                   Finish(body, spec, table, app_ids), table);
      MarkRestOfPath(app_paths, "/api/tables/" + table.table->slug + rest, pattern);
    }
  }
  for (object* document : {&app, &auth}) {  // an empty map only where something uses it
    object& components = (*document)["components"].get_object();
    if (components["examples"].get_object().empty()) components.erase("examples");
  }
  AddTags(app);
  AddTags(auth);
  return {std::move(app), std::move(auth)};
}

}  // namespace cairn::openapi
