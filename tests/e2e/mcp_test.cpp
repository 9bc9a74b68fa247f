// The MCP server at POST /mcp (D55) over HTTP, on the backend of this run: the transport's rules
// (Accept, Content-Type, MCP-Protocol-Version, Origin, one message per request, 202 for
// notifications, 405 for GET), access (401, 403, 404 without auth), the tools generated from the
// route table (record tools per table, a schema tool per route under /api/admin/schema/, pages of
// tools/list), and tool calls that answer what the route answers with the caller's permissions:
// an admin sees and writes everything, an admin impersonating a member only what the member may.
#include <gtest/gtest.h>

#include <set>

#include "api/session_layer.hpp"
#include "e2e/expect_envelope.hpp"
#include "e2e/records_support.hpp"
#include "http/route.hpp"

namespace cairn::test {
namespace {

namespace json = boost::json;

constexpr const char* kTables = R"(tables:
  - id: 1
    name: notes
    fields:
      - { id: 1, name: title, type: single-line-text, required: true }
      - { id: 2, name: score, type: decimal, precision: 2 }
  - id: 2
    name: vault
    fields:
      - { id: 1, name: title, type: single-line-text }
    permissions:
      read: [admin]
  - id: 3
    name: people
    fields:
      - { id: 1, name: title, type: single-line-text }
      - { id: 2, name: salary, type: integer }
      - { id: 3, name: stage, type: single-line-text }
    permissions:
      fields:
        - { field: salary, read: [admin], write: [admin] }
        - { field: stage, write: [admin] }
)";

// A route under /api/admin/schema/ standing in for the schema routes: its tool must mirror it.
Status AddProbeRoutes(http::Router& router) {
  http::RouteSpec spec;
  spec.method = "POST";
  spec.pattern = "/api/admin/schema/probe/{probeId}/echo";
  spec.summary = "Echo the call (MCP test probe)";
  spec.requires_session = true;
  spec.body_schema = json::parse(
      R"({"type":"object","required":["value"],"properties":{"value":{"type":"string"}},
          "additionalProperties":false})");
  spec.query.push_back({"mode", json::parse(R"({"type":"string"})"), "An echoed mode"});
  CAIRN_TRY(router.Add({spec, [](http::Request& request) -> Result<http::Response> {
                          const auth::Caller* caller = api::CallerOf(request);
                          json::object echo{{"probeId", request.PathParam("probeId")},
                                            {"mode", request.Query("mode").value_or("")},
                                            {"value", request.json->at("value")},
                                            {"userId", caller != nullptr ? caller->user.id : ""}};
                          return http::Response::Json(200, echo);
                        }}));
  http::RouteSpec get;
  get.method = "GET";
  get.pattern = "/api/admin/schema/probe/{probeId}";
  get.summary = "Read a probe (MCP test probe)";
  get.requires_session = true;
  return router.Add({get, [](http::Request&) -> Result<http::Response> {
                       return Error::NotFound("No such probe");
                     }});
}

class McpTest : public ::testing::Test {
 protected:
  McpTest()
      : app_(kTables, "", [](TestAppOptions& options) {
          options.extra_routes = [](http::Router& router, db::Database&) {
            return AddProbeRoutes(router);
          };
        }) {}

  static Headers McpHeaders(const std::string& token) {
    Headers headers{{"Accept", "application/json, text/event-stream"},
                    {"Content-Type", "application/json"}};
    if (!token.empty()) headers.emplace_back("Authorization", "Bearer " + token);
    return headers;
  }

  HttpResult Post(const std::string& token, const std::string& body, Headers headers = {}) {
    if (headers.empty()) headers = McpHeaders(token);
    return app_.app().Client().Request("POST", "/mcp", body, headers);
  }

  // A JSON-RPC request; the HTTP answer must be 200 with a JSON-RPC response of the same id.
  json::object Rpc(const std::string& token, const std::string& method, json::object params) {
    const json::object request{
        {"jsonrpc", "2.0"}, {"id", ++id_}, {"method", method}, {"params", std::move(params)}};
    const auto result = Post(token, json::serialize(request));
    EXPECT_EQ(result.status, 200) << result.body;
    EXPECT_EQ(result.Header("Content-Type"), "application/json");
    const json::value body = result.Json();
    if (!body.is_object()) {
      ADD_FAILURE() << "not JSON: " << result.body;
      return {};
    }
    EXPECT_EQ(body.at("jsonrpc"), "2.0");
    EXPECT_EQ(body.at("id"), id_);
    return body.as_object();
  }

