// A route is data: method, pattern, schemas, summary. The dispatcher validates request bodies
// against these schemas; the OpenAPI generator (src/openapi) documents every route from the same
// table, so a route registered anywhere appears in the documents with what its spec says.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <boost/json/value.hpp>

#include "common/result.hpp"
#include "http/body_stream.hpp"
#include "http/limits.hpp"
#include "http/request.hpp"
#include "http/response.hpp"

namespace cairn::http {

// Expected failures come back as errors; the dispatcher turns them into the envelope and logs
// the internal detail of 5xx errors under the request id.
using Handler = std::function<Result<Response>(Request&)>;

// Where the middleware and the handler run. kWorker (the default): on the bounded worker pool,
// for anything that touches the database, the disk or the network (every API route: sessions
// and PostgreSQL rate-limit counters live in the database). kInline: on the connection's network
// thread, only for pure-CPU routes whose middleware is pure CPU too.
enum class Execution { kInline, kWorker };

struct QueryParam {
  std::string name;
  boost::json::value schema;  // JSON Schema of the (string) value, for documentation
  std::string description;
  bool required = false;
};

struct ResponseSpec {
  int status = 200;
  std::string description;
  boost::json::value schema;   // null → no body; documentation only (may $ref the shared schemas)
  boost::json::value example;  // null → none
  // null → none; else named examples, {"<name>": {"summary": …, "value": …}}, for an answer
  // with more than one shape (a read's raw and display forms)
  boost::json::value examples;
};

struct RouteSpec {
  std::string method;   // GET, POST, PUT, PATCH, DELETE
  std::string pattern;  // /api/tables/{tableId}; a last segment {name...} captures the rest
  std::string summary;
  std::string tag;
  std::string operation_id;        // empty → derived from the method and pattern
  bool requires_session = false;   // 401 without a live session (D17), before anything else
  bool optional_session = false;   // the caller is resolved when present (get-session)
  boost::json::value body_schema;  // null → the route takes no JSON body
  // What the documents show for the body when it says more than body_schema (the record shapes,
  // which the field codecs check); null → body_schema.
  boost::json::value body_doc;
  boost::json::value body_example;  // null → none
  std::vector<QueryParam> query;
  std::vector<ResponseSpec> responses;
  Execution execution = Execution::kWorker;
  // The largest body a route takes whole (413 past it); streamed routes ask their sink instead.
  std::size_t max_body_bytes = kMaxBodyBytes;
};

// A route has exactly one of `handler` (the body, if any, is read whole first) and
// `stream_handler` (the body is streamed to the sink it returns; the route has no body schema).
struct Route {
  RouteSpec spec;
  Handler handler;
  StreamHandler stream_handler;
  // Checks that answer before the JSON body is parsed, after the middleware: a route whose
  // contract puts "unknown resource" (404) ahead of "bad body" (400) names the resource here.
  std::function<Status(Request&)> precheck;
};

}  // namespace cairn::http
