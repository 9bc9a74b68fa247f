#include "mcp/tool_catalog.hpp"

#include <algorithm>
#include <array>
#include <cctype>

#include "common/crypto.hpp"
#include "mcp/limits.hpp"

namespace cairn::mcp {
namespace {

constexpr std::string_view kRecordsPrefix = "/api/tables/{tableId}";

// Which record route each record tool runs.
struct RecordVerb {
  const char* verb;
  const char* method;
  const char* suffix;
};
constexpr std::array<RecordVerb, 5> kRecordVerbs{{
    {"list", "GET", "/records"},
    {"get", "GET", "/records/{recordId}"},
    {"create", "POST", "/records"},
    {"update", "PATCH", "/records/{recordId}"},
    {"delete", "DELETE", "/records/{recordId}"},
}};

bool IsParameter(std::string_view segment) {
  return segment.size() >= 2 && segment.front() == '{' && segment.back() == '}';
}

std::string ParameterName(std::string_view segment) {
  segment.remove_prefix(1);
  segment.remove_suffix(1);
  if (segment.ends_with("...")) segment.remove_suffix(3);
  return std::string(segment);
}

std::vector<std::string_view> Segments(std::string_view path) {
  std::vector<std::string_view> segments;
  while (!path.empty()) {
    if (path.front() == '/') {
      path.remove_prefix(1);
      continue;
    }
    const std::size_t end = path.find('/');
    segments.push_back(path.substr(0, end));
    path = end == std::string_view::npos ? std::string_view{} : path.substr(end);
  }
  return segments;
}

// The verb a schema route's tool name ends with: literal paths read (GET) or act (POST) by their
// last segment; a method that changes the resource says so.
std::string_view MethodSuffix(std::string_view method, bool ends_in_parameter) {
  if (method == "GET") return ends_in_parameter ? "get" : "";
  if (method == "POST") return ends_in_parameter ? "create" : "";
  if (method == "DELETE") return "delete";
  return "update";  // PUT, PATCH
}

// A query parameter as a tool argument: its declared schema and description. A parameter whose
// value is JSON text (filter) may also be given as the object or array itself.
boost::json::value QueryArgumentSchema(const http::QueryParam& param) {
  boost::json::object schema;
  if (param.schema.is_object()) schema = param.schema.get_object();
  if (const auto* media = schema.if_contains("contentMediaType");
      media != nullptr && media->is_string() && media->get_string() == "application/json") {
    schema["type"] = boost::json::array{"string", "object", "array"};
  }
  if (!param.description.empty()) schema["description"] = param.description;
  if (schema.empty()) schema["type"] = "string";
  return schema;
}

// The tool of `route`, with the path parameters in `fixed` set by the tool; `body` replaces the
// route's body schema for the input (a table's record schema).
Tool ToolOf(const http::Route& route, std::string name, std::string description,
            std::vector<std::pair<std::string, std::string>> fixed,
            const boost::json::object* body) {
  Tool tool;
  tool.name = std::move(name);
  tool.description = std::move(description);
  tool.method = route.spec.method;
  tool.pattern = route.spec.pattern;
  tool.fixed_path = std::move(fixed);
  boost::json::object properties;
  boost::json::array required;
  for (std::string_view segment : Segments(route.spec.pattern)) {
    if (!IsParameter(segment)) continue;
    std::string param = ParameterName(segment);
    const bool is_fixed = std::any_of(tool.fixed_path.begin(), tool.fixed_path.end(),
                                      [&](const auto& entry) { return entry.first == param; });
    if (is_fixed) continue;
    properties[param] = {{"type", "string"}, {"description", "Path parameter {" + param + "}"}};
    required.emplace_back(param);
    tool.path_arguments.push_back(std::move(param));
  }
  for (const http::QueryParam& param : route.spec.query) {
    properties[param.name] = QueryArgumentSchema(param);
    if (param.required) required.emplace_back(param.name);
    tool.query_arguments.push_back(param.name);
  }
  if (!route.spec.body_schema.is_null() && route.handler) {
    tool.has_body = true;
    boost::json::value schema =
        body != nullptr ? boost::json::value(*body) : route.spec.body_schema;
    if (schema.is_object()) {
      schema.as_object()["description"] = "The JSON body of " + tool.method + " " + tool.pattern;
    }
    properties["body"] = std::move(schema);
    required.emplace_back("body");
  }
  tool.input_schema = {{"type", "object"}, {"properties", std::move(properties)}};
  if (!required.empty()) tool.input_schema["required"] = std::move(required);
  tool.input_schema["additionalProperties"] = false;
  return tool;
}

std::string Lowercase(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

}  // namespace

std::string ToolSafe(std::string_view text) {
  std::string out;
  for (const char c : text) {
    const bool safe = std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '-';
    if (safe) {
      out.push_back(c);
    } else if (out.empty() || out.back() != '_') {
      out.push_back('_');
    }
  }
  // `@scope/name` (a package-style app name) gives `scope_name`.
  while (!out.empty() && out.front() == '_') out.erase(out.begin());
  while (!out.empty() && out.back() == '_') out.pop_back();
  if (out.empty()) out = "app";
  return out;
}

ToolCatalog::ToolCatalog(const http::Router& router, std::string_view app_name,
                         const std::vector<RecordTable>& tables)
    : generation_(router.generation()) {
  const std::string app = Lowercase(ToolSafe(app_name));
  const std::vector<const http::Route*> routes = router.Routes();
  for (const http::Route* route : routes) {
    const std::string& pattern = route->spec.pattern;
    if (!pattern.starts_with(kSchemaRoutePrefix) || !route->handler) continue;
    std::string name = app + "_schema";
    bool ends_in_parameter = false;
    for (std::string_view segment :
         Segments(std::string_view(pattern).substr(kSchemaRoutePrefix.size()))) {
      ends_in_parameter = IsParameter(segment);
      if (!ends_in_parameter) name.append("_").append(ToolSafe(segment));
    }
    const std::string_view suffix = MethodSuffix(route->spec.method, ends_in_parameter);
    if (!suffix.empty()) name.append("_").append(suffix);
    if (Find(Lowercase(name)) != nullptr) name.append("_").append(route->spec.method);
    Add(ToolOf(*route, Lowercase(std::move(name)), route->spec.summary, {}, nullptr));
  }
  for (const RecordTable& table : tables) {
    for (const RecordVerb& verb : kRecordVerbs) {
      const std::string pattern = std::string(kRecordsPrefix) + verb.suffix;
      const auto found = std::find_if(routes.begin(), routes.end(), [&](const http::Route* route) {
        return route->spec.method == verb.method && route->spec.pattern == pattern &&
               route->handler;
      });
      if (found == routes.end()) continue;
      const std::string_view kind = verb.verb;
      const boost::json::object* body = kind == "create"   ? &table.create_body
                                        : kind == "update" ? &table.update_body
                                                           : nullptr;
      std::string name = Lowercase(app + "_" + ToolSafe(table.name) + "_" + verb.verb);
      Add(ToolOf(**found, std::move(name),
                 (*found)->spec.summary + " in the table " + table.name + " (" + verb.method +
                     " /api/tables/" + table.table_id + verb.suffix + ")",
                 {{"tableId", table.table_id}}, body));
    }
  }
}

void ToolCatalog::Add(Tool tool) {
  // Too long or taken (two table names that differ only in unsafe characters): the name keeps
  // its start and ends with a hash of the full name, so it stays stable across restarts.
  if (tool.name.size() > kMaxToolNameLength || Find(tool.name) != nullptr) {
    const std::string hash =
        crypto::Sha256Hex(tool.name + " " + tool.method + " " + tool.pattern).substr(0, 8);
    tool.name.resize(std::min(tool.name.size(), kMaxToolNameLength - hash.size() - 1));
    tool.name.append("_").append(hash);
  }
  tools_.push_back(std::move(tool));
}

const Tool* ToolCatalog::Find(std::string_view name) const {
  for (const Tool& tool : tools_) {
    if (tool.name == name) return &tool;
  }
  return nullptr;
}

}  // namespace cairn::mcp
