// JSON Schema validation: walks an instance against the node graph and reports issues with key
// paths. Paths are kept as a stack of segments and turned into text only when reported.
#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "common/json.hpp"
#include "common/json_schema_node.hpp"

namespace cairn::json::schema_detail {
namespace {

constexpr int kMaxDepth = 256;

std::string KindName(const boost::json::value& v) {
  switch (v.kind()) {
    case boost::json::kind::null:
      return "null";
    case boost::json::kind::bool_:
      return "a boolean";
    case boost::json::kind::int64:
    case boost::json::kind::uint64:
      return "an integer";
    case boost::json::kind::double_:
      return IsIntegral(v) ? "an integer" : "a number";
    case boost::json::kind::string:
      return "a string";
    case boost::json::kind::array:
      return "an array";
    case boost::json::kind::object:
      return "an object";
  }
  return "a value";
}

std::string TypeList(std::uint8_t mask) {
  static constexpr std::pair<std::uint8_t, const char*> kNames[] = {
      {kObjectBit, "an object"}, {kArrayBit, "an array"},     {kStringBit, "a string"},
      {kNumberBit, "a number"},  {kIntegerBit, "an integer"}, {kBooleanBit, "a boolean"},
      {kNullBit, "null"}};
  if (mask & kNumberBit) mask &= static_cast<std::uint8_t>(~kIntegerBit);
  std::vector<const char*> names;
  for (const auto& [bit, name] : kNames) {
    if (mask & bit) names.push_back(name);
  }
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += (i + 1 == names.size()) ? " or " : ", ";
    out += names[i];
  }
  return out;
}

std::string FormatNumber(double number) {
  if (std::trunc(number) == number && std::fabs(number) < 1e15) {
    return std::to_string(static_cast<long long>(number));
  }
  std::string out;
  AppendDouble(out, number);
  return out;
}

std::string Quote(std::string_view text) {
  return "'" + std::string(text) + "'";
}

// Display form of an enum or const value: strings bare inside lists, everything else as JSON.
std::string DisplayValue(const boost::json::value& v) {
  if (v.is_string()) return Quote(v.get_string());
  return Serialize(v);
}

// One step of an instance path, kept on the stack; turned into text only when an issue is reported.
struct PathSeg {
  const PathSeg* parent = nullptr;
  std::string_view key;
  std::size_t index = 0;
  bool is_index = false;
};

class Validator {
 public:
  Validator(const std::vector<Node>& nodes, std::string_view base) : nodes_(nodes), base_(base) {}

  // With `out` null, stops at the first failure and reports nothing.
  bool Check(int index, const boost::json::value& v, const PathSeg* path,
             std::vector<SchemaIssue>* out, int depth) const {
    const Node& node = nodes_[static_cast<std::size_t>(index)];
    if (!node.has_checks) return true;
    if (depth > kMaxDepth) {
      Report(out, path, "is nested too deeply for the schema");
      return false;
    }
    const std::size_t mark = out ? out->size() : 0;
    const bool ok = CheckNode(node, v, path, out, depth);
    if (!ok && out && node.error_message) {
      out->resize(mark);
      Report(out, path, *node.error_message);
    }
    return ok;
  }

 private:
  std::string PathText(const PathSeg* path) const {
    std::vector<const PathSeg*> chain;
    for (const PathSeg* seg = path; seg != nullptr; seg = seg->parent) chain.push_back(seg);
    std::string text(base_);
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
      text = (*it)->is_index ? PathIndex(text, (*it)->index) : PathKey(text, (*it)->key);
    }
    return text;
  }

  void Report(std::vector<SchemaIssue>* out, const PathSeg* path, std::string message) const {
    if (out) out->push_back(SchemaIssue{PathText(path), std::move(message)});
  }

  // Types a schema can accept, looking through $ref and combinators (0 means any).
  std::uint8_t EffectiveTypes(int index, int depth) const {
    const Node& node = nodes_[static_cast<std::size_t>(index)];
    if (depth > 16) return 0;
    if (node.types) return node.types;
    if (node.ref >= 0) return EffectiveTypes(node.ref, depth + 1);
    if (node.const_value) return KindBits(*node.const_value);
    if (node.enum_values) {
      std::uint8_t mask = 0;
      for (const auto& v : *node.enum_values) mask |= KindBits(v);
      return mask;
    }
    const auto& branches = !node.any_of.empty() ? node.any_of : node.one_of;
    if (!branches.empty()) {
      std::uint8_t mask = 0;
      for (int branch : branches) {
        const std::uint8_t t = EffectiveTypes(branch, depth + 1);
        if (t == 0) return 0;
        mask |= t;
      }
      return mask;
    }
    return 0;
  }

