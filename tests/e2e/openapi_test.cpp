// The OpenAPI documents (D52, interface.md "OpenAPI documents"): who may read them, that their
// operations are exactly the router's routes, that record shapes come from the field codecs,
// that answers match them, and that they pass an OpenAPI 3.1 validator and give a TypeScript
// client that compiles (tests/node/openapi_check.mjs).
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "e2e/auth_test_support.hpp"
#include "support/gunzip.hpp"
#include "support/node_process.hpp"
#include "support/openapi_conformance.hpp"

namespace cairn::test {
namespace {

constexpr const char* kAdminEmail = "admin@example.com";
constexpr const char* kAdminPassword = "admin password 1";
constexpr const char* kRoutesPath = "/test/routes";

constexpr const char* kConfig = R"(
name: openapi-app
version: 2.1.0
tables:
  - name: Tasks
    fields:
      - name: title
        type: single-line-text
        required: true
      - name: priority
        type: integer
        min: 1
        max: 5
      - name: done
        type: checkbox
      - name: due
        type: date
  - name: projects
    fields:
      - name: name
        type: single-line-text
auth:
  strategies:
    - type: emailAndPassword
)";

// Every route of the table the request was routed by: "GET /api/tables/{tableId}".
Status AddRoutesListing(http::Router& router, db::Database&) {
  http::RouteSpec spec;
  spec.method = "GET";
  spec.pattern = kRoutesPath;
  return router.Add({std::move(spec), [](http::Request& request) -> Result<http::Response> {
                       boost::json::array routes;
                       for (const http::Route* route : request.router->Routes()) {
                         routes.emplace_back(route->spec.method + " " + route->spec.pattern);
                       }
                       return http::Response::Json(200, routes);
                     }});
}

TestAppOptions Options(const std::string& config = kConfig) {
  TestAppOptions options = AuthAppOptionsWithConfig(config, kAdminEmail, kAdminPassword);
  options.extra_routes = AddRoutesListing;
  return options;
}

class OpenApiTest : public ::testing::Test {
 protected:
  OpenApiTest() : app_(Options()) {
    admin_ = app_.SignInOk(kAdminEmail, kAdminPassword);
    member_ = app_.NewAccount("member@example.com");
  }

  boost::json::value Document(const std::string& path) {
    HttpResult result = app_.GetAs(admin_.token, path);
    EXPECT_EQ(result.status, 200) << result.body;
    return result.Json();
  }