  // tools/call's result; fails the test on a JSON-RPC error.
  json::object Call(const std::string& token, const std::string& tool, json::object arguments) {
    json::object response =
        Rpc(token, "tools/call", {{"name", tool}, {"arguments", std::move(arguments)}});
    if (!response.contains("result")) {
      ADD_FAILURE() << tool << ": " << json::serialize(response);
      return {};
    }
    return response.at("result").as_object();
  }

  // The route's answer a tool result carries as text.
  static json::value Text(const json::object& result) {
    return json::parse(result.at("content").at(0).at("text").as_string());
  }

  static int ErrorCode(const json::object& response) {
    return static_cast<int>(response.at("error").at("code").as_int64());
  }

  std::vector<json::object> ListTools(const std::string& token) {
    std::vector<json::object> tools;
    json::object params;
    for (int page = 0; page < 20; ++page) {
      const json::object response = Rpc(token, "tools/list", params);
      const json::object& result = response.at("result").as_object();
      for (const auto& tool : result.at("tools").as_array()) tools.push_back(tool.as_object());
      if (!result.contains("nextCursor")) return tools;
      params = {{"cursor", result.at("nextCursor")}};
    }
    ADD_FAILURE() << "tools/list did not end";
    return tools;
  }

  // A member's session as an admin impersonating it.
  Caller Impersonate(const Caller& user) {
    const auto started = app_.Send(app_.admin(), "POST", "/api/auth/admin/impersonate-user",
                                   json::serialize(json::object{{"userId", user.user_id}}));
    EXPECT_EQ(started.status, 200) << started.body;
    return {user.user_id, std::string(started.Json().at("session").at("token").as_string())};
  }

  RecordsApp app_;
  std::int64_t id_ = 0;
};

TEST_F(McpTest, InitializeNegotiatesTheRevisionAndAnswersPing) {
  const std::string& token = app_.admin().token;
  const json::object ours = Rpc(token, "initialize",
                                {{"protocolVersion", "2025-06-18"},
                                 {"capabilities", json::object{}},
                                 {"clientInfo", {{"name", "test"}, {"version", "1"}}}});
  const json::object& result = ours.at("result").as_object();
  EXPECT_EQ(result.at("protocolVersion"), "2025-06-18");
  EXPECT_EQ(result.at("serverInfo").at("name"), "records-app");
  EXPECT_EQ(result.at("serverInfo").at("version"), "1.0.0");
  EXPECT_TRUE(result.at("capabilities").at("tools").is_object());
  // Another revision is answered with ours: the client decides.
  const json::object other = Rpc(token, "initialize", {{"protocolVersion", "2099-01-01"}});
  EXPECT_EQ(other.at("result").at("protocolVersion"), "2025-06-18");
  EXPECT_EQ(ErrorCode(Rpc(token, "initialize", {})), -32602);
  EXPECT_EQ(Rpc(token, "ping", {}).at("result"), json::object{});
  EXPECT_EQ(ErrorCode(Rpc(token, "resources/list", {})), -32601);
}

