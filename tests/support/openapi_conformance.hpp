// Checks HTTP answers against the OpenAPI document cairn serves: finds the operation a request
// was routed to (template matching, literal segments first; a table named by id or name maps to
// the path expanded for it) and validates the body against the schema the document gives for
// that status (common/json_schema.hpp, with the document's components as $defs).
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <boost/json/value.hpp>

#include "common/json_schema.hpp"

namespace cairn::test {

class OpenApiConformance {
 public:
  // `documents`: the application and auth documents as served.
  explicit OpenApiConformance(std::vector<boost::json::value> documents);

  // Empty when the answer matches the document; otherwise what is wrong. `target` is the path
  // and query as sent. Where the document answers the anyOf of shapes marked x-cairn-format (a
  // read's raw and display forms, D39), the answer must match the one its `format` parameter
  // names (raw when absent). Routes outside /api are not checked.
  std::string Check(const std::string& method, const std::string& target, int status,
                    const std::string& content_type, const std::string& body);

  // How many answers had their body validated (so a test can see the check ran).
  std::size_t validated() const { return validated_; }

 private:
  struct Operation {
    const boost::json::object* responses = nullptr;
    std::size_t document = 0;
    std::string path;  // the document's path template
  };
  std::optional<Operation> Find(const std::string& method, const std::string& path) const;
  // The branch of `schema`'s anyOf whose component is marked x-cairn-format: `format`; null
  // when it has none.
  const boost::json::value* FormatBranch(std::size_t document, const boost::json::value& schema,
                                         const std::string& format) const;
  const json::JsonSchema* SchemaFor(std::size_t document, const std::string& key,
                                    const boost::json::value& schema, std::string& error);

  std::vector<boost::json::value> documents_;
  std::map<std::string, std::string> table_slugs_;  // id and lower-case name → slug
  std::mutex mutex_;
  std::map<std::string, std::unique_ptr<json::JsonSchema>> compiled_;
  std::size_t validated_ = 0;
};

}  // namespace cairn::test