  AuthApp app_;
  Account admin_;
  Account member_;
};

TEST_F(OpenApiTest, AccessTableOfTheSpec) {
  for (const std::string path : {"/api/openapi.json", "/api/auth/openapi.json", "/api/scalar"}) {
    SCOPED_TRACE(path);
    HttpResult anonymous = app_.Client().Get(path);
    EXPECT_EQ(anonymous.status, 401);
    EXPECT_EQ(anonymous.Json().at("code"), "UNAUTHORIZED");
    HttpResult member = app_.GetAs(member_.token, path);
    EXPECT_EQ(member.status, 404);
    EXPECT_EQ(member.Json().at("code"), "NOT_FOUND");
    HttpResult admin = app_.GetAs(admin_.token, path);
    EXPECT_EQ(admin.status, 200);
    // The session cookie works as well as Bearer (the explorer sends the cookie).
    EXPECT_EQ(app_.GetWithCookie(admin_.cookie_value, path).status, 200);
  }
  EXPECT_EQ(app_.GetAs(admin_.token, "/api/openapi.json").Json().at("openapi"), "3.1.0");
}

TEST(OpenApiWithoutAuth, RoutesAreNotRegistered) {
  TestAppOptions options;
  options.config_yaml = kMinimalConfig;
  TestApp app(std::move(options));
  HttpClient client = app.Client();
  for (const std::string path :
       {"/api/openapi.json", "/api/auth/openapi.json", "/api/scalar", "/api/scalar/init.js"}) {
    SCOPED_TRACE(path);
    HttpResult result = client.Get(path);
    EXPECT_EQ(result.status, 404);
    EXPECT_EQ(result.Json().at("code"), "NOT_FOUND");
  }
}

TEST_F(OpenApiTest, CachedWithAnETag) {
  HttpResult first = app_.GetAs(admin_.token, "/api/openapi.json");
  ASSERT_EQ(first.status, 200);
  const std::string etag = first.Header("etag");
  ASSERT_FALSE(etag.empty());
  HttpResult again = app_.GetAs(admin_.token, "/api/openapi.json");
  EXPECT_EQ(again.Header("etag"), etag);
  EXPECT_EQ(again.body, first.body);
  Headers headers = BearerHeader(admin_.token);
  headers.emplace_back("If-None-Match", etag);
  HttpResult unchanged = app_.Client().Get("/api/openapi.json", headers);
  EXPECT_EQ(unchanged.status, 304);
  EXPECT_TRUE(unchanged.body.empty());
  // The other document has its own tag.
  Headers other = BearerHeader(admin_.token);
  other.emplace_back("If-None-Match", etag);
  EXPECT_EQ(app_.Client().Get("/api/auth/openapi.json", other).status, 200);
  // Still admin only, ETag or not.
  Headers member = BearerHeader(member_.token);
  member.emplace_back("If-None-Match", etag);
  EXPECT_EQ(app_.Client().Get("/api/openapi.json", member).status, 404);
}

// A client that accepts gzip gets the same document compressed, under its own ETag; one that
// refuses it (q=0) or says nothing gets the identity body.
TEST_F(OpenApiTest, ServedGzippedToClientsThatAcceptIt) {
  HttpResult plain = app_.GetAs(admin_.token, "/api/openapi.json");
  ASSERT_EQ(plain.status, 200);
  EXPECT_EQ(plain.Header("content-encoding"), "");
  Headers accepts = BearerHeader(admin_.token);
  accepts.emplace_back("Accept-Encoding", "br;q=1.0, gzip;q=0.8");
  HttpResult compressed = app_.Client().Get("/api/openapi.json", accepts);
  ASSERT_EQ(compressed.status, 200);
  EXPECT_EQ(compressed.Header("content-encoding"), "gzip");
  EXPECT_NE(compressed.Header("vary").find("Accept-Encoding"), std::string::npos);
  EXPECT_LT(compressed.body.size(), plain.body.size() / 5);
  EXPECT_EQ(Gunzip(compressed.body), plain.body);
  const std::string gzip_etag = compressed.Header("etag");
  EXPECT_NE(gzip_etag, plain.Header("etag"));
  // Each representation revalidates under its own tag only.
  Headers revalidate = accepts;
  revalidate.emplace_back("If-None-Match", gzip_etag);
  EXPECT_EQ(app_.Client().Get("/api/openapi.json", revalidate).status, 304);
  Headers identity_with_gzip_tag = BearerHeader(admin_.token);
  identity_with_gzip_tag.emplace_back("If-None-Match", gzip_etag);
  HttpResult identity = app_.Client().Get("/api/openapi.json", identity_with_gzip_tag);
  EXPECT_EQ(identity.status, 200);
  EXPECT_EQ(identity.body, plain.body);
  Headers refuses = BearerHeader(admin_.token);
  refuses.emplace_back("Accept-Encoding", "gzip;q=0, deflate");
  HttpResult refused = app_.Client().Get("/api/auth/openapi.json", refuses);
  ASSERT_EQ(refused.status, 200);
  EXPECT_EQ(refused.Header("content-encoding"), "");
  EXPECT_NO_THROW((void)refused.Json());
}

// The explorer's script (4.3 MB) goes compressed to browsers, which all accept gzip: the copy
// made at build time, decoding to the very bytes of the identity answer.
TEST_F(OpenApiTest, ExplorerScriptServedGzippedToClientsThatAcceptIt) {
  HttpResult page = app_.GetAs(admin_.token, "/api/scalar");
  ASSERT_EQ(page.status, 200);
  const std::size_t start = page.body.find("/api/scalar/standalone.");
  ASSERT_NE(start, std::string::npos) << page.body;
  const std::string path = page.body.substr(start, page.body.find('"', start) - start);
  HttpResult plain = app_.Client().Get(path);
  ASSERT_EQ(plain.status, 200);
  EXPECT_EQ(plain.Header("content-encoding"), "");
  EXPECT_GT(plain.body.size(), 1'000'000u);
  Headers accepts{{"Accept-Encoding", "gzip, deflate, br"}};
  HttpResult compressed = app_.Client().Get(path, accepts);
  ASSERT_EQ(compressed.status, 200);
  EXPECT_EQ(compressed.Header("content-encoding"), "gzip");
  EXPECT_EQ(compressed.Header("vary"), "Accept-Encoding");
  EXPECT_EQ(compressed.Header("cache-control"), plain.Header("cache-control"));
  EXPECT_LT(compressed.body.size(), plain.body.size() / 2);
  EXPECT_EQ(Gunzip(compressed.body), plain.body);
  Headers refuses{{"Accept-Encoding", "gzip;q=0"}};
  EXPECT_EQ(app_.Client().Get(path, refuses).body, plain.body);
}

// The operations of both documents are exactly the router's routes: a route under
// /api/tables/{tableId} once per table (by slug), every other route once.
TEST_F(OpenApiTest, OperationsAreTheRouteSet) {
  std::set<std::string> routes;
  HttpResult listing = app_.Client().Get(kRoutesPath);
  ASSERT_EQ(listing.status, 200);
  const boost::json::value route_list = listing.Json();
  for (const auto& entry : route_list.as_array()) {
    std::string route(entry.as_string());
    std::size_t rest = route.find("...}");
    while (rest != std::string::npos) {
      route.erase(rest, 3);
      rest = route.find("...}");
    }
    const std::string table_prefix = "/api/tables/{tableId}";
    const std::size_t at = route.find(table_prefix);
    if (at == std::string::npos) {
      routes.insert(route);
      continue;
    }
    for (const std::string slug : {"tasks", "projects"}) {
      routes.insert(route.substr(0, at) + "/api/tables/" + slug +
                    route.substr(at + table_prefix.size()));
    }
  }
  std::set<std::string> operations;
  std::set<std::string> ids;
  std::size_t operation_count = 0;
  for (const std::string document : {"/api/openapi.json", "/api/auth/openapi.json"}) {
    const boost::json::value doc = Document(document);
    for (const auto& [path, item] : doc.at("paths").as_object()) {
      for (const auto& [method, operation] : item.as_object()) {
        if (method.starts_with("x-")) continue;
        std::string upper(method);
        for (char& c : upper) c = static_cast<char>(std::toupper(c));
        operations.insert(upper + " " + std::string(path));
        ++operation_count;
        ids.insert(std::string(operation.at("operationId").as_string()));
        // Only the auth surface is in the auth document.
        EXPECT_EQ(std::string_view(path).starts_with("/api/auth/"),
                  document == std::string("/api/auth/openapi.json"))
            << path;
      }
    }
  }
  EXPECT_EQ(operations, routes);
  EXPECT_EQ(operations.size(), operation_count);  // no operation twice
  EXPECT_EQ(ids.size(), operation_count);         // operationIds are unique
  EXPECT_TRUE(operations.contains("POST /api/tables/tasks/records"));
  EXPECT_TRUE(operations.contains("GET /api/auth/openapi.json"));
  // Organizations are off in this config: none of their routes is documented.
  for (const std::string& operation : operations) {
    EXPECT_EQ(operation.find("/api/auth/organization/"), std::string::npos) << operation;
  }
}

// Record components are the field codecs' schemas: required fields, bounds, read-only stamps.
TEST_F(OpenApiTest, TableRecordShapesComeFromTheCodecs) {
  const boost::json::value doc = Document("/api/openapi.json");
  const auto& schemas = doc.at("components").at("schemas");
  const auto& create = schemas.at("TasksRecordCreate").at("properties").at("fields");
  EXPECT_EQ(create.at("required"), boost::json::array{"title"});
  const auto& priority = create.at("properties").at("priority");
  EXPECT_EQ(priority.at("minimum").to_number<double>(), 1);
  EXPECT_EQ(priority.at("maximum").to_number<double>(), 5);
  EXPECT_FALSE(create.at("additionalProperties").as_bool());
  EXPECT_TRUE(schemas.as_object().contains("ProjectsRecordList"));
  const auto& list = doc.at("paths").at("/api/tables/tasks/records").at("get");
  EXPECT_EQ(list.at("operationId"), "listRecordsTasks");
  // A read answers the stored values or, with format=display, the display forms: both shapes,
  // each marked with the format that gives it.
  EXPECT_EQ(list.at("responses").at("200").at("content").at("application/json").at("schema"),
            boost::json::parse(R"({"anyOf":[{"$ref":"#/components/schemas/TasksRecordList"},
                                   {"$ref":"#/components/schemas/TasksRecordListDisplay"}]})"));
  EXPECT_EQ(schemas.at("TasksRecordList").at("x-cairn-format"), "raw");
  EXPECT_EQ(schemas.at("TasksRecordListDisplay").at("x-cairn-format"), "display");
  EXPECT_EQ(schemas.at("TasksRecordDisplay").at("x-cairn-format"), "display");
  const auto& examples =
      list.at("responses").at("200").at("content").at("application/json").at("examples");
  EXPECT_TRUE(examples.as_object().contains("raw"));
  // Written once for every table, in components.examples.
  const std::string example_ref(examples.at("display").at("$ref").as_string());
  const std::string example_prefix = "#/components/examples/";
  ASSERT_TRUE(example_ref.starts_with(example_prefix)) << example_ref;
  const auto& display_example =
      doc.at("components").at("examples").at(example_ref.substr(example_prefix.size()));
  EXPECT_EQ(display_example.at("value").at("records").at(0).at("fields").at("due"), "Nov 24, 2026");
  // The display shapes are the codecs' display schemas: a formatted integer, the medium date.
  const auto& shown = schemas.at("TasksRecordFieldsDisplay").at("properties");
  EXPECT_EQ(shown.at("priority").at("type"), (boost::json::array{"string", "null"}));
  EXPECT_EQ(shown.at("priority").at("examples"), boost::json::array{"1,234,567"});
  EXPECT_EQ(shown.at("due").at("examples"), boost::json::array{"Nov 24, 2026"});
  EXPECT_TRUE(shown.at("due").as_object().contains("pattern"));
  EXPECT_EQ(shown.at("done"), create.at("properties").at("done"));  // shown as stored
  // A table route's query parameters are shared by every table (components.parameters).
  bool has_limit = false;
  for (const auto& reference : list.at("parameters").as_array()) {
    const std::string ref(reference.at("$ref").as_string());
    const std::string prefix = "#/components/parameters/";
    ASSERT_TRUE(ref.starts_with(prefix)) << ref;
    const auto& parameter = doc.at("components").at("parameters").at(ref.substr(prefix.size()));
    if (parameter.at("name") == "limit") {
      has_limit = true;
      EXPECT_EQ(parameter.at("schema").at("maximum").to_number<double>(), 1000);
    }
  }
  EXPECT_TRUE(has_limit);
  const auto& security = doc.at("components").at("securitySchemes");
  EXPECT_EQ(security.at("bearerAuth").at("scheme"), "bearer");
  EXPECT_EQ(security.at("sessionCookie").at("in"), "cookie");
}

