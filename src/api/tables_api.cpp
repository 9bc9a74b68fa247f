#include "api/tables_api.hpp"

#include <boost/json.hpp>

#include "api/session_layer.hpp"
#include "common/json.hpp"

namespace cairn::api {
namespace {

using access::Action;
using access::TableAccess;
using http::Request;
using http::Response;

constexpr std::string_view kNotFound = "Table not found";

// --- response schemas (for the planned OpenAPI generator; nothing reads them today) ---------

constexpr const char* kRuleSchema = R"({"oneOf": [
  {"type": "string", "enum": ["all", "authenticated"]},
  {"type": "array", "items": {"type": "string"}}]})";

boost::json::value PermissionsSchema() {
  const boost::json::value rule = boost::json::parse(kRuleSchema);
  boost::json::object properties;
  for (Action action : access::AllActions()) properties[access::ActionName(action)] = rule;
  properties["fields"] = {
      {"type", "array"},
      {"items",
       {{"type", "object"},
        {"required", {"field", "read", "write"}},
        {"properties", {{"field", {{"type", "string"}}}, {"read", rule}, {"write", rule}}}}}};
  boost::json::array required;
  for (const auto& member : properties) required.emplace_back(member.key());
  return {{"type", "object"}, {"required", std::move(required)}, {"properties", properties}};
}

boost::json::value TableSchema() {
  return {{"type", "object"},
          {"required", {"id", "name", "slug", "fields", "views", "permissions"}},
          {"properties",
           {{"id", {{"type", "integer"}}},
            {"name", {{"type", "string"}}},
            {"slug", {{"type", "string"}}},
            {"fields",
             {{"type", "array"},
              {"description", "the fields the caller may read, in config order"},
              {"items",
               {{"type", "object"},
                {"required", {"id", "name", "type", "required", "unique", "indexed"}},
                {"properties",
                 {{"id", {{"type", "integer"}}},
                  {"name", {{"type", "string"}}},
                  {"type", {{"type", "string"}}},
                  {"required", {{"type", "boolean"}}},
                  {"unique", {{"type", "boolean"}}},
                  {"indexed", {{"type", "boolean"}}}}},
                {"additionalProperties", true}}}}},
            {"views",
             {{"type", "array"},
              {"items",
               {{"type", "object"},
                {"required", {"id", "name"}},
                {"properties", {{"id", {{"type", "string"}}}, {"name", {{"type", "string"}}}}}}}}},
            {"permissions", PermissionsSchema()}}}};
}

boost::json::value CallerPermissionsSchema() {
  boost::json::object properties;
  properties["role"] = {{"type", "string"}};
  for (Action action : access::AllActions()) {
    properties[access::ActionName(action)] = {{"type", "boolean"}};
  }
  properties["fields"] = {
      {"type", "object"},
      {"description", "the fields the caller may read, by name"},
      {"additionalProperties",
       {{"type", "object"},
        {"required", {"read", "write"}},
        {"properties", {{"read", {{"type", "boolean"}}}, {"write", {{"type", "boolean"}}}}}}}};
  boost::json::array required;
  for (const auto& member : properties) required.emplace_back(member.key());
  return {{"type", "object"}, {"required", std::move(required)}, {"properties", properties}};
}

boost::json::value TablePermissionsSchema() {
  return {{"type", "object"},
          {"required", {"table", "permissions", "caller"}},
          {"properties",
           {{"table",
             {{"type", "object"},
              {"required", {"id", "name", "slug"}},
              {"properties",
               {{"id", {{"type", "integer"}}},
                {"name", {{"type", "string"}}},
                {"slug", {{"type", "string"}}}}}}},
            {"permissions", PermissionsSchema()},
            {"caller", CallerPermissionsSchema()}}}};
}

// --- JSON --------------------------------------------------------------------------------------

void AppendBool(std::string& out, bool value) {
  out += value ? "true" : "false";
}

