// The tool catalog of a route table (names, schemas, limits) and the server's tools over a
// dispatcher whose route table is swapped while it serves: tools/list and tools/call follow the
// table each request was routed by. No database: the e2e suite (mcp_tests) covers the rest.
#include "mcp/tool_catalog.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <set>

#include <boost/json.hpp>

#include "http/dispatcher.hpp"
#include "mcp/limits.hpp"
#include "mcp/server.hpp"

namespace cairn::mcp {
namespace {

namespace json = boost::json;

http::Route Echo(std::string method, std::string pattern, std::string summary) {
  http::RouteSpec spec;
  spec.method = std::move(method);
  spec.pattern = std::move(pattern);
  spec.summary = std::move(summary);
  return {spec, [](http::Request& request) -> Result<http::Response> {
            return http::Response::Json(200, json::object{{"path", request.path}});
          }};
}

std::set<std::string> Names(const ToolCatalog& catalog) {
  std::set<std::string> names;
  for (const Tool& tool : catalog.tools()) names.insert(tool.name);
  return names;
}

TEST(ToolSafe, KeepsOnlyToolNameCharacters) {
  EXPECT_EQ(ToolSafe("my-app_2"), "my-app_2");
  EXPECT_EQ(ToolSafe("@acme/crm.app"), "acme_crm_app");
  EXPECT_EQ(ToolSafe("Project Tasks (2026)"), "Project_Tasks_2026");
  EXPECT_EQ(ToolSafe("日本"), "app");
  EXPECT_EQ(ToolSafe(""), "app");
}

TEST(ToolCatalog, NamesSchemaRoutesByPathAndMethod) {
  http::Router router;
  ASSERT_TRUE(router.Add(Echo("GET", "/api/admin/schema/status", "Status")).ok());
  ASSERT_TRUE(router.Add(Echo("GET", "/api/admin/schema/versions", "Versions")).ok());
  ASSERT_TRUE(router.Add(Echo("GET", "/api/admin/schema/versions/{version}", "One")).ok());
  ASSERT_TRUE(router.Add(Echo("POST", "/api/admin/schema/versions/{version}/restore", "R")).ok());
  ASSERT_TRUE(router.Add(Echo("POST", "/api/admin/schema/draft/publish", "Publish")).ok());
  ASSERT_TRUE(router.Add(Echo("GET", "/api/admin/schema/draft", "Draft")).ok());
  ASSERT_TRUE(router.Add(Echo("PUT", "/api/admin/schema/draft", "Put draft")).ok());
  ASSERT_TRUE(router.Add(Echo("DELETE", "/api/admin/schema/draft", "Discard")).ok());
  ASSERT_TRUE(router.Add(Echo("PATCH", "/api/admin/schema/draft/tables/{tableId}", "Edit")).ok());
  ASSERT_TRUE(router.Add(Echo("GET", "/api/tables", "Not a schema route")).ok());
  const ToolCatalog catalog(router, "@acme/App", {});
  EXPECT_EQ(Names(catalog), (std::set<std::string>{
                                "acme_app_schema_status", "acme_app_schema_versions",
                                "acme_app_schema_versions_get", "acme_app_schema_versions_restore",
                                "acme_app_schema_draft_publish", "acme_app_schema_draft",
                                "acme_app_schema_draft_update", "acme_app_schema_draft_delete",
                                "acme_app_schema_draft_tables_update"}));
  const Tool* restore = catalog.Find("acme_app_schema_versions_restore");
  ASSERT_NE(restore, nullptr);
  EXPECT_EQ(restore->description, "R");
  EXPECT_EQ(restore->path_arguments, std::vector<std::string>{"version"});
  EXPECT_FALSE(restore->has_body);
  EXPECT_EQ(restore->input_schema.at("required"), json::array{"version"});
}

TEST(ToolCatalog, LongAndCollidingNamesStayUniqueWithinTheLimit) {
  http::Router router;
  http::Route list = Echo("GET", "/api/tables/{tableId}/records", "List records");
  ASSERT_TRUE(router.Add(list).ok());
  const std::string long_name(100, 'x');
  const std::vector<RecordTable> tables{
      {"a b", "a-b", {}, {}}, {"a.b", "a-b-2", {}, {}}, {long_name, "long", {}, {}}};
  const ToolCatalog catalog(router, "app", tables);
  ASSERT_EQ(catalog.tools().size(), 3u);
  std::set<std::string> names = Names(catalog);
  EXPECT_EQ(names.size(), 3u);
  EXPECT_TRUE(names.contains("app_a_b_list"));
  for (const std::string& name : names) {
    EXPECT_LE(name.size(), kMaxToolNameLength) << name;
    EXPECT_EQ(ToolSafe(name), name);
  }
  // The same table always gets the same name.
  EXPECT_EQ(Names(ToolCatalog(router, "app", tables)), names);
}

http::BeastRequest ToolsList() {
  http::BeastRequest raw{boost::beast::http::verb::post, "/mcp", 11};
  raw.set(boost::beast::http::field::content_type, "application/json");
  raw.set(boost::beast::http::field::accept, "application/json, text/event-stream");
  raw.body() = R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})";
  raw.prepare_payload();
  return raw;
}

TEST(McpServer, ToolsFollowTheRouteTableOfEachRequest) {
  auto server = std::make_shared<Server>(ServerOptions{"app", "1", {}});
  const auto make_router = [&](const char* schema_route) {
    http::Router router;
    http::RouteSpec spec;
    spec.method = "POST";
    spec.pattern = "/mcp";
    EXPECT_TRUE(router
                    .Add({spec,
                          [server](http::Request& request) -> Result<http::Response> {
                            return server->HandlePost(request);
                          }})
                    .ok());
    EXPECT_TRUE(router.Add(Echo("GET", schema_route, "A schema route")).ok());
    return std::make_shared<const http::Router>(std::move(router));
  };
  http::Dispatcher dispatcher(make_router("/api/admin/schema/status"), {});
  const auto list = [&] {
    const http::BeastRequest raw = ToolsList();
    http::Request request;
    const http::Response response = dispatcher.Handle(raw, request);
    EXPECT_EQ(response.status, 200) << response.body;
    std::set<std::string> names;
    const json::value body = json::parse(response.body);
    for (const auto& tool : body.at("result").at("tools").as_array()) {
      names.insert(std::string(tool.at("name").as_string()));
    }
    return names;
  };
  EXPECT_EQ(list(), std::set<std::string>{"app_schema_status"});
  dispatcher.SwapRouter(make_router("/api/admin/schema/diff"));
  EXPECT_EQ(list(), std::set<std::string>{"app_schema_diff"});
}

}  // namespace
}  // namespace cairn::mcp
