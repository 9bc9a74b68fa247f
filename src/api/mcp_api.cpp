#include "api/mcp_api.hpp"

#include <algorithm>
#include <memory>

#include "api/origin_check.hpp"
#include "api/session_layer.hpp"
#include "http/route.hpp"
#include "mcp/limits.hpp"
#include "mcp/server.hpp"
#include "records/record_json_schema.hpp"

namespace cairn::api {
namespace {

constexpr std::string_view kMcpPath = "/mcp";

std::vector<mcp::RecordTable> RecordTables(const config::AppConfig& config) {
  std::vector<mcp::RecordTable> tables;
  tables.reserve(config.tables.size());
  for (const config::Table& table : config.tables) {
    tables.push_back({table.name, table.slug,
                      records::RecordWriteSchema(table, records::RecordWriteKind::kCreate),
                      records::RecordWriteSchema(table, records::RecordWriteKind::kUpdate)});
  }
  return tables;
}

// An admin, or an admin acting as someone else: the impersonator must still be an admin.
Result<bool> IsAdminSession(const auth::Caller& caller, auth::AuthService& auth) {
  if (!caller.session.impersonated_by) return caller.user.role == "admin";
  auto impersonator = auth.GetUser(*caller.session.impersonated_by);
  if (!impersonator.ok()) {
    if (impersonator.error().code == ErrorCode::kNotFound) return false;
    return impersonator.error();
  }
  return impersonator.value().role == "admin";
}

http::Response MethodNotAllowed() {
  Error error = Error::Validation(
      "Method not allowed: /mcp takes POST only (no server-initiated stream, no MCP sessions)");
  error.http_status = 405;
  http::Response response = http::Response::FromError(error);
  response.SetHeader("Allow", "POST");
  return response;
}

}  // namespace

Status AddMcpRoutes(http::Router& router, const config::AppConfig& config, auth::AuthService& auth,
                    std::vector<std::string> trusted_origins) {
  auto server = std::make_shared<mcp::Server>(
      mcp::ServerOptions{config.name, config.version, RecordTables(config)});
  http::RouteSpec spec;
  spec.method = "POST";
  spec.pattern = std::string(kMcpPath);
  spec.summary = "Model Context Protocol (streamable HTTP, JSON-RPC 2.0) for admins";
  spec.tag = "mcp";
  spec.requires_session = true;
  spec.max_body_bytes = mcp::kMaxMessageBytes;
  CAIRN_TRY(router.Add({std::move(spec),
                        [server, &auth, trusted = std::move(trusted_origins)](
                            http::Request& request) -> Result<http::Response> {
                          // The transport's DNS-rebinding defence: a browser page may call only
                          // from a trusted origin, whatever its credentials (the origin check
                          // covers cookie callers only).
                          const std::string_view origin = request.Header("Origin");
                          if (!origin.empty() && std::find(trusted.begin(), trusted.end(),
                                                           OriginOf(origin)) == trusted.end()) {
                            return Error::Forbidden("Origin not allowed");
                          }
                          const auth::Caller* caller = CallerOf(request);
                          if (caller == nullptr) return Error::Unauthorized();
                          CAIRN_ASSIGN_OR_RETURN(const bool admin, IsAdminSession(*caller, auth));
                          if (!admin) return Error::Forbidden("The MCP server is for admins");
                          return server->HandlePost(request);
                        }}));
  for (const char* method : {"GET", "DELETE"}) {
    http::RouteSpec other;
    other.method = method;
    other.pattern = std::string(kMcpPath);
    other.summary = "Not served: 405 (no server-initiated stream, no MCP sessions)";
    other.tag = "mcp";
    CAIRN_TRY(router.Add({std::move(other), [](http::Request&) -> Result<http::Response> {
                            return MethodNotAllowed();
                          }}));
  }
  return Status{};
}

}  // namespace cairn::api