  // Reports why no branch of anyOf/oneOf matched, without a cascade of every branch's issues.
  void ReportNoBranch(const std::vector<int>& branches, const boost::json::value& v,
                      const PathSeg* path, std::vector<SchemaIssue>* out, int depth) const {
    std::uint8_t all_types = 0;
    bool any_type = false;
    std::vector<int> candidates;
    for (int branch : branches) {
      const std::uint8_t t = EffectiveTypes(branch, 0);
      if (t == 0) any_type = true;
      all_types |= t;
      if (t == 0 || TypeMatches(t, v)) candidates.push_back(branch);
    }
    if (candidates.empty()) {
      Report(out, path,
             "expected " + (any_type ? std::string("another form") : TypeList(all_types)) +
                 ", got " + KindName(v));
      return;
    }
    std::vector<SchemaIssue> best;
    bool have_best = false;
    for (int branch : candidates) {
      std::vector<SchemaIssue> issues;
      Check(branch, v, path, &issues, depth + 1);
      if (!have_best || issues.size() < best.size()) {
        best = std::move(issues);
        have_best = true;
      }
    }
    if (best.empty()) {
      Report(out, path, "does not match any of the allowed forms");
    } else {
      out->insert(out->end(), std::make_move_iterator(best.begin()),
                  std::make_move_iterator(best.end()));
    }
  }

  std::string UnknownPropertyMessage(const Node& node, std::string_view key) const {
    std::string message = "unknown property '" + std::string(key) + "'";
    if (node.property_order.empty()) return message + " (no properties are allowed here)";
    if (auto hint = SuggestClosest(key, node.property_order)) {
      return message + " (did you mean '" + *hint + "'?)";
    }
    message += "; allowed: ";
    for (std::size_t i = 0; i < node.property_order.size(); ++i) {
      if (i > 0) message += ", ";
      message += node.property_order[i];
    }
    return message;
  }

  std::string EnumMessage(const Node& node, const boost::json::value& v) const {
    const auto& values = *node.enum_values;
    std::string list;
    std::vector<std::string> strings;
    for (std::size_t i = 0; i < values.size(); ++i) {
      if (i > 0) list += ", ";
      list += values[i].is_string() ? std::string(values[i].get_string()) : Serialize(values[i]);
      if (values[i].is_string()) strings.emplace_back(values[i].get_string());
    }
    if (v.is_string()) {
      std::string message = "unknown value '" + std::string(v.get_string()) + "'";
      if (auto hint = SuggestClosest(v.get_string(), strings)) {
        message += " (did you mean '" + *hint + "'?)";
      }
      return message + "; expected one of: " + list;
    }
    if (values.size() == 1) return "must be " + DisplayValue(values[0]);
    return "must be one of: " + list + " (got " + Serialize(v) + ")";
  }

  int FindProperty(const Node& node, std::string_view key) const {
    auto it = std::lower_bound(
        node.properties.begin(), node.properties.end(), key,
        [](const std::pair<std::string, int>& p, std::string_view k) { return p.first < k; });
    if (it != node.properties.end() && it->first == key) return it->second;
    return -1;
  }

