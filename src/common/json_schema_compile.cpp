// JSON Schema compilation: schema document -> node graph (json_schema_node.hpp).
#include <string>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "common/json_schema_node.hpp"

namespace cairn::json::schema_detail {
namespace {

std::string EscapePointerToken(std::string_view token) {
  std::string out;
  for (char c : token) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out.push_back(c);
    }
  }
  return out;
}

bool IsAnnotation(std::string_view key) {
  static const std::unordered_set<std::string_view> kAnnotations = {"title",
                                                                    "description",
                                                                    "default",
                                                                    "examples",
                                                                    "format",
                                                                    "$comment",
                                                                    "$schema",
                                                                    "$id",
                                                                    "deprecated",
                                                                    "readOnly",
                                                                    "writeOnly",
                                                                    "$anchor",
                                                                    "contentMediaType",
                                                                    "contentEncoding"};
  return kAnnotations.contains(key) || key.starts_with("x-");
}

class Compiler {
 public:
  explicit Compiler(const boost::json::value& root) : root_(root) {}

  Result<std::vector<Node>> Run() {
    Compile(root_, "");
    // Resolve references; compiling a referenced location may add more references.
    for (std::size_t i = 0; i < pending_refs_.size() && error_.empty(); ++i) {
      const auto [node, ref, where] = pending_refs_[i];
      const int target = Resolve(ref, where);
      if (target >= 0) nodes_[node].ref = target;
    }
    if (!error_.empty()) return Error::Validation("invalid JSON Schema: " + error_);
    return std::move(nodes_);
  }

 private:
  void Fail(const std::string& pointer, std::string message) {
    if (error_.empty()) error_ = (pointer.empty() ? "(root)" : pointer) + ": " + message;
  }

  int Resolve(const std::string& ref, const std::string& where) {
    if (ref.empty() || ref[0] != '#') {
      Fail(where, "unsupported $ref '" + ref + "' (only '#…' pointers into the same document)");
      return -1;
    }
    const std::string pointer = ref.substr(1);
    if (auto it = by_pointer_.find(pointer); it != by_pointer_.end()) return it->second;
    boost::json::error_code ec;
    const boost::json::value* target = root_.find_pointer(pointer, ec);
    if (target == nullptr) {
      Fail(where, "$ref '" + ref + "' points nowhere");
      return -1;
    }
    return Compile(*target, pointer);
  }

  std::optional<std::size_t> Count(const boost::json::value& v, const std::string& pointer) {
    if (IsIntegral(v) && AsDouble(v) >= 0) return static_cast<std::size_t>(AsDouble(v));
    Fail(pointer, "must be a non-negative integer");
    return std::nullopt;
  }

  std::optional<double> Number(const boost::json::value& v, const std::string& pointer) {
    if (v.is_number()) return AsDouble(v);
    Fail(pointer, "must be a number");
    return std::nullopt;
  }

  std::optional<Pattern> MakePattern(const boost::json::value& v, const std::string& pointer) {
    if (!v.is_string()) {
      Fail(pointer, "must be a string");
      return std::nullopt;
    }
    try {
      return Pattern{std::string(v.get_string()),
                     std::regex(std::string(v.get_string()), std::regex::ECMAScript)};
    } catch (const std::regex_error& e) {
      Fail(pointer, std::string("invalid pattern: ") + e.what());
      return std::nullopt;
    }
  }

  std::vector<int> SchemaList(const boost::json::value& v, const std::string& pointer) {
    std::vector<int> out;
    if (!v.is_array() || v.get_array().empty()) {
      Fail(pointer, "must be a non-empty array of schemas");
      return out;
    }
    for (std::size_t i = 0; i < v.get_array().size(); ++i) {
      out.push_back(Compile(v.get_array()[i], pointer + "/" + std::to_string(i)));
    }
    return out;
  }

  std::uint8_t TypeBitFor(std::string_view name, const std::string& pointer) {
    if (name == "null") return kNullBit;
    if (name == "boolean") return kBooleanBit;
    if (name == "integer") return kIntegerBit;
    if (name == "number") return kNumberBit;
    if (name == "string") return kStringBit;
    if (name == "array") return kArrayBit;
    if (name == "object") return kObjectBit;
    Fail(pointer, "unknown type '" + std::string(name) + "'");
    return 0;
  }

