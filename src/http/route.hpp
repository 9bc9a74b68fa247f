// A route is data: method, pattern, schemas, summary. The router validates requests against the
// schemas; an OpenAPI generator that reads the same table is planned (none exists yet).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <boost/json/value.hpp>

#include "common/result.hpp"
#include "http/request.hpp"
#include "http/response.hpp"

namespace cairn::http {

// Expected failures come back as errors; the dispatcher turns them into the envelope and logs
// the internal detail of 5xx errors under the request id.
using Handler = std::function<Result<Response>(Request&)>;

// Where a handler runs. kInline: on the connection's I/O thread (cheap, non-blocking work).
// kWorker: on the worker pool (blocking work such as password hashing or network I/O).
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
  boost::json::value schema;  // null → no body
};

struct RouteSpec {
  std::string method;   // GET, POST, PUT, PATCH, DELETE
  std::string pattern;  // /api/tables/{tableId}; a last segment {name...} captures the rest
  std::string summary;
  std::string tag;
  bool requires_session = false;   // 401 without a live session (D17), before anything else
  bool optional_session = false;   // the caller is resolved when present (get-session)
  boost::json::value body_schema;  // null → the route takes no JSON body
  std::vector<QueryParam> query;
  std::vector<ResponseSpec> responses;
  Execution execution = Execution::kInline;
};

struct Route {
  RouteSpec spec;
  Handler handler;
};

}  // namespace cairn::http