TEST_F(McpTest, TransportRulesAnswerWithTheRightStatus) {
  const std::string& token = app_.admin().token;
  const std::string ping = R"({"jsonrpc":"2.0","id":1,"method":"ping"})";
  const auto expect_rpc_error = [&](const HttpResult& result, int status, int code) {
    EXPECT_EQ(result.status, status) << result.body;
    const json::value body = result.Json();
    ASSERT_TRUE(body.is_object()) << result.body;
    EXPECT_EQ(body.at("error").at("code").as_int64(), code) << result.body;
  };
  // Notifications and client responses: 202, no body.
  const auto initialized = Post(token, R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
  EXPECT_EQ(initialized.status, 202);
  EXPECT_TRUE(initialized.body.empty());
  EXPECT_EQ(Post(token, R"({"jsonrpc":"2.0","id":"s1","result":{}})").status, 202);
  // Not JSON, not one message, not a message.
  expect_rpc_error(Post(token, "{\"jsonrpc\":"), 400, -32700);
  expect_rpc_error(Post(token, "[" + ping + "]"), 400, -32600);  // no batches in 2025-06-18
  expect_rpc_error(Post(token, R"({"id":7,"method":"ping"})"), 400, -32600);
  EXPECT_EQ(Post(token, R"({"id":7,"method":"ping"})").Json().at("id"), 7);
  expect_rpc_error(Post(token, R"({"jsonrpc":"2.0","id":null,"method":"ping"})"), 400, -32600);
  expect_rpc_error(Post(token, R"({"jsonrpc":"2.0","id":1,"method":"ping","params":[]})"), 400,
                   -32600);
  // Headers.
  Headers no_accept{{"Content-Type", "application/json"}, {"Authorization", "Bearer " + token}};
  expect_rpc_error(Post(token, ping, no_accept), 406, -32600);
  Headers sse_only = McpHeaders(token);
  sse_only[0].second = "text/event-stream";
  expect_rpc_error(Post(token, ping, sse_only), 406, -32600);
  Headers text = McpHeaders(token);
  text[1].second = "text/plain";
  expect_rpc_error(Post(token, ping, text), 415, -32600);
  Headers old_version = McpHeaders(token);
  old_version.emplace_back("MCP-Protocol-Version", "2024-11-05");
  expect_rpc_error(Post(token, ping, old_version), 400, -32600);
  Headers this_version = McpHeaders(token);
  this_version.emplace_back("MCP-Protocol-Version", "2025-06-18");
  EXPECT_EQ(Post(token, ping, this_version).status, 200);
  // Origin: a browser page elsewhere is refused (DNS rebinding), the app's own origin is not.
  Headers evil = McpHeaders(token);
  evil.emplace_back("Origin", "http://evil.example");
  ExpectEnvelope(Post(token, ping, evil), 403, "FORBIDDEN");
  Headers own = McpHeaders(token);
  own.emplace_back("Origin", "http://127.0.0.1:" + std::to_string(app_.app().port()));
  EXPECT_EQ(Post(token, ping, own).status, 200);
  // A body past the limit: 413 from Content-Length, before it is read.
  ExpectEnvelope(Post(token, std::string(10 * 1024 * 1024 + 1, ' ')), 413, "PAYLOAD_TOO_LARGE");
  // No stream, no MCP sessions.
  auto client = app_.app().Client();
  for (const char* method : {"GET", "DELETE"}) {
    const auto result = client.Request(method, "/mcp", "", McpHeaders(token));
    EXPECT_EQ(result.status, 405) << method;
    EXPECT_EQ(result.Header("Allow"), "POST");
  }
}

TEST_F(McpTest, OnlyAdminsMayCall) {
  const std::string ping = R"({"jsonrpc":"2.0","id":1,"method":"ping"})";
  ExpectEnvelope(Post("", ping), 401, "UNAUTHORIZED");
  ExpectEnvelope(Post("not-a-token", ping), 401, "UNAUTHORIZED");
  ExpectEnvelope(Post(app_.NewUser("member").token, ping), 403, "FORBIDDEN");
  ExpectEnvelope(Post(app_.NewUser("viewer").token, ping), 403, "FORBIDDEN");
  EXPECT_EQ(Post(app_.admin().token, ping).status, 200);
  // The session cookie works too, from the app's own origin (the CSRF origin check).
  const auto signed_in = app_.app().Client().PostJson(
      "/api/auth/sign-in/email",
      R"({"email":"admin@example.com","password":")" + std::string(kTestPassword) + "\"}");
  const auto set_cookie = signed_in.SetCookie(std::string(api::kSessionCookie));
  ASSERT_TRUE(set_cookie.has_value()) << signed_in.body;
  Headers by_cookie = McpHeaders("");
  by_cookie.emplace_back("Cookie", set_cookie->substr(0, set_cookie->find(';')));
  ExpectEnvelope(Post("", ping, by_cookie), 403, "FORBIDDEN");  // no Origin
  by_cookie.emplace_back("Origin", "http://127.0.0.1:" + std::to_string(app_.app().port()));
  EXPECT_EQ(Post("", ping, by_cookie).status, 200);
  // An admin's impersonation session passes; its tools act as the impersonated user.
  EXPECT_EQ(Post(Impersonate(app_.NewUser("member")).token, ping).status, 200);
  // ...only while the impersonator is still an admin.
  const Caller second_admin = app_.NewUser("admin");
  const auto started =
      app_.Send(second_admin, "POST", "/api/auth/admin/impersonate-user",
                json::serialize(json::object{{"userId", app_.NewUser("member").user_id}}));
  ASSERT_EQ(started.status, 200) << started.body;
  const std::string acting(started.Json().at("session").at("token").as_string());
  EXPECT_EQ(Post(acting, ping).status, 200);
  const auto demoted = app_.Send(
      app_.admin(), "POST", "/api/auth/admin/set-role",
      json::serialize(json::object{{"userId", second_admin.user_id}, {"role", "member"}}));
  ASSERT_EQ(demoted.status, 200) << demoted.body;
  ExpectEnvelope(Post(acting, ping), 403, "FORBIDDEN");
}