// Answers of the records routes match the schema the document gives for their status.
TEST_F(OpenApiTest, AnswersMatchTheDocument) {
  OpenApiConformance conformance(
      {Document("/api/openapi.json"), Document("/api/auth/openapi.json")});
  HttpClient client = app_.Client();
  const Headers bearer = BearerHeader(admin_.token);
  const auto check = [&](const std::string& method, const std::string& target,
                         const std::string& body, int expected) {
    HttpResult result = client.Request(method, target, body, [&] {
      Headers headers = bearer;
      if (!body.empty()) {
        headers.emplace_back("Content-Type", "application/json");
      }
      return headers;
    }());
    EXPECT_EQ(result.status, expected) << method << " " << target << " " << result.body;
    EXPECT_EQ(conformance.Check(method, target, result.status, result.Header("content-type"),
                                result.body),
              "");
    return result;
  };
  HttpResult created =
      check("POST", "/api/tables/tasks/records",
            R"({"fields":{"title":"Write","priority":3,"due":"2026-11-24"}})", 201);
  const std::string id(created.Json().at("id").as_string());
  check("GET", "/api/tables/tasks/records/" + id, "", 200);
  check("GET", "/api/tables/Tasks/records?filter=%7B%22priority%22%3A3%7D&limit=5", "", 200);
  check("PATCH", "/api/tables/1/records/" + id, R"({"fields":{"done":true}})", 200);
  check("POST", "/api/tables/tasks/records", R"({"fields":{"priority":9}})", 400);
  check("GET", "/api/tables/tasks/records/999999", "", 404);
  check("GET", "/api/tables/tasks/records/" + id + "/history", "", 200);
  check("DELETE", "/api/tables/tasks/records/" + id, "", 204);
  check("GET", "/api/tables/tasks/trash", "", 200);
  check("GET", "/api/auth/get-session", "", 200);
  EXPECT_GE(conformance.validated(), 9u);

  // The check can fail: a body that is not what the document says is reported.
  EXPECT_NE(conformance.Check("GET", "/api/tables/tasks/records/" + id, 200, "application/json",
                              R"({"id":7})"),
            "");
}

