// The document cache follows the route table (issue 19 item 5): a new Router (a schema publish
// builds one) gets new documents and a new ETag on its first request; the same table is served
// from the cache.
#include <gtest/gtest.h>

#include "config/loader.hpp"
#include "openapi/document_cache.hpp"

namespace cairn::openapi {
namespace {

config::AppConfig ConfigWith(const std::string& table) {
  auto outcome = config::LoadConfigText("name: cache-test\ntables:\n  - name: " + table +
                                            "\n    fields:\n      - { name: title, type: "
                                            "single-line-text }\n",
                                        true, ".", "test.yaml");
  EXPECT_TRUE(outcome.ok());
  return *outcome.config;
}

http::Router RouterWith(const std::vector<std::string>& patterns) {
  http::Router router;
  for (const std::string& pattern : patterns) {
    http::RouteSpec spec;
    spec.method = "GET";
    spec.pattern = pattern;
    EXPECT_TRUE(router
                    .Add({std::move(spec),
                          [](http::Request&) -> Result<http::Response> {
                            return http::Response::NoContent();
                          }})
                    .ok());
  }
  return router;
}

TEST(DocumentCache, FollowsTheRouteTable) {
  DocumentCache cache;
  const config::AppConfig before = ConfigWith("notes");
  const http::Router first = RouterWith({"/api/health", "/api/tables/{tableId}/records"});
  const auto documents = cache.Get(first, before);
  EXPECT_NE(documents->app.json.find("\"/api/tables/notes/records\""), std::string::npos);
  EXPECT_EQ(cache.Get(first, before), documents);  // the same table: cached, not regenerated

  // A publish: a new table in the config, a new route, a new router.
  const config::AppConfig after = ConfigWith("tasks");
  const http::Router second =
      RouterWith({"/api/health", "/api/tables/{tableId}/records", "/api/tables/{tableId}/views"});
  ASSERT_NE(second.generation(), first.generation());
  const auto fresh = cache.Get(second, after);
  EXPECT_NE(fresh, documents);
  EXPECT_NE(fresh->app.etag, documents->app.etag);
  EXPECT_NE(fresh->app.json.find("\"/api/tables/tasks/views\""), std::string::npos);
  EXPECT_EQ(fresh->app.json.find("/api/tables/notes/"), std::string::npos);
  // The auth document has no application routes.
  EXPECT_EQ(fresh->auth.json.find("/api/tables/"), std::string::npos);
}

}  // namespace
}  // namespace cairn::openapi