// `,"key":` (or without the comma for the first member).
void AppendKey(std::string& out, std::string_view key, bool first = false) {
  if (!first) out.push_back(',');
  json::AppendString(out, key);
  out.push_back(':');
}

void AppendRule(std::string& out, const config::PermissionRule& rule) {
  switch (rule.kind) {
    case config::PermissionRule::Kind::kAll:
      out += R"("all")";
      return;
    case config::PermissionRule::Kind::kAuthenticated:
      out += R"("authenticated")";
      return;
    case config::PermissionRule::Kind::kRoles:
      out.push_back('[');
      for (std::size_t i = 0; i < rule.roles.size(); ++i) {
        if (i > 0) out.push_back(',');
        json::AppendString(out, rule.roles[i]);
      }
      out.push_back(']');
      return;
  }
}

void AppendFieldRuleSide(std::string& out, const std::optional<config::PermissionRule>& rule) {
  AppendRule(out, rule ? *rule : access::UnrestrictedRule());
}

void AppendField(std::string& out, const config::Field& field) {
  out += R"({"id":)";
  out += std::to_string(field.id);
  AppendKey(out, "name");
  json::AppendString(out, field.name);
  AppendKey(out, "type");
  json::AppendString(out, config::FieldTypeName(field.type));
  AppendKey(out, "required");
  AppendBool(out, field.required);
  AppendKey(out, "unique");
  AppendBool(out, field.unique);
  AppendKey(out, "indexed");
  AppendBool(out, field.indexed);
  if (!field.default_value.is_null()) {
    AppendKey(out, "default");
    json::Append(out, field.default_value);
  }
  // The type's own properties exactly as configured (none of them is a common key).
  for (const auto& property : field.properties) {
    AppendKey(out, property.key());
    json::Append(out, property.value());
  }
  out.push_back('}');
}

void AppendPermissions(std::string& out, const TableAccess& access) {
  const config::TablePermissions& permissions = access.table().permissions;
  out.push_back('{');
  bool first = true;
  for (Action action : access::AllActions()) {
    AppendKey(out, access::ActionName(action), first);
    first = false;
    AppendRule(out, access::EffectiveRule(permissions, action));
  }
  AppendKey(out, "fields");
  out.push_back('[');
  bool first_rule = true;
  for (const config::FieldPermission& rule : permissions.fields) {
    if (!access.CanReadField(rule.field)) continue;  // D21: not even its rule
    if (!first_rule) out.push_back(',');
    first_rule = false;
    out += R"({"field":)";
    json::AppendString(out, rule.field);
    AppendKey(out, "read");
    AppendFieldRuleSide(out, rule.read);
    AppendKey(out, "write");
    AppendFieldRuleSide(out, rule.write);
    out.push_back('}');
  }
  out += "]}";
}

void AppendTableIdentity(std::string& out, const config::Table& table) {
  out += R"("id":)";
  out += std::to_string(table.id);
  AppendKey(out, "name");
  json::AppendString(out, table.name);
  AppendKey(out, "slug");
  json::AppendString(out, table.slug);
}

void AppendTable(std::string& out, const TableAccess& access) {
  const config::Table& table = access.table();
  out.push_back('{');
  AppendTableIdentity(out, table);
  AppendKey(out, "fields");
  out.push_back('[');
  const auto& fields = access.ReadableFields();
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (i > 0) out.push_back(',');
    AppendField(out, *fields[i]);
  }
  out.push_back(']');
  AppendKey(out, "views");
  out.push_back('[');
  for (std::size_t i = 0; i < table.views.size(); ++i) {
    if (i > 0) out.push_back(',');
    out += R"({"id":)";
    json::AppendString(out, table.views[i].id);
    AppendKey(out, "name");
    json::AppendString(out, table.views[i].name);
    out.push_back('}');
  }
  out.push_back(']');
  AppendKey(out, "permissions");
  AppendPermissions(out, access);
  out.push_back('}');
}