// The documents follow the live schema (D52): after a publish the next request gets a document
// with the new field, under a new ETag (the old one no longer answers 304), and the schema
// routes are documented only when SCHEMA_EDIT_API_ENABLED registers them.
TEST(OpenApiPublish, NextRequestGetsTheNewDocumentUnderANewETag) {
  const auto with_schema_api = [](bool enabled) {
    TestAppOptions options = Options();
    auto tune = std::move(options.tune_settings);
    options.tune_settings = [tune, enabled](app::Settings& settings) {
      tune(settings);
      settings.schema_edit_api_enabled = enabled;
    };
    return options;
  };
  const auto has_schema_routes = [](const boost::json::value& doc) {
    for (const auto& [path, item] : doc.at("paths").as_object()) {
      if (std::string_view(path).starts_with("/api/admin/schema/")) return true;
    }
    return false;
  };
  {
    AuthApp off(with_schema_api(false));
    const Account admin = off.SignInOk(kAdminEmail, kAdminPassword);
    EXPECT_FALSE(has_schema_routes(off.GetAs(admin.token, "/api/openapi.json").Json()));
  }
  AuthApp app(with_schema_api(true));
  const Account admin = app.SignInOk(kAdminEmail, kAdminPassword);
  const HttpResult before = app.GetAs(admin.token, "/api/openapi.json");
  ASSERT_EQ(before.status, 200);
  EXPECT_TRUE(has_schema_routes(before.Json()));
  const std::string old_tag = before.Header("etag");
  const auto fields_of = [](const boost::json::value& doc) {
    return doc.at("components").at("schemas").at("ProjectsRecordFields").at("properties");
  };
  EXPECT_FALSE(fields_of(before.Json()).as_object().contains("budget"));

  const auto send = [&](const std::string& method, const std::string& target,
                        const std::string& body) {
    Headers headers = BearerHeader(admin.token);
    headers.emplace_back("Content-Type", "application/json");
    return app.Client().Request(method, target, body, headers);
  };
  const HttpResult added = send("POST", "/api/admin/schema/draft/tables/projects/fields",
                                R"({"id":90,"name":"budget","type":"currency","currency":"USD"})");
  ASSERT_EQ(added.status, 200) << added.body;
  const HttpResult published = send("POST", "/api/admin/schema/draft/publish", "{}");
  ASSERT_EQ(published.status, 200) << published.body;

  const HttpResult after = app.GetAs(admin.token, "/api/openapi.json");
  ASSERT_EQ(after.status, 200);
  const boost::json::value doc = after.Json();
  ASSERT_TRUE(fields_of(doc).as_object().contains("budget")) << "the document did not follow";
  EXPECT_EQ(fields_of(doc).at("budget").at("type"), (boost::json::array{"number", "null"}));
  // The new field's display form is described too.
  EXPECT_EQ(doc.at("components")
                .at("schemas")
                .at("ProjectsRecordFieldsDisplay")
                .at("properties")
                .at("budget")
                .at("examples"),
            boost::json::array{"$1,234,567.55"});
  const std::string new_tag = after.Header("etag");
  EXPECT_FALSE(new_tag.empty());
  EXPECT_NE(new_tag, old_tag);
  Headers stale = BearerHeader(admin.token);
  stale.emplace_back("If-None-Match", old_tag);
  EXPECT_EQ(app.Client().Get("/api/openapi.json", stale).status, 200);
  Headers current = BearerHeader(admin.token);
  current.emplace_back("If-None-Match", new_tag);
  EXPECT_EQ(app.Client().Get("/api/openapi.json", current).status, 304);
}