TEST(McpWithoutAuth, IsNotServed) {
  TestApp app(TestAppOptions{.config_yaml = kMinimalConfig});
  const auto result = app.Client().Request(
      "POST", "/mcp", R"({"jsonrpc":"2.0","id":1,"method":"ping"})",
      {{"Accept", "application/json, text/event-stream"}, {"Content-Type", "application/json"}});
  ExpectEnvelope(result, 404, "NOT_FOUND");
}

TEST_F(McpTest, ToolsMirrorTheRouteTable) {
  const auto tools = ListTools(app_.admin().token);
  std::map<std::string, json::object> by_name;
  for (const auto& tool : tools) by_name[std::string(tool.at("name").as_string())] = tool;
  std::set<std::string> expected{"records-app_schema_probe_echo", "records-app_schema_probe_get"};
  for (const char* table : {"notes", "vault", "people"}) {
    for (const char* verb : {"list", "get", "create", "update", "delete"}) {
      expected.insert(std::string("records-app_") + table + "_" + verb);
    }
  }
  std::set<std::string> names;
  for (const auto& [name, tool] : by_name) names.insert(name);
  EXPECT_EQ(names, expected);
  EXPECT_EQ(tools.size(), expected.size());  // no name twice

  // The probe's tool: its summary, path parameter, query parameter and body schema.
  const json::object& echo = by_name["records-app_schema_probe_echo"];
  EXPECT_EQ(echo.at("description"), "Echo the call (MCP test probe)");
  const json::object& input = echo.at("inputSchema").as_object();
  EXPECT_EQ(input.at("type"), "object");
  EXPECT_EQ(input.at("properties").at("probeId").at("type"), "string");
  EXPECT_EQ(input.at("properties").at("mode").at("description"), "An echoed mode");
  EXPECT_EQ(input.at("properties").at("body").at("required"), json::array{"value"});
  EXPECT_EQ(input.at("required"), (json::array{"probeId", "body"}));
  EXPECT_EQ(by_name["records-app_schema_probe_get"].at("annotations").at("readOnlyHint"), true);

  // Record tools: the table's field schemas (from the codecs), the list parameters.
  const json::object& create = by_name["records-app_people_create"].at("inputSchema").as_object();
  const json::object& fields =
      create.at("properties").at("body").at("properties").at("fields").as_object();
  EXPECT_TRUE(fields.at("properties").at("salary").is_object());
  EXPECT_EQ(fields.at("additionalProperties"), false);
  EXPECT_FALSE(create.at("properties").as_object().contains("tableId"));
  const json::object& notes_fields = by_name["records-app_notes_create"]
                                         .at("inputSchema")
                                         .at("properties")
                                         .at("body")
                                         .at("properties")
                                         .at("fields")
                                         .as_object();
  EXPECT_EQ(notes_fields.at("required"), json::array{"title"});
  const json::object& list = by_name["records-app_notes_list"].at("inputSchema").as_object();
  for (const char* param : {"filter", "sort", "limit", "page", "fields", "q"}) {
    EXPECT_TRUE(list.at("properties").as_object().contains(param)) << param;
  }
  EXPECT_EQ(list.at("properties").at("filter").at("type"),
            (json::array{"string", "object", "array"}));
  EXPECT_FALSE(list.contains("required"));
  const json::object& update = by_name["records-app_notes_update"].at("inputSchema").as_object();
  EXPECT_EQ(update.at("required"), (json::array{"recordId", "body"}));
  EXPECT_EQ(by_name["records-app_notes_delete"].at("annotations").at("destructiveHint"), true);
}

