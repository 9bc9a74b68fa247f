#include "api/health_api.hpp"

#include <boost/json.hpp>

#include "common/json.hpp"
#include "common/time.hpp"

namespace cairn::api {
namespace {

boost::json::value HealthSchema() {
  return boost::json::parse(R"({
    "type": "object",
    "required": ["status", "timestamp", "app", "database"],
    "properties": {
      "status": {"type": "string", "enum": ["ok"]},
      "timestamp": {"type": "string", "format": "date-time"},
      "app": {"type": "object", "properties": {
        "name": {"type": "string"}, "version": {"type": "string"}}},
      "database": {"type": "string", "enum": ["ok"]}
    }
  })");
}

}  // namespace

Status AddHealthRoutes(http::Router& router, const DatabaseLiveness& liveness, HealthInfo info) {
  // The body is the same apart from the timestamp: serialize the constant part once.
  std::string app_json = R"(,"app":{"name":)";
  json::AppendString(app_json, info.app_name);
  app_json += R"(,"version":)";
  json::AppendString(app_json, info.app_version);
  app_json += R"(},"database":"ok"})";

  http::RouteSpec spec;
  spec.method = "GET";
  spec.pattern = "/api/health";
  spec.summary = "Server and database status";
  spec.tag = "health";
  spec.responses = {{200, "The server and its database answer", HealthSchema()},
                    {503, "The database does not answer", {}}};
  spec.execution = http::Execution::kInline;  // pure CPU: the liveness thread pings
  return router.Add(
      {std::move(spec),
       [&liveness, app_json = std::move(app_json)](http::Request&) -> Result<http::Response> {
         CAIRN_TRY(liveness.Current());
         std::string body = R"({"status":"ok","timestamp":")";
         time::AppendIso(body, time::NowMillis());
         body += '"';
         body += app_json;
         return http::Response::RawJson(200, std::move(body));
       }});
}

}  // namespace cairn::api