  bool CheckNode(const Node& node, const boost::json::value& v, const PathSeg* path,
                 std::vector<SchemaIssue>* out, int depth) const {
    if (node.reject_all) {
      Report(out, path, "is not allowed here");
      return false;
    }
    if (node.types && !TypeMatches(node.types, v)) {
      Report(out, path, "expected " + TypeList(node.types) + ", got " + KindName(v));
      return false;
    }
    bool ok = true;
    // Records a failure; true means "stop now" (fail-fast mode).
    auto failed = [&]() {
      ok = false;
      return out == nullptr;
    };

    if (node.ref >= 0 && !Check(node.ref, v, path, out, depth + 1) && failed()) return false;
    if (node.const_value && !JsonEquals(*node.const_value, v)) {
      Report(out, path, "must be " + DisplayValue(*node.const_value));
      if (failed()) return false;
    }
    if (node.enum_values) {
      const auto& values = *node.enum_values;
      const bool found = std::any_of(values.begin(), values.end(),
                                     [&](const boost::json::value& e) { return JsonEquals(e, v); });
      if (!found) {
        if (out) Report(out, path, EnumMessage(node, v));
        if (failed()) return false;
      }
    }

    switch (v.kind()) {
      case boost::json::kind::string:
        if (!CheckString(node, v.get_string(), path, out) && failed()) return false;
        break;
      case boost::json::kind::int64:
      case boost::json::kind::uint64:
      case boost::json::kind::double_:
        if (!CheckNumber(node, v, path, out) && failed()) return false;
        break;
      case boost::json::kind::array:
        if (!CheckArray(node, v.get_array(), path, out, depth) && failed()) return false;
        break;
      case boost::json::kind::object:
        if (!CheckObject(node, v.get_object(), path, out, depth) && failed()) return false;
        break;
      default:
        break;
    }

    for (int sub : node.all_of) {
      if (!Check(sub, v, path, out, depth + 1) && failed()) return false;
    }
    if (!node.any_of.empty()) {
      const bool any = std::any_of(node.any_of.begin(), node.any_of.end(), [&](int sub) {
        return Check(sub, v, path, nullptr, depth + 1);
      });
      if (!any) {
        if (out) ReportNoBranch(node.any_of, v, path, out, depth);
        if (failed()) return false;
      }
    }
    if (!node.one_of.empty()) {
      int matches = 0;
      for (int sub : node.one_of) {
        if (Check(sub, v, path, nullptr, depth + 1) && ++matches > 1) break;
      }
      if (matches == 0) {
        if (out) ReportNoBranch(node.one_of, v, path, out, depth);
        if (failed()) return false;
      } else if (matches > 1) {
        Report(out, path, "matches more than one of the allowed forms");
        if (failed()) return false;
      }
    }
    if (node.not_schema >= 0 && Check(node.not_schema, v, path, nullptr, depth + 1)) {
      Report(out, path, "matches a form that is not allowed");
      if (failed()) return false;
    }
    if (node.if_schema >= 0) {
      const int branch =
          Check(node.if_schema, v, path, nullptr, depth + 1) ? node.then_schema : node.else_schema;
      if (branch >= 0 && !Check(branch, v, path, out, depth + 1) && failed()) return false;
    }
    return ok;
  }

  bool CheckString(const Node& node, std::string_view text, const PathSeg* path,
                   std::vector<SchemaIssue>* out) const {
    bool ok = true;
    if (node.min_length || node.max_length) {
      const std::size_t length = CodePointCount(text);
      if (node.min_length && length < *node.min_length) {
        Report(out, path,
               *node.min_length == 1
                   ? std::string("must not be empty")
                   : "must be at least " + std::to_string(*node.min_length) + " characters long");
        ok = false;
        if (!out) return false;
      }
      if (node.max_length && length > *node.max_length) {
        Report(out, path,
               "must be at most " + std::to_string(*node.max_length) + " characters long (got " +
                   std::to_string(length) + ")");
        ok = false;
        if (!out) return false;
      }
    }
    if (node.pattern && !std::regex_search(text.begin(), text.end(), node.pattern->regex)) {
      Report(out, path,
             "'" + std::string(text) + "' does not match the pattern " + node.pattern->source);
      ok = false;
    }
    return ok;
  }

  bool CheckNumber(const Node& node, const boost::json::value& v, const PathSeg* path,
                   std::vector<SchemaIssue>* out) const {
    const double x = AsDouble(v);
    bool ok = true;
    auto fail = [&](std::string message) {
      Report(out, path, std::move(message));
      ok = false;
      return out == nullptr;
    };
    if (node.minimum && x < *node.minimum &&
        fail("must be at least " + FormatNumber(*node.minimum) + " (got " + Serialize(v) + ")")) {
      return false;
    }
    if (node.maximum && x > *node.maximum &&
        fail("must be at most " + FormatNumber(*node.maximum) + " (got " + Serialize(v) + ")")) {
      return false;
    }
    if (node.exclusive_minimum && x <= *node.exclusive_minimum &&
        fail("must be greater than " + FormatNumber(*node.exclusive_minimum) + " (got " +
             Serialize(v) + ")")) {
      return false;
    }
    if (node.exclusive_maximum && x >= *node.exclusive_maximum &&
        fail("must be less than " + FormatNumber(*node.exclusive_maximum) + " (got " +
             Serialize(v) + ")")) {
      return false;
    }
    if (node.multiple_of) {
      const double quotient = x / *node.multiple_of;
      const bool multiple = std::isfinite(quotient) && std::fabs(quotient - std::round(quotient)) <=
                                                           1e-9 * std::fabs(quotient) + 1e-12;
      if (!multiple && fail("must be a multiple of " + FormatNumber(*node.multiple_of))) {
        return false;
      }
    }
    return ok;
  }