// A table with every kind of display form the field configs give (D39).
constexpr const char* kDisplayConfig = R"(
name: display-app
tables:
  - name: readings
    fields:
      - { name: title, type: single-line-text }
      - { name: count, type: integer, required: true }
      - { name: ratio, type: decimal, precision: 3 }
      - { name: fee, type: currency, currency: USD, thousandsSeparator: none }
      - { name: price, type: currency, currency: CHF, negativeFormat: parentheses,
          thousandsSeparator: space }
      - { name: cost, type: currency, currency: EUR, symbolPosition: after,
          thousandsSeparator: period }
      - { name: share, type: percentage, precision: 1 }
      - { name: day, type: date, dateFormat: US }
      - { name: stamped, type: datetime, format: "YYYY/MM/DD HH:mm" }
      - { name: seen, type: datetime, dateFormat: European, timeFormat: 12-hour }
      - { name: opened, type: datetime }
      - { name: opens, type: time }
      - { name: closes, type: time, timeFormat: 24-hour }
      - { name: spent, type: duration }
      - { name: exact, type: duration, displayFormat: "h:mm:ss" }
      - { name: hours, type: duration, displayFormat: decimal }
      - { name: meta, type: json }
      - { name: done, type: checkbox }
      - { name: changed, type: updated-at }