TEST_F(McpTest, ToolsListPagesThroughACursor) {
  const std::string& token = app_.admin().token;
  EXPECT_EQ(ErrorCode(Rpc(token, "tools/list", {{"cursor", "not-a-cursor"}})), -32602);
  EXPECT_EQ(ErrorCode(Rpc(token, "tools/list", {{"cursor", "9999"}})), -32602);
  const json::object page = Rpc(token, "tools/list", {{"cursor", "15"}});
  EXPECT_EQ(page.at("result").at("tools").as_array().size(), 2u);  // 17 tools in all
  EXPECT_FALSE(page.at("result").as_object().contains("nextCursor"));
}

TEST(McpManyTables, ToolsListPagesOf100) {
  std::string tables = "tables:\n";
  for (int i = 1; i <= 25; ++i) {
    tables += "  - { id: " + std::to_string(i) + ", name: t" + std::to_string(i) +
              ", fields: [{ id: 1, name: title, type: single-line-text }] }\n";
  }
  RecordsApp app(tables);
  HttpClient client = app.app().Client();
  std::set<std::string> names;
  json::value cursor;
  int pages = 0;
  do {
    json::object params;
    if (!cursor.is_null()) params["cursor"] = cursor;
    const auto result = client.Request(
        "POST", "/mcp",
        json::serialize(json::object{
            {"jsonrpc", "2.0"}, {"id", pages}, {"method", "tools/list"}, {"params", params}}),
        {{"Accept", "application/json, text/event-stream"},
         {"Content-Type", "application/json"},
         {"Authorization", "Bearer " + app.admin().token}});
    ASSERT_EQ(result.status, 200) << result.body;
    const json::value body = result.Json();
    const auto& tools = body.at("result").at("tools").as_array();
    EXPECT_LE(tools.size(), 100u);
    for (const auto& tool : tools) names.insert(std::string(tool.at("name").as_string()));
    const auto* next = body.at("result").as_object().if_contains("nextCursor");
    cursor = next != nullptr ? *next : json::value();
    ++pages;
  } while (!cursor.is_null() && pages < 10);
  EXPECT_EQ(pages, 2);
  EXPECT_EQ(names.size(), 125u);
  EXPECT_TRUE(names.contains("records-app_t25_delete"));
}

TEST_F(McpTest, SchemaToolsRunTheirRouteWithTheCallersSession) {
  const std::string& token = app_.admin().token;
  const json::object echoed =
      Call(token, "records-app_schema_probe_echo",
           {{"probeId", "p 1/x"}, {"mode", "dry"}, {"body", {{"value", "hello"}}}});
  EXPECT_EQ(echoed.at("isError"), false);
  const json::value expected = {
      {"probeId", "p 1/x"}, {"mode", "dry"}, {"value", "hello"}, {"userId", app_.admin().user_id}};
  EXPECT_EQ(Text(echoed), expected);
  EXPECT_EQ(echoed.at("structuredContent"), expected);
  // The route's body schema, as the dispatcher applies it: a 400 the agent reads.
  const json::object invalid =
      Call(token, "records-app_schema_probe_echo", {{"probeId", "p"}, {"body", {{"value", 3}}}});
  EXPECT_EQ(invalid.at("isError"), true);
  EXPECT_EQ(Text(invalid).at("code"), "VALIDATION_ERROR");
  EXPECT_EQ(Text(invalid).at("errors").at(0).at("field"), "value");
  // A 404 from the route is a tool error, not a protocol error.
  const json::object missing = Call(token, "records-app_schema_probe_get", {{"probeId", "p"}});
  EXPECT_EQ(missing.at("isError"), true);
  EXPECT_EQ(Text(missing).at("code"), "NOT_FOUND");
  // Arguments that name no call of the route, and unknown tools: protocol errors.
  const auto error_of = [&](const std::string& tool, json::object arguments) {
    return ErrorCode(
        Rpc(token, "tools/call", {{"name", tool}, {"arguments", std::move(arguments)}}));
  };
  EXPECT_EQ(error_of("records-app_nothing", {}), -32602);
  EXPECT_EQ(error_of("records-app_schema_probe_echo", {{"body", {{"value", "x"}}}}), -32602);
  EXPECT_EQ(error_of("records-app_schema_probe_echo", {{"probeId", "p"}}), -32602);
  EXPECT_EQ(error_of("records-app_schema_probe_echo",
                     {{"probeId", "p"}, {"body", {{"value", "x"}}}, {"extra", 1}}),
            -32602);
  EXPECT_EQ(error_of("records-app_notes_update", {{"recordId", "batch"}, {"body", json::object{}}}),
            -32602);  // would reach PATCH …/records/batch
  EXPECT_EQ(ErrorCode(Rpc(token, "tools/call", {{"arguments", json::object{}}})), -32602);
}