void AppendCaller(std::string& out, const TableAccess& access, std::string_view role) {
  out += R"({"role":)";
  json::AppendString(out, role);
  for (Action action : access::AllActions()) {
    AppendKey(out, access::ActionName(action));
    AppendBool(out, access.Can(action));
  }
  AppendKey(out, "fields");
  out.push_back('{');
  bool first = true;
  for (const config::Field* field : access.ReadableFields()) {
    AppendKey(out, field->name, first);
    first = false;
    out += R"({"read":true,"write":)";
    AppendBool(out, access.CanWriteField(*field));
    out.push_back('}');
  }
  out += "}}";
}

// --- routes ------------------------------------------------------------------------------------

http::RouteSpec Spec(std::string pattern, std::string summary, boost::json::value schema,
                     bool has_table) {
  http::RouteSpec spec;
  spec.method = "GET";
  spec.pattern = std::move(pattern);
  spec.summary = std::move(summary);
  spec.tag = "tables";
  spec.requires_session = true;
  spec.responses.push_back({200, "OK", std::move(schema)});
  spec.responses.push_back({401, "No session", {}});
  if (has_table) {
    spec.responses.push_back({404, "No such table, or the caller may not read it", {}});
  }
  return spec;
}

// The caller's role. The session layer has answered 401 to a request without a session.
Result<std::string_view> RoleOf(const Request& request) {
  const auth::Caller* caller = CallerOf(request);
  if (caller == nullptr) return Error::Unauthorized();
  return std::string_view(caller->user.role);
}

}  // namespace

Status AddTablesRoutes(http::Router& router, const config::AppConfig& config,
                       const access::AccessIndex& access) {
  const access::AccessIndex* index = &access;

  boost::json::value list_schema = {
      {"type", "object"},
      {"required", {"tables"}},
      {"properties", {{"tables", {{"type", "array"}, {"items", TableSchema()}}}}}};
  CAIRN_TRY(router.Add(
      {Spec("/api/tables", "The tables the caller may read", std::move(list_schema), false),
       [&config, index](Request& request) -> Result<Response> {
         CAIRN_ASSIGN_OR_RETURN(std::string_view role, RoleOf(request));
         std::string out = R"({"tables":[)";
         bool first = true;
         for (const config::Table& table : config.tables) {
           const TableAccess& table_access = index->For(table, role);
           if (!table_access.Can(Action::kRead)) continue;
           if (!first) out.push_back(',');
           first = false;
           AppendTable(out, table_access);
         }
         out += "]}";
         return Response::RawJson(200, std::move(out));
       }}));

  CAIRN_TRY(router.Add(
      {Spec("/api/tables/{tableId}", "One table: its readable fields, views and permissions",
            TableSchema(), true),
       [index](Request& request) -> Result<Response> {
         CAIRN_ASSIGN_OR_RETURN(std::string_view role, RoleOf(request));
         const TableAccess* table_access = index->FindReadable(request.PathParam("tableId"), role);
         if (table_access == nullptr) return Error::NotFound(std::string(kNotFound));
         std::string out;
         AppendTable(out, *table_access);
         return Response::RawJson(200, std::move(out));
       }}));

  return router.Add({Spec("/api/tables/{tableId}/permissions",
                          "A table's permission rules and what the caller may do with it",
                          TablePermissionsSchema(), true),
                     [index](Request& request) -> Result<Response> {
                       CAIRN_ASSIGN_OR_RETURN(std::string_view role, RoleOf(request));
                       const TableAccess* table_access =
                           index->FindReadable(request.PathParam("tableId"), role);
                       if (table_access == nullptr) return Error::NotFound(std::string(kNotFound));
                       std::string out = R"({"table":{)";
                       AppendTableIdentity(out, table_access->table());
                       out += R"(},"permissions":)";
                       AppendPermissions(out, *table_access);
                       out += R"(,"caller":)";
                       AppendCaller(out, *table_access, role);
                       out.push_back('}');
                       return Response::RawJson(200, std::move(out));
                     }});
}

}  // namespace cairn::api