auth:
  strategies:
    - type: emailAndPassword
)";

// Every format=display answer matches the display shape the document gives, and only it: a raw
// answer, or a display answer with one value not in its field's form, fails the check.
TEST(OpenApiDisplay, DisplayAnswersMatchTheirOwnShape) {
  AuthApp app(Options(kDisplayConfig));
  const Account admin = app.SignInOk(kAdminEmail, kAdminPassword);
  OpenApiConformance conformance({app.GetAs(admin.token, "/api/openapi.json").Json(),
                                  app.GetAs(admin.token, "/api/auth/openapi.json").Json()});
  const std::string records = "/api/tables/readings/records";
  const HttpResult full = app.PostAs(
      admin.token, records,
      R"({"fields":{"title":"full","count":-1234567,"ratio":1234.5,"fee":1234.5,"price":-1234.5,)"
      R"("cost":1234567.25,"share":12.5,"day":"2026-03-07","stamped":"2024-05-01T07:00:00Z",)"
      R"("seen":"2024-05-01T19:00:00Z","opened":"2024-05-01T23:30:00Z","opens":"08:05",)"
      R"("closes":"23:59:59","spent":3905,"exact":3905,"hours":3905,"meta":{"a":[1,2]},)"
      R"("done":true}})");
  ASSERT_EQ(full.status, 201) << full.body;
  const std::string id(full.Json().at("id").as_string());
  ASSERT_EQ(app.PostAs(admin.token, records, R"({"fields":{"count":7}})").status, 201);

  std::size_t checked = 0;
  const auto get = [&](const std::string& target) {
    HttpResult result = app.GetAs(admin.token, target);
    EXPECT_EQ(result.status, 200) << target << " " << result.body;
    EXPECT_EQ(conformance.Check("GET", target, 200, result.Header("content-type"), result.body),
              "");
    ++checked;
    return result;
  };
  const HttpResult shown = get(records + "/" + id + "?format=display");
  get(records + "?format=display&timezone=Asia/Tokyo&sort=title");
  get(records + "?format=display&fields=count,day");
  const HttpResult raw = get(records + "/" + id);
  get(records + "?format=raw");
  EXPECT_EQ(conformance.validated(), checked);
  // The values are the display forms this test expects, so the shapes were checked against them.
  const auto fields = shown.Json().at("fields");
  EXPECT_EQ(fields.at("count"), "-1,234,567");
  EXPECT_EQ(fields.at("ratio"), "1,234.500");
  EXPECT_EQ(fields.at("fee"), "$1234.50");
  EXPECT_EQ(fields.at("price"), "(CHF\u00A01\u00A0234.50)");
  EXPECT_EQ(fields.at("cost"), "1.234.567,25\u00A0€");
  EXPECT_EQ(fields.at("day"), "03/07/2026");
  EXPECT_EQ(fields.at("stamped"), "2024/05/01 07:00");
  EXPECT_EQ(fields.at("hours"), "1.08");
  EXPECT_EQ(fields.at("seen"), "01/05/2024 7:00\u202FPM");

  const std::string one = records + "/" + id;
  // A raw answer where display was asked for, and the other way round, fail.
  EXPECT_NE(conformance.Check("GET", one + "?format=display", 200, "application/json", raw.body),
            "");
  EXPECT_NE(conformance.Check("GET", one, 200, "application/json", shown.body), "");
  EXPECT_NE(conformance.Check("GET", one + "?format=raw", 200, "application/json", shown.body), "");
  // So does a display answer with one value not in its field's display form.
  const std::vector<std::pair<std::string, boost::json::value>> wrong = {
      {"count", boost::json::value(-1234567)},         // a number, not its text
      {"count", boost::json::value("-1234567")},       // not grouped
      {"ratio", boost::json::value("1234.500")},       // not grouped
      {"ratio", boost::json::value("1,234.5")},        // places missing
      {"fee", boost::json::value("$1,234.50")},        // grouped where the field says none
      {"price", boost::json::value("-CHF 1 234.50")},  // minus where the field says parentheses
      {"cost", boost::json::value("€1.234.567,25")},   // symbol on the wrong side
      {"share", boost::json::value("12.5")},           // no percent sign
      {"day", boost::json::value("2026-03-07")},       // the stored date
      {"stamped", boost::json::value("2024-05-01T07:00:00.000Z")},
      {"seen", boost::json::value("01/05/2024 19:00")},  // 24-hour where the field says 12
      {"opened", boost::json::value("Mai 1, 2024, 11:30\u202FPM")},  // not an en-US month
      {"seen", boost::json::value("01/05/2024 7:00\u202Fpm")},       // nor its day period
      {"opens", boost::json::value("08:05")},
      {"spent", boost::json::value("1:5")},
      {"exact", boost::json::value("1:05")},
      {"hours", boost::json::value("1.1")},
      {"meta", boost::json::parse(R"({"a":[1,2]})")},  // json is shown as its text
      {"done", boost::json::value("true")},
      {"nosuchfield", boost::json::value("x")},
  };
  for (const auto& [name, value] : wrong) {
    boost::json::value record = shown.Json();
    record.at("fields").as_object()[name] = value;
    EXPECT_NE(conformance.Check("GET", one + "?format=display", 200, "application/json",
                                boost::json::serialize(record)),
              "")
        << name << " = " << boost::json::serialize(value);
  }
}

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A valid config, with an `auth` section added when it has none (the documents exist only with
// auth).
std::string WithAuth(const std::filesystem::path& file) {
  std::string text = ReadFile(file);
  if (file.extension() == ".json") {
    boost::json::value document = boost::json::parse(text);
    if (!document.as_object().contains("auth")) {
      document.as_object()["auth"] =
          boost::json::parse(R"({"strategies":[{"type":"emailAndPassword"}]})");
    }
    return boost::json::serialize(document);
  }
  if (text.find("\nauth:") == std::string::npos) {
    text += "\nauth:\n  strategies:\n    - type: emailAndPassword\n";
  }
  return text;
}

// Both documents of examples/app.yaml, of every valid config fixture (tests/fixtures/configs/valid
// and tests/hostile/app.yaml), of the display suite's config and of this suite's config
// pass @readme/openapi-parser's OpenAPI 3.1 validation, and openapi-typescript's client of each
// compiles with tsc --noEmit.
TEST(OpenApiValidity, DocumentsValidateAndGiveAClientThatCompiles) {
  for (const std::string package : {"@readme/openapi-parser", "openapi-typescript", "typescript"}) {
    const std::string missing = NodeProcess::Missing(package);
    if (missing.starts_with("node is not installed")) GTEST_SKIP() << missing;
    ASSERT_EQ(missing, "") << "run: npm ci --prefix tests/node";
  }
  const std::filesystem::path source = CAIRN_SOURCE_DIR;
  // Every valid config in the repository's tests: the fixtures and the hostile corpus's app.
  std::vector<std::filesystem::path> configs = {source / "examples/app.yaml",
                                                source / "tests/hostile/app.yaml"};
  for (const auto& entry :
       std::filesystem::directory_iterator(source / "tests/fixtures/configs/valid")) {
    if (entry.is_regular_file()) configs.push_back(entry.path());
  }
  std::sort(configs.begin(), configs.end());
  const std::filesystem::path out =
      std::filesystem::temp_directory_path() / ("cairn-openapi-" + std::to_string(::getpid()));
  std::filesystem::create_directories(out);
  std::vector<std::string> names;
  int index = 0;
  const auto save = [&](AuthApp& app, const std::string& stem) {
    const Account admin = app.SignInOk(kAdminEmail, kAdminPassword);
    for (const std::string kind : {"app", "auth"}) {
      const std::string path = kind == "app" ? "/api/openapi.json" : "/api/auth/openapi.json";
      HttpResult result = app.GetAs(admin.token, path);
      ASSERT_EQ(result.status, 200) << stem << " " << result.body;
      const std::string name = kind + "_" + stem + ".json";
      std::ofstream(out / name) << result.body;
      names.push_back(name);
    }
  };
  for (const auto& config : configs) {
    SCOPED_TRACE(config.string());
    TestAppOptions options =
        AuthAppOptionsWithConfig(WithAuth(config), kAdminEmail, kAdminPassword);
    options.config_dir = config.parent_path();
    // OAuth providers of a config need credentials to start (never used here).
    auto tune = std::move(options.tune_settings);
    options.tune_settings = [tune](app::Settings& settings) {
      tune(settings);
      settings.env = [](const char* name) -> std::optional<std::string> {
        const std::string_view key = name;
        if (key.ends_with("_CLIENT_ID") || key.ends_with("_CLIENT_SECRET")) return "test-value";
        return std::nullopt;
      };
    };
    AuthApp app(std::move(options));
    save(app, "config" + std::to_string(index++));
  }
  {
    AuthApp app(Options());
    save(app, "suite");
  }
  {
    AuthApp app(Options(kDisplayConfig));
    save(app, "display");
  }
  std::vector<std::string> args = {out.string()};
  args.insert(args.end(), names.begin(), names.end());
  NodeProcess check("openapi_check.mjs", args);
  const std::string verdict = check.ReadLine(180'000);
  EXPECT_EQ(verdict, "ok") << "documents in " << out;
  if (verdict == "ok") std::filesystem::remove_all(out);
}

}  // namespace
}  // namespace cairn::test