TEST_F(McpTest, RecordToolsCreateListGetUpdateDeleteAsTheREST) {
  const Caller& admin = app_.admin();
  const json::object created =
      Call(admin.token, "records-app_notes_create",
           {{"body", {{"fields", {{"title", "first"}, {"score", json::parse("12.25")}}}}}});
  ASSERT_EQ(created.at("isError"), false) << json::serialize(created);
  const json::value record = Text(created);
  const std::string id(record.at("id").as_string());
  EXPECT_EQ(record.at("fields").at("title"), "first");
  EXPECT_EQ(record.at("createdBy"), json::value(admin.user_id));
  // Exact decimals: the text the agent wrote, as over REST.
  const auto exact = Call(admin.token, "records-app_notes_create",
                          {{"body", {{"fields", {{"title", "x"}, {"score", 1.005}}}}}});
  EXPECT_EQ(exact.at("isError"), true);
  EXPECT_EQ(Text(exact).at("errors").at(0).at("field"), "fields.score");
  // The REST route sees what the tool wrote.
  const auto rest = app_.Send(admin, "GET", "/api/tables/notes/records/" + id);
  ASSERT_EQ(rest.status, 200) << rest.body;
  EXPECT_EQ(rest.Json(), record);

  Call(admin.token, "records-app_notes_create", {{"body", {{"fields", {{"title", "second"}}}}}});
  const json::object listed = Call(admin.token, "records-app_notes_list",
                                   {{"filter", {{"title", "second"}}}, {"limit", 10}});
  ASSERT_EQ(listed.at("isError"), false) << json::serialize(listed);
  EXPECT_EQ(Text(listed),
            app_.Send(admin, "GET",
                      "/api/tables/notes/records?filter=%7B%22title%22%3A%22second%22%7D&limit=10")
                .Json());
  EXPECT_EQ(Text(listed).at("records").as_array().size(), 1u);
  EXPECT_EQ(Text(listed).at("records").at(0).at("fields").at("title"), "second");
  const json::object sorted =
      Call(admin.token, "records-app_notes_list", {{"sort", "title:desc"}, {"fields", "title"}});
  EXPECT_EQ(Text(sorted).at("pagination").at("total"), 2);
  EXPECT_EQ(Text(sorted).at("records").at(0).at("fields").at("title"), "second");

  const json::object got = Call(admin.token, "records-app_notes_get", {{"recordId", id}});
  EXPECT_EQ(Text(got), record);
  const json::object updated =
      Call(admin.token, "records-app_notes_update",
           {{"recordId", id}, {"body", {{"fields", {{"title", "renamed"}}}}}});
  ASSERT_EQ(updated.at("isError"), false) << json::serialize(updated);
  EXPECT_EQ(
      app_.Send(admin, "GET", "/api/tables/notes/records/" + id).Json().at("fields").at("title"),
      "renamed");
  const json::object stale = Call(
      admin.token, "records-app_notes_update",
      {{"recordId", id},
       {"body", {{"fields", {{"title", "late"}}}, {"updatedAt", "2000-01-01T00:00:00.000Z"}}}});
  EXPECT_EQ(stale.at("isError"), true);
  EXPECT_EQ(Text(stale).at("code"), "CONFLICT");

  const json::object deleted = Call(admin.token, "records-app_notes_delete", {{"recordId", id}});
  EXPECT_EQ(deleted.at("isError"), false) << json::serialize(deleted);
  EXPECT_FALSE(deleted.contains("structuredContent"));
  ExpectEnvelope(app_.Send(admin, "GET", "/api/tables/notes/records/" + id), 404, "NOT_FOUND");
  const json::object gone = Call(admin.token, "records-app_notes_get", {{"recordId", id}});
  EXPECT_EQ(gone.at("isError"), true);
  EXPECT_EQ(Text(gone).at("code"), "NOT_FOUND");
}