  int Compile(const boost::json::value& schema, const std::string& pointer) {
    if (auto it = by_pointer_.find(pointer); it != by_pointer_.end()) return it->second;
    const int index = static_cast<int>(nodes_.size());
    nodes_.emplace_back();
    by_pointer_.emplace(pointer, index);
    if (!error_.empty()) return index;

    Node node;
    if (schema.is_bool()) {
      node.reject_all = !schema.get_bool();
      node.has_checks = node.reject_all;
      nodes_[index] = std::move(node);
      return index;
    }
    if (!schema.is_object()) {
      Fail(pointer, "a schema must be an object or a boolean");
      return index;
    }
    for (const auto& member : schema.get_object()) {
      const std::string_view key = member.key();
      const boost::json::value& v = member.value();
      const std::string at = pointer + "/" + EscapePointerToken(key);
      bool check = true;
      if (key == "type") {
        if (v.is_string()) {
          node.types = TypeBitFor(v.get_string(), at);
        } else if (v.is_array() && !v.get_array().empty()) {
          for (const auto& t : v.get_array()) {
            if (!t.is_string()) {
              Fail(at, "type names must be strings");
              break;
            }
            node.types |= TypeBitFor(t.get_string(), at);
          }
        } else {
          Fail(at, "must be a type name or a non-empty array of type names");
        }
      } else if (key == "properties") {
        if (!v.is_object()) {
          Fail(at, "must be an object");
          continue;
        }
        for (const auto& property : v.get_object()) {
          const int child =
              Compile(property.value(), at + "/" + EscapePointerToken(property.key()));
          node.properties.emplace_back(std::string(property.key()), child);
          node.property_order.emplace_back(property.key());
        }
        std::sort(node.properties.begin(), node.properties.end());
      } else if (key == "required") {
        if (!v.is_array()) {
          Fail(at, "must be an array of property names");
          continue;
        }
        for (const auto& name : v.get_array()) {
          if (!name.is_string()) {
            Fail(at, "must be an array of property names");
            break;
          }
          node.required.emplace_back(name.get_string());
        }
      } else if (key == "additionalProperties") {
        node.additional = Compile(v, at);
      } else if (key == "patternProperties") {
        if (!v.is_object()) {
          Fail(at, "must be an object");
          continue;
        }
        for (const auto& property : v.get_object()) {
          const std::string child_at = at + "/" + EscapePointerToken(property.key());
          auto pattern = MakePattern(boost::json::value(property.key()), child_at);
          const int child = Compile(property.value(), child_at);
          if (pattern) node.pattern_properties.emplace_back(std::move(*pattern), child);
        }
      } else if (key == "minProperties") {
        node.min_properties = Count(v, at);
      } else if (key == "maxProperties") {
        node.max_properties = Count(v, at);
      } else if (key == "items") {
        if (v.is_array()) {
          Fail(at, "must be a schema (use prefixItems for tuples)");
          continue;
        }
        node.items = Compile(v, at);
      } else if (key == "prefixItems") {
        node.prefix_items = SchemaList(v, at);
      } else if (key == "minItems") {
        node.min_items = Count(v, at);
      } else if (key == "maxItems") {
        node.max_items = Count(v, at);
      } else if (key == "uniqueItems") {
        if (!v.is_bool()) Fail(at, "must be a boolean");
        node.unique_items = v.is_bool() && v.get_bool();
      } else if (key == "enum") {
        if (!v.is_array() || v.get_array().empty()) {
          Fail(at, "must be a non-empty array");
          continue;
        }
        node.enum_values.emplace(v.get_array().begin(), v.get_array().end());
      } else if (key == "const") {
        node.const_value = v;
      } else if (key == "pattern") {
        node.pattern = MakePattern(v, at);
      } else if (key == "minLength") {
        node.min_length = Count(v, at);
      } else if (key == "maxLength") {
        node.max_length = Count(v, at);
      } else if (key == "minimum") {
        node.minimum = Number(v, at);
      } else if (key == "maximum") {
        node.maximum = Number(v, at);
      } else if (key == "exclusiveMinimum") {
        node.exclusive_minimum = Number(v, at);
      } else if (key == "exclusiveMaximum") {
        node.exclusive_maximum = Number(v, at);
      } else if (key == "multipleOf") {
        node.multiple_of = Number(v, at);
        if (node.multiple_of && *node.multiple_of <= 0) Fail(at, "must be greater than 0");
      } else if (key == "allOf") {
        node.all_of = SchemaList(v, at);
      } else if (key == "anyOf") {
        node.any_of = SchemaList(v, at);
      } else if (key == "oneOf") {
        node.one_of = SchemaList(v, at);
      } else if (key == "not") {
        node.not_schema = Compile(v, at);
      } else if (key == "if") {
        node.if_schema = Compile(v, at);
      } else if (key == "then") {
        node.then_schema = Compile(v, at);
      } else if (key == "else") {
        node.else_schema = Compile(v, at);
      } else if (key == "$ref") {
        if (!v.is_string()) {
          Fail(at, "must be a string");
          continue;
        }
        pending_refs_.emplace_back(index, std::string(v.get_string()), at);
      } else if (key == "$defs") {
        check = false;
        if (!v.is_object()) {
          Fail(at, "must be an object");
          continue;
        }
        for (const auto& def : v.get_object()) {
          Compile(def.value(), at + "/" + EscapePointerToken(def.key()));
        }
      } else if (key == "errorMessage") {
        check = false;
        if (!v.is_string()) {
          Fail(at, "must be a string");
          continue;
        }
        node.error_message = std::string(v.get_string());
      } else if (IsAnnotation(key)) {
        check = false;
      } else {
        Fail(at, "unsupported keyword '" + std::string(key) + "'");
        check = false;
      }
      if (check) node.has_checks = true;
    }
    if (node.if_schema < 0) node.then_schema = node.else_schema = -1;
    nodes_[index] = std::move(node);
    return index;
  }

  const boost::json::value& root_;
  std::vector<Node> nodes_;
  std::unordered_map<std::string, int> by_pointer_;
  std::vector<std::tuple<int, std::string, std::string>> pending_refs_;  // node, ref, pointer
  std::string error_;
};

}  // namespace

Result<std::vector<Node>> CompileNodes(const boost::json::value& schema) {
  return Compiler(schema).Run();
}

}  // namespace cairn::json::schema_detail
