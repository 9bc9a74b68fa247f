// The JSON parser for client input (request bodies, the `filter` parameter). Unlike
// boost::json::parse it keeps the text of numbers a double cannot carry (fractions, exponents,
// integers beyond 64 bits), so exact decimals are checked on what the client wrote (D9), and it
// refuses NUL in strings and keys, which PostgreSQL cannot store and SQLite would cut.
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>

#include <boost/json/value.hpp>

#include "common/result.hpp"

namespace cairn::json {

// The written text of the floating-point numbers of one parsed document, by node. Nodes are the
// document's own: moving the document's root keeps them (objects and arrays move their storage),
// copying it does not.
class NumberTexts {
 public:
  // The text `number` was written as (`1.0000000000000000000001`, `1e-400`), if it is a double
  // node of the document these texts belong to.
  const std::string* Find(const boost::json::value& number) const;
  void Add(const boost::json::value& number, std::string text);

 private:
  std::unordered_map<const boost::json::value*, std::string> texts_;
};

struct InputDocument {
  boost::json::value value;
  NumberTexts numbers;  // refers into `value`
};

// Parses one JSON document nested at most `max_depth` deep. Errors are Error::Validation:
// malformed JSON and nesting beyond the limit (a message only; `what` names the input, such as
// `JSON body`), and NUL in a string or key or a key written twice in one object, with one error
// naming where it is as a key path under `root` (`records[2].fields.name` for root "",
// `filter.name` for root "filter").
Result<InputDocument> ParseInput(std::string_view text, int max_depth, std::string_view what,
                                 std::string_view root = "");

}  // namespace cairn::json
