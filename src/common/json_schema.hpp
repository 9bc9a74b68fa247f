// A JSON Schema (2020-12 subset) validator. A schema is compiled once into an immutable node
// graph (patterns compiled, $refs resolved to node indexes) and then validated against many
// instances, from any number of threads.
//
// Supported keywords: type, properties, required, additionalProperties, patternProperties,
// minProperties, maxProperties, items, prefixItems, minItems, maxItems, uniqueItems, enum, const,
// pattern, minLength, maxLength (Unicode code points), minimum, maximum, exclusiveMinimum,
// exclusiveMaximum, multipleOf, allOf, anyOf, oneOf, not, if/then/else, $ref (JSON pointers into
// the same document, such as "#/$defs/name" or "#"), $defs. Annotations (title, description,
// default, examples, format, $comment, $schema, $id, deprecated, readOnly, writeOnly, x-…) are
// ignored. Any other keyword is a compile error, so a typo in a schema never silently passes.
//
// One extension: `errorMessage` (a string, as in ajv-errors) replaces every issue a subschema
// reports with that single message at the subschema's instance path.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json/value.hpp>

#include "common/result.hpp"

namespace cairn::json {

struct SchemaIssue {
  std::string path;  // key path of the offending value (`tables[1].fields[3].options`)
  std::string message;
};

class JsonSchema {
 public:
  // Compiles `schema`. Errors name the schema location (a JSON pointer) and the problem.
  static Result<JsonSchema> Compile(const boost::json::value& schema);

  // Appends every issue found (paths start at `base_path`); returns true when valid.
  bool Validate(const boost::json::value& instance, std::vector<SchemaIssue>& issues,
                std::string_view base_path = {}) const;
  // Stops at the first failure; allocates nothing for valid instances of simple schemas.
  bool IsValid(const boost::json::value& instance) const;

  struct Compiled;

 private:
  explicit JsonSchema(std::shared_ptr<const Compiled> compiled) : compiled_(std::move(compiled)) {}
  std::shared_ptr<const Compiled> compiled_;
};

// The candidate closest to `word` (case-insensitive optimal string alignment distance), when it is
// close enough to be a likely typo: distance 1 for words of 3 or 4 characters, else 2; words
// shorter than 3 characters get no suggestion.
std::optional<std::string> SuggestClosest(std::string_view word,
                                          std::span<const std::string> candidates);

// Numeric-aware JSON equality: 1, 1.0 and 1u are equal; objects compare as unordered maps.
bool JsonEquals(const boost::json::value& a, const boost::json::value& b);

// Counts Unicode code points of UTF-8 text (continuation bytes are not counted).
std::size_t CodePointCount(std::string_view text);

}  // namespace cairn::json