TEST_F(McpTest, RecordToolsHonorTheImpersonatedMembersPermissions) {
  const Caller& admin = app_.admin();
  const auto secret =
      app_.Send(admin, "POST", "/api/tables/vault/records", R"({"fields":{"title":"hidden"}})");
  ASSERT_EQ(secret.status, 201) << secret.body;
  const auto person = app_.Send(admin, "POST", "/api/tables/people/records",
                                R"({"fields":{"title":"ann","salary":100,"stage":"new"}})");
  ASSERT_EQ(person.status, 201) << person.body;
  const std::string person_id(person.Json().at("id").as_string());

  // The admin sees every field and table.
  const json::object admin_view =
      Call(admin.token, "records-app_people_get", {{"recordId", person_id}});
  EXPECT_EQ(Text(admin_view).at("fields").at("salary"), 100);
  EXPECT_EQ(Text(Call(admin.token, "records-app_vault_list", {})).at("pagination").at("total"), 1);

  const Caller member = app_.NewUser("member");
  const Caller acting = Impersonate(member);
  // A table the member may not read: 404, as over REST.
  const json::object vault = Call(acting.token, "records-app_vault_list", {});
  EXPECT_EQ(vault.at("isError"), true);
  EXPECT_EQ(Text(vault).at("code"), "NOT_FOUND");
  EXPECT_EQ(Text(vault), app_.Send(member, "GET", "/api/tables/vault/records").Json());
  // A field the member may not read is stripped from gets and lists.
  const json::object got = Call(acting.token, "records-app_people_get", {{"recordId", person_id}});
  EXPECT_EQ(got.at("isError"), false);
  EXPECT_FALSE(Text(got).at("fields").as_object().contains("salary"));
  EXPECT_EQ(Text(got).at("fields").at("stage"), "new");
  EXPECT_EQ(Text(got), app_.Send(member, "GET", "/api/tables/people/records/" + person_id).Json());
  const json::object listed = Call(acting.token, "records-app_people_list", {});
  EXPECT_FALSE(Text(listed).at("records").at(0).at("fields").as_object().contains("salary"));
  // Writes: an unreadable field is unknown, a read-only one refused, and nothing is written.
  const json::object hidden_write =
      Call(acting.token, "records-app_people_create",
           {{"body", {{"fields", {{"title", "bob"}, {"salary", 5}}}}}});
  EXPECT_EQ(hidden_write.at("isError"), true);
  EXPECT_EQ(Text(hidden_write).at("errors").at(0).at("field"), "fields.salary");
  EXPECT_EQ(Text(hidden_write).at("errors").at(0).at("message"), "unknown field");
  const json::object stage_write =
      Call(acting.token, "records-app_people_update",
           {{"recordId", person_id}, {"body", {{"fields", {{"stage", "done"}}}}}});
  EXPECT_EQ(stage_write.at("isError"), true);
  EXPECT_EQ(Text(stage_write).at("errors").at(0).at("field"), "fields.stage");
  const auto after = app_.Send(admin, "GET", "/api/tables/people/records?limit=10");
  EXPECT_EQ(after.Json().at("pagination").at("total"), 1);
  EXPECT_EQ(after.Json().at("records").at(0).at("fields").at("stage"), "new");
  // What the member may write is written, stamped with the member's id.
  const json::object allowed =
      Call(acting.token, "records-app_people_update",
           {{"recordId", person_id}, {"body", {{"fields", {{"title", "ann b"}}}}}});
  ASSERT_EQ(allowed.at("isError"), false) << json::serialize(allowed);
  const auto stored = app_.Send(admin, "GET", "/api/tables/people/records/" + person_id);
  EXPECT_EQ(stored.Json().at("fields").at("title"), "ann b");
  EXPECT_EQ(stored.Json().at("updatedBy"), json::value(member.user_id));
  EXPECT_EQ(stored.Json().at("fields").at("salary"), 100);
}

