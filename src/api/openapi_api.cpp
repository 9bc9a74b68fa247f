#include "api/openapi_api.hpp"

#include <memory>

#include <boost/json/parse.hpp>

#include "api/session_layer.hpp"
#include "common/gzip.hpp"
#include "openapi/document_cache.hpp"
#include "openapi/scalar_bundle.hpp"
#include "openapi/shared_schemas.hpp"

namespace cairn::api {
namespace {

using http::Request;
using http::Response;

constexpr std::string_view kScalarPath = "/api/scalar";

// Only 'self': the page, its scripts and the documents it fetches are cairn's own. Scalar's
// components set style attributes at run time, so styles need 'unsafe-inline'; no script does.
constexpr const char* kExplorerPolicy =
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data: blob:; font-src 'self' data:; connect-src 'self'; "
    "worker-src 'self' blob:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

// The explorer's own script: both documents as switchable sources, nothing loaded from
// elsewhere (no web fonts, no telemetry).
constexpr std::string_view kInitScript = R"((() => {
  // ?api=auth opens the auth document first.
  const wanted = new URLSearchParams(location.search).get('api') || 'app';
  Scalar.createApiReference('#app', {
    sources: [
      { title: 'Application API', slug: 'app', url: '/api/openapi.json', default: wanted !== 'auth' },
      { title: 'Auth API', slug: 'auth', url: '/api/auth/openapi.json', default: wanted === 'auth' }
    ],
    withDefaultFonts: false,
    telemetry: false,
    showDeveloperTools: 'never',
    agent: { disabled: true },
    mcp: { disabled: true }
  });
})();
)";

// Admins only; everyone else is told nothing exists here (the session layer has answered 401).
std::optional<Error> RefuseNonAdmin(const Request& request) {
  const auth::Caller* caller = CallerOf(request);
  if (caller == nullptr || caller->user.role != "admin") return Error::NotFound();
  return std::nullopt;
}

bool MatchesETag(std::string_view if_none_match, std::string_view etag) {
  if (if_none_match == "*") return true;
  std::size_t start = 0;
  while (start < if_none_match.size()) {
    std::size_t end = if_none_match.find(',', start);
    if (end == std::string_view::npos) end = if_none_match.size();
    std::string_view candidate = if_none_match.substr(start, end - start);
    while (!candidate.empty() && candidate.front() == ' ') candidate.remove_prefix(1);
    while (!candidate.empty() && candidate.back() == ' ') candidate.remove_suffix(1);
    if (candidate.starts_with("W/")) candidate.remove_prefix(2);
    if (candidate == etag) return true;
    start = end + 1;
  }
  return false;
}

Response DocumentResponse(const Request& request, const openapi::SerializedDocument& document) {
  Response response;
  const bool compressed = gzip::Accepted(request.Header("Accept-Encoding"));
  const std::string& etag = compressed ? document.gzip_etag : document.etag;
  if (MatchesETag(request.Header("If-None-Match"), etag)) {
    response.status = 304;
    response.content_type.clear();
  } else {
    response.body = compressed ? document.gzip : document.json;
    if (compressed) response.SetHeader("Content-Encoding", "gzip");
  }
  response.SetHeader("ETag", etag);
  // Admin-only: never stored by shared caches, always revalidated (the schema may change).
  response.SetHeader("Cache-Control", "private, no-cache");
  response.SetHeader("Vary", "Cookie, Authorization, Accept-Encoding");
  return response;
}

std::string ExplorerPage(const config::AppConfig& config) {
  std::string title = config.name + " API explorer";
  std::string escaped;
  for (char c : title) {
    switch (c) {
      case '<':
        escaped += "&lt;";
        break;
      case '>':
        escaped += "&gt;";
        break;
      case '&':
        escaped += "&amp;";
        break;
      case '"':
        escaped += "&quot;";
        break;
      default:
        escaped.push_back(c);
    }
  }
  return "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<link "
         "rel=\"icon\" href=\"data:,\">\n<title>" +
         escaped + "</title>\n</head>\n<body>\n<div id=\"app\"></div>\n<script src=\"" +
         std::string(kScalarPath) + "/" + std::string(openapi::ScalarBundleName()) +
         "\"></script>\n<script src=\"" + std::string(kScalarPath) +
         "/init.js\"></script>\n</body>\n</html>\n";
}

