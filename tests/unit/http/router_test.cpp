#include "http/router.hpp"

#include <gtest/gtest.h>

namespace cairn::http {
namespace {

Route MakeRoute(std::string method, std::string pattern) {
  RouteSpec spec;
  spec.method = std::move(method);
  spec.pattern = std::move(pattern);
  return {std::move(spec), [](Request&) -> Result<Response> { return Response::NoContent(); }};
}

TEST(RouterTest, MatchesLiteralsAndParameters) {
  Router router;
  ASSERT_TRUE(router.Add(MakeRoute("GET", "/api/tables/{tableId}/records")).ok());
  ASSERT_TRUE(router.Add(MakeRoute("GET", "/api/tables/{tableId}/records/{recordId}")).ok());
  ASSERT_TRUE(router.Add(MakeRoute("POST", "/api/tables/{tableId}/records/batch")).ok());

  auto match = router.Match("GET", {"api", "tables", "posts", "records", "7"});
  ASSERT_NE(match.route, nullptr);
  EXPECT_EQ(match.route->route.spec.pattern, "/api/tables/{tableId}/records/{recordId}");
  ASSERT_EQ(match.path_params.size(), 2u);
  EXPECT_EQ(match.path_params[0].second, "posts");
  EXPECT_EQ(match.path_params[1].second, "7");

  // A literal beats a parameter for its method; other methods fall back to the parameter.
  auto batch = router.Match("POST", {"api", "tables", "posts", "records", "batch"});
  ASSERT_NE(batch.route, nullptr);
  EXPECT_EQ(batch.route->route.spec.pattern, "/api/tables/{tableId}/records/batch");
  auto record_named_batch = router.Match("GET", {"api", "tables", "posts", "records", "batch"});
  ASSERT_NE(record_named_batch.route, nullptr);
  EXPECT_EQ(record_named_batch.path_params[1].second, "batch");
}

TEST(RouterTest, ReportsPathMatchWithWrongMethod) {
  Router router;
  ASSERT_TRUE(router.Add(MakeRoute("GET", "/api/health")).ok());
  auto match = router.Match("POST", {"api", "health"});
  EXPECT_EQ(match.route, nullptr);
  EXPECT_TRUE(match.path_matched);
  auto unknown = router.Match("GET", {"api", "nothing"});
  EXPECT_EQ(unknown.route, nullptr);
  EXPECT_FALSE(unknown.path_matched);
}

TEST(RouterTest, RestParameterCapturesRemainingSegments) {
  Router router;
  ASSERT_TRUE(router.Add(MakeRoute("GET", "/api/buckets/{bucket}/files/{path...}")).ok());
  auto match = router.Match("GET", {"api", "buckets", "docs", "files", "a", "b", "c.png"});
  ASSERT_NE(match.route, nullptr);
  EXPECT_EQ(match.path_params[0].second, "docs");
  EXPECT_EQ(match.path_params[1].second, "a/b/c.png");
}

TEST(RouterTest, RejectsDuplicatesAndBadPatterns) {
  Router router;
  ASSERT_TRUE(router.Add(MakeRoute("GET", "/api/health")).ok());
  EXPECT_FALSE(router.Add(MakeRoute("GET", "/api/health")).ok());
  EXPECT_FALSE(router.Add(MakeRoute("GET", "api/health")).ok());
  EXPECT_FALSE(router.Add(MakeRoute("GET", "/a/{rest...}/b")).ok());
}

TEST(RouterTest, EmptySegmentDoesNotMatchParameter) {
  Router router;
  ASSERT_TRUE(router.Add(MakeRoute("GET", "/api/tables/{tableId}")).ok());
  EXPECT_EQ(router.Match("GET", {"api", "tables", ""}).route, nullptr);
}

}  // namespace
}  // namespace cairn::http