// /mcp is an admin endpoint for the rate limit (10 per second): each request counts once, the
// route a tool runs is not counted again (the probe sits under /api/admin, the same group).
TEST(McpRateLimit, EachRequestCountsOnceInTheAdminGroup) {
  RecordsApp app(kTables, "", [](TestAppOptions& options) {
    options.extra_routes = [](http::Router& router, db::Database&) {
      return AddProbeRoutes(router);
    };
    options.rate_limit_now_ms = [] { return std::int64_t{1'800'000'000'000}; };  // one instant
    auto base = options.tune_settings;
    options.tune_settings = [base](app::Settings& settings) {
      base(settings);
      settings.rate_limit_disabled = false;
    };
  });
  HttpClient client = app.app().Client();
  const Headers headers{{"Accept", "application/json, text/event-stream"},
                        {"Content-Type", "application/json"},
                        {"Authorization", "Bearer " + app.admin().token}};
  const std::string call = json::serialize(
      json::object{{"jsonrpc", "2.0"},
                   {"id", 1},
                   {"method", "tools/call"},
                   {"params",
                    {{"name", "records-app_schema_probe_echo"},
                     {"arguments", {{"probeId", "p"}, {"body", {{"value", "v"}}}}}}}});
  for (int i = 0; i < 10; ++i) {
    const auto result = client.Request("POST", "/mcp", call, headers);
    ASSERT_EQ(result.status, 200) << i << ": " << result.body;
    EXPECT_EQ(result.Json().at("result").at("isError"), false) << result.body;
  }
  ExpectEnvelope(client.Request("POST", "/mcp", call, headers), 429, "RATE_LIMITED");
}

// With schema editing on, the real /api/admin/schema/ routes become {app}_schema_* tools (D55),
// and each answers exactly what its REST route answers.
TEST(McpSchemaTools, MirrorTheSchemaRoutes) {
  RecordsApp app(kTables, "", [](TestAppOptions& options) {
    auto base = options.tune_settings;
    options.tune_settings = [base](app::Settings& settings) {
      base(settings);
      settings.schema_edit_api_enabled = true;
    };
  });
  HttpClient client = app.app().Client();
  const Headers headers{{"Accept", "application/json, text/event-stream"},
                        {"Content-Type", "application/json"},
                        {"Authorization", "Bearer " + app.admin().token}};
  const auto rpc = [&](const std::string& method, json::object params) {
    const auto result = client.Request(
        "POST", "/mcp",
        json::serialize(json::object{
            {"jsonrpc", "2.0"}, {"id", 1}, {"method", method}, {"params", std::move(params)}}),
        headers);
    EXPECT_EQ(result.status, 200) << result.body;
    return result.Json();
  };
  std::set<std::string> schema_tools;
  json::object params;
  for (int page = 0; page < 20; ++page) {
    const json::value listed = rpc("tools/list", params);
    for (const auto& tool : listed.at("result").at("tools").as_array()) {
      const std::string name(tool.at("name").as_string());
      if (name.starts_with("records-app_schema_")) schema_tools.insert(name);
    }
    if (!listed.at("result").as_object().contains("nextCursor")) break;
    params = {{"cursor", listed.at("result").at("nextCursor")}};
  }
  // Every route of the spec's table has its tool.
  for (const char* tool : {"records-app_schema_status", "records-app_schema_diff",
                           "records-app_schema_export", "records-app_schema_draft",
                           "records-app_schema_draft_update", "records-app_schema_draft_publish",
                           "records-app_schema_versions", "records-app_schema_versions_get",
                           "records-app_schema_versions_restore", "records-app_schema_prune"}) {
    EXPECT_TRUE(schema_tools.contains(tool)) << tool;
  }
  for (const auto& [tool, path] :
       {std::pair{"records-app_schema_status", "/api/admin/schema/status"},
        std::pair{"records-app_schema_versions", "/api/admin/schema/versions"}}) {
    const json::value called = rpc("tools/call", {{"name", tool}, {"arguments", json::object{}}});
    ASSERT_TRUE(called.as_object().contains("result")) << tool << ": " << called;
    EXPECT_EQ(called.at("result").at("isError"), false) << called;
    const auto rest = client.Request("GET", path, "", headers);
    ASSERT_EQ(rest.status, 200) << rest.body;
    EXPECT_EQ(json::parse(called.at("result").at("content").at(0).at("text").as_string()),
              rest.Json())
        << tool;
  }
}

}  // namespace
}  // namespace cairn::test