http::RouteSpec AdminSpec(const char* pattern, const char* summary, const char* operation_id,
                          boost::json::value schema) {
  http::RouteSpec spec;
  spec.method = "GET";
  spec.pattern = pattern;
  spec.summary = summary;
  spec.tag = "openapi";
  spec.operation_id = operation_id;
  spec.requires_session = true;
  spec.responses = {{200, "The document", std::move(schema), {}},
                    {304, "Unchanged since the ETag sent in If-None-Match", {}, {}},
                    {401, "No live session", {}, {}},
                    {404, "The caller is not an admin", {}, {}}};
  return spec;
}

}  // namespace

Status AddOpenApiRoutes(http::Router& router, const config::AppConfig& config) {
  auto cache = std::make_shared<openapi::DocumentCache>();
  const boost::json::value document_schema = boost::json::parse(
      R"({"type":"object","required":["openapi","info","paths"],
          "properties":{"openapi":{"type":"string","pattern":"^3\\.1\\."}}})");
  const auto document = [cache, &config](auto member) {
    return [cache, &config, member](Request& request) -> Result<Response> {
      if (auto refused = RefuseNonAdmin(request)) return std::move(*refused);
      auto documents = cache->Get(*request.router, config);
      return DocumentResponse(request, (*documents).*member);
    };
  };
  CAIRN_TRY(router.Add({AdminSpec("/api/openapi.json", "The OpenAPI 3.1 document of the API",
                                  "getOpenApiDocument", document_schema),
                        document(&openapi::SerializedDocuments::app)}));
  CAIRN_TRY(router.Add(
      {AdminSpec("/api/auth/openapi.json", "The OpenAPI 3.1 document of the auth surface",
                 "getAuthOpenApiDocument", document_schema),
       document(&openapi::SerializedDocuments::auth)}));

  http::RouteSpec page =
      AdminSpec("/api/scalar", "The API explorer (HTML)", "getApiExplorer",
                boost::json::object{{"type", "string"}, {"contentMediaType", "text/html"}});
  page.responses.erase(page.responses.begin() + 1);  // no ETag on the page
  page.responses.front().description = "The explorer page (text/html)";
  CAIRN_TRY(router.Add(
      {std::move(page), [html = ExplorerPage(config)](Request& request) -> Result<Response> {
         if (auto refused = RefuseNonAdmin(request)) return std::move(*refused);
         Response response;
         response.content_type = "text/html; charset=utf-8";
         response.body = html;
         response.SetHeader("Content-Security-Policy", kExplorerPolicy);
         response.SetHeader("Cache-Control", "private, no-cache");
         response.SetHeader("X-Content-Type-Options", "nosniff");
         return response;
       }}));

  // The explorer's scripts: public code, the same for everyone, so no session.
  http::RouteSpec asset;
  asset.method = "GET";
  asset.pattern = std::string(kScalarPath) + "/{asset}";
  asset.summary = "A script of the API explorer";
  asset.tag = "openapi";
  asset.operation_id = "getApiExplorerAsset";
  asset.responses = {
      {200,
       "The script",
       boost::json::object{{"type", "string"}, {"contentMediaType", "text/javascript"}},
       {}},
      {404, "No such script", {}, {}}};
  return router.Add({std::move(asset), [](Request& request) -> Result<Response> {
                       const std::string_view name = request.PathParam("asset");
                       Response response;
                       response.content_type = "text/javascript; charset=utf-8";
                       response.SetHeader("X-Content-Type-Options", "nosniff");
                       if (name == openapi::ScalarBundleName()) {
                         if (gzip::Accepted(request.Header("Accept-Encoding"))) {
                           response.body = openapi::ScalarBundleGzip();
                           response.SetHeader("Content-Encoding", "gzip");
                         } else {
                           response.body = openapi::ScalarBundle();
                         }
                         response.SetHeader("Vary", "Accept-Encoding");
                         // The name changes with the content.
                         response.SetHeader("Cache-Control", "public, max-age=31536000, immutable");
                       } else if (name == "init.js") {
                         response.body = kInitScript;
                         response.SetHeader("Cache-Control", "no-cache");
                       } else {
                         return Error::NotFound();
                       }
                       return response;
                     }});
}

}  // namespace cairn::api