  bool CheckArray(const Node& node, const boost::json::array& items, const PathSeg* path,
                  std::vector<SchemaIssue>* out, int depth) const {
    bool ok = true;
    auto fail = [&](std::string message) {
      Report(out, path, std::move(message));
      ok = false;
      return out == nullptr;
    };
    if (node.min_items && items.size() < *node.min_items &&
        fail(*node.min_items == 1
                 ? std::string("must have at least 1 item")
                 : "must have at least " + std::to_string(*node.min_items) + " items")) {
      return false;
    }
    if (node.max_items && items.size() > *node.max_items &&
        fail("must have at most " + std::to_string(*node.max_items) + " items (got " +
             std::to_string(items.size()) + ")")) {
      return false;
    }
    for (std::size_t i = 0; i < items.size(); ++i) {
      int schema = i < node.prefix_items.size() ? node.prefix_items[i] : node.items;
      if (schema < 0) continue;
      const PathSeg child{path, {}, i, true};
      if (!Check(schema, items[i], &child, out, depth + 1)) {
        ok = false;
        if (!out) return false;
      }
    }
    if (node.unique_items && items.size() > 1) {
      auto duplicate = [&](std::size_t later, std::size_t earlier) {
        const PathSeg child{path, {}, later, true};
        Report(out, &child,
               "duplicate item " + DisplayValue(items[later]) + " (same as item " +
                   std::to_string(earlier) + ")");
        ok = false;
        return out == nullptr;
      };
      const bool all_strings = std::all_of(
          items.begin(), items.end(), [](const boost::json::value& x) { return x.is_string(); });
      if (all_strings) {
        std::unordered_map<std::string_view, std::size_t> seen;
        for (std::size_t i = 0; i < items.size(); ++i) {
          auto [it, inserted] = seen.emplace(std::string_view(items[i].get_string()), i);
          if (!inserted && duplicate(i, it->second)) return false;
        }
      } else {
        for (std::size_t i = 1; i < items.size(); ++i) {
          for (std::size_t j = 0; j < i; ++j) {
            if (JsonEquals(items[i], items[j])) {
              if (duplicate(i, j)) return false;
              break;
            }
          }
        }
      }
    }
    return ok;
  }

  bool CheckObject(const Node& node, const boost::json::object& object, const PathSeg* path,
                   std::vector<SchemaIssue>* out, int depth) const {
    bool ok = true;
    for (const std::string& name : node.required) {
      if (object.contains(name)) continue;
      const PathSeg child{path, name, 0, false};
      Report(out, &child, "missing required property '" + name + "'");
      ok = false;
      if (!out) return false;
    }
    if (node.min_properties && object.size() < *node.min_properties) {
      Report(out, path,
             "must have at least " + std::to_string(*node.min_properties) + " properties");
      ok = false;
      if (!out) return false;
    }
    if (node.max_properties && object.size() > *node.max_properties) {
      Report(out, path,
             "must have at most " + std::to_string(*node.max_properties) + " properties");
      ok = false;
      if (!out) return false;
    }
    if (node.properties.empty() && node.pattern_properties.empty() && node.additional < 0) {
      return ok;
    }
    for (const auto& member : object) {
      const std::string_view key = member.key();
      const PathSeg child{path, key, 0, false};
      bool matched = false;
      if (const int schema = FindProperty(node, key); schema >= 0) {
        matched = true;
        if (!Check(schema, member.value(), &child, out, depth + 1)) {
          ok = false;
          if (!out) return false;
        }
      }
      for (const auto& [pattern, schema] : node.pattern_properties) {
        if (!std::regex_search(key.begin(), key.end(), pattern.regex)) continue;
        matched = true;
        if (!Check(schema, member.value(), &child, out, depth + 1)) {
          ok = false;
          if (!out) return false;
        }
      }
      if (matched || node.additional < 0) continue;
      const Node& additional = nodes_[static_cast<std::size_t>(node.additional)];
      if (additional.reject_all) {
        if (out) Report(out, &child, UnknownPropertyMessage(node, key));
        ok = false;
        if (!out) return false;
      } else if (!Check(node.additional, member.value(), &child, out, depth + 1)) {
        ok = false;
        if (!out) return false;
      }
    }
    return ok;
  }

  const std::vector<Node>& nodes_;
  std::string_view base_;
};

}  // namespace

bool ValidateNodes(const std::vector<Node>& nodes, const boost::json::value& instance,
                   std::vector<SchemaIssue>* out, std::string_view base_path) {
  return Validator(nodes, base_path).Check(0, instance, nullptr, out, 0);
}

}  // namespace cairn::json::schema_detail
