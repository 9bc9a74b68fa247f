// The tools of one route table (D55): one `{app}_schema_*` tool per route under
// /api/admin/schema/ and `{app}_{table}_list|get|create|update|delete` per table, each bound to
// the route it runs. Everything a tool says comes from the route's spec (summary, path
// parameters, query parameters, body schema); only the tables' names and record schemas come
// from outside, since the record routes take the table as a path parameter.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json/object.hpp>

#include "http/router.hpp"

namespace cairn::mcp {

// The prefix of the schema routes whose tools are `{app}_schema_*`.
inline constexpr std::string_view kSchemaRoutePrefix = "/api/admin/schema/";

// A table of the configuration the route table was built from.
struct RecordTable {
  std::string name;                 // for the tool name and descriptions
  std::string table_id;             // what {tableId} is set to
  boost::json::object create_body;  // JSON Schema of the create body
  boost::json::object update_body;  // JSON Schema of the update body
};

struct Tool {
  std::string name;
  std::string description;
  boost::json::object input_schema;
  // The route it runs.
  std::string method;
  std::string pattern;
  // Path parameters the tool fixes ({tableId} of a record tool); the others are arguments.
  std::vector<std::pair<std::string, std::string>> fixed_path;
  std::vector<std::string> path_arguments;
  std::vector<std::string> query_arguments;
  bool has_body = false;
};

class ToolCatalog {
 public:
  ToolCatalog(const http::Router& router, std::string_view app_name,
              const std::vector<RecordTable>& tables);

  std::uint64_t generation() const { return generation_; }
  const std::vector<Tool>& tools() const { return tools_; }
  const Tool* Find(std::string_view name) const;

 private:
  void Add(Tool tool);

  std::uint64_t generation_;
  std::vector<Tool> tools_;
};

// `text` with every run of characters outside [a-zA-Z0-9_-] replaced by one `_`, without `_` at
// either end, for tool names; never empty.
std::string ToolSafe(std::string_view text);

}  // namespace cairn::mcp
