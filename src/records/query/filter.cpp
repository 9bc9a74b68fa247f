#include "records/query/filter.hpp"

#include <algorithm>
#include <array>
#include <cstdint>

#include "common/json_input.hpp"
#include "records/limits.hpp"
#include "records/query/operand.hpp"

namespace cairn::records::query {
namespace {

enum class Op {
  kEquals,
  kNotEquals,
  kIn,
  kNotIn,
  kGreaterThan,
  kGreaterThanOrEqual,
  kLessThan,
  kLessThanOrEqual,
  kContains,
  kNotContains,
  kStartsWith,
  kEndsWith,
  kIsEmpty,
  kIsNotEmpty,
  kIsNull,
  kIsNotNull,
  kIsTrue,
  kIsFalse,
  kContainsAny,
  kContainsAll,
};

constexpr std::array<std::string_view, 20> kOperatorNames{
    "equals",      "notEquals",       "in",
    "notIn",       "greaterThan",     "greaterThanOrEqual",
    "lessThan",    "lessThanOrEqual", "contains",
    "notContains", "startsWith",      "endsWith",
    "isEmpty",     "isNotEmpty",      "isNull",
    "isNotNull",   "isTrue",          "isFalse",
    "containsAny", "containsAll"};

constexpr std::uint32_t Bit(Op op) {
  return 1U << static_cast<unsigned>(op);
}
template <typename... Ops>
constexpr std::uint32_t Bits(Ops... ops) {
  return (Bit(ops) | ...);
}

constexpr std::uint32_t kNullChecks = Bits(Op::kIsNull, Op::kIsNotNull);
constexpr std::uint32_t kEquality = Bits(Op::kEquals, Op::kNotEquals, Op::kIn, Op::kNotIn);
constexpr std::uint32_t kOrdering =
    Bits(Op::kGreaterThan, Op::kGreaterThanOrEqual, Op::kLessThan, Op::kLessThanOrEqual);
constexpr std::uint32_t kEmptiness = Bits(Op::kIsEmpty, Op::kIsNotEmpty);
constexpr std::uint32_t kTextMatch =
    Bits(Op::kContains, Op::kNotContains, Op::kStartsWith, Op::kEndsWith);

// The operators each kind of operand takes (D37).
std::uint32_t OperatorsOf(OperandKind kind) {
  switch (kind) {
    case OperandKind::kText:
      return kNullChecks | kEquality | kEmptiness | kTextMatch;
    case OperandKind::kOption:
      return kNullChecks | kEquality | kEmptiness;
    case OperandKind::kOptions:
      return kNullChecks | kEmptiness | Bits(Op::kContainsAny, Op::kContainsAll);
    case OperandKind::kNumber:
    case OperandKind::kTemporal:
      return kNullChecks | kEquality | kOrdering;
    case OperandKind::kCheckbox:
      return Bits(Op::kEquals, Op::kNotEquals, Op::kIsTrue, Op::kIsFalse);
    case OperandKind::kReference:
      return kNullChecks | kEquality;
    case OperandKind::kOpaque:
      return kNullChecks;
  }
  return kNullChecks;
}

std::string_view KindName(OperandKind kind) {
  switch (kind) {
    case OperandKind::kText:
      return "text";
    case OperandKind::kOption:
      return "single-select";
    case OperandKind::kOptions:
      return "multi-select";
    case OperandKind::kNumber:
      return "number";
    case OperandKind::kTemporal:
      return "date and time";
    case OperandKind::kCheckbox:
      return "checkbox";
    case OperandKind::kReference:
      return "reference";
    case OperandKind::kOpaque:
      return "json and attachment";
  }
  return "this";
}

std::optional<Op> ParseOp(std::string_view name) {
  for (std::size_t i = 0; i < kOperatorNames.size(); ++i) {
    if (kOperatorNames[i] == name) return static_cast<Op>(i);
  }
  return std::nullopt;
}

bool TakesNoValue(Op op) {
  return (Bit(op) & (kNullChecks | kEmptiness | Bits(Op::kIsTrue, Op::kIsFalse))) != 0;
}

class Compiler {
 public:
  Compiler(const config::Table& table, const access::TableAccess& access,
           const db::Dialect& dialect, const json::NumberTexts& numbers)
      : table_(table), access_(access), dialect_(dialect), numbers_(numbers) {}

  Status Node(const boost::json::value& node, const std::string& path, int depth,
              std::string& out) {
    if (!node.is_object()) return Fail(path, "must be an object");
    const boost::json::object& object = node.get_object();
    for (const char* group : {"and", "or"}) {
      if (const auto* items = object.if_contains(group)) {
        if (object.size() != 1) {
          return Fail(path, "a group holds only its \"" + std::string(group) + "\" list");
        }
        return Group(*items, path + "." + group, group, depth + 1, out);
      }
    }
    if (object.contains("field") && object.contains("operator")) return Leaf(object, path, out);
    if (depth > 0) {
      return Fail(path, "must be a {field, operator, value} condition or an and/or group");
    }
    return Flat(object, path, out);
  }

  std::vector<db::Value> TakeParams() { return std::move(params_); }

 private:
  Status Fail(const std::string& path, std::string message) {
    return Error::Validation("Invalid filter", {{"filter", path + ": " + std::move(message)}});
  }

  Status Count(const std::string& path) {
    if (++conditions_ > kMaxFilterConditions) {
      return Fail(path,
                  "a filter holds at most " + std::to_string(kMaxFilterConditions) + " conditions");
    }
    return {};
  }

  Status Group(const boost::json::value& items, const std::string& path, std::string_view joiner,
               int depth, std::string& out) {
    if (depth > kMaxFilterDepth) {
      return Fail(path, "groups nest at most " + std::to_string(kMaxFilterDepth) + " deep");
    }
    if (!items.is_array() || items.get_array().empty()) {
      return Fail(path, "must be a non-empty array of conditions");
    }
    const std::string sql_joiner = joiner == "and" ? " AND " : " OR ";
    out += '(';
    const boost::json::array& list = items.get_array();
    for (std::size_t i = 0; i < list.size(); ++i) {
      if (i > 0) out += sql_joiner;
      CAIRN_TRY(Node(list[i], path + "[" + std::to_string(i) + "]", depth, out));
    }
    out += ')';
    return {};
  }

  Status Flat(const boost::json::object& object, const std::string& path, std::string& out) {
    bool first = true;
    for (const auto& [key, value] : object) {
      const std::string at = path + "." + std::string(key);
      CAIRN_TRY(Count(at));
      CAIRN_ASSIGN_OR_RETURN(Operand operand, Resolve(key, at));
      if (!first) out += " AND ";
      first = false;
      const Op op = operand.kind == OperandKind::kOptions ? Op::kContainsAll : Op::kEquals;
      if ((OperatorsOf(operand.kind) & Bit(op)) == 0) {
        return Fail(at, "a " + std::string(KindName(operand.kind)) +
                            " field cannot be compared for equality; use the condition tree");
      }
      if (op == Op::kContainsAll && !value.is_array()) {
        CAIRN_TRY(Emit(operand, op, boost::json::value(boost::json::array{value}), at, out));
      } else {
        CAIRN_TRY(Emit(operand, op, value, at, out));
      }
    }
    if (first) out += "1 = 1";
    return {};
  }

  Status Leaf(const boost::json::object& object, const std::string& path, std::string& out) {
    CAIRN_TRY(Count(path));
    for (const auto& [key, value] : object) {
      if (key != "field" && key != "operator" && key != "value") {
        return Fail(path, "unexpected key \"" + std::string(key) + "\"");
      }
    }
    const boost::json::value& field = object.at("field");
    const boost::json::value& name = object.at("operator");
    if (!field.is_string()) return Fail(path + ".field", "must be a field name");
    if (!name.is_string()) return Fail(path + ".operator", "must be an operator name");
    CAIRN_ASSIGN_OR_RETURN(Operand operand, Resolve(field.get_string(), path + ".field"));
    const auto op = ParseOp(name.get_string());
    if (!op) {
      return Fail(path + ".operator", "unknown operator \"" + std::string(name.get_string()) +
                                          "\"; operators: equals, notEquals, in, notIn, "
                                          "greaterThan, greaterThanOrEqual, lessThan, "
                                          "lessThanOrEqual, contains, notContains, startsWith, "
                                          "endsWith, isEmpty, isNotEmpty, isNull, isNotNull, "
                                          "isTrue, isFalse, containsAny, containsAll");
    }
    if ((OperatorsOf(operand.kind) & Bit(*op)) == 0) {
      return Fail(path + ".operator", std::string(name.get_string()) + " does not apply to " +
                                          std::string(KindName(operand.kind)) + " field \"" +
                                          operand.name + "\"");
    }
    const boost::json::value* value = object.if_contains("value");
    if (value == nullptr && !TakesNoValue(*op)) return Fail(path + ".value", "is required");
    static const boost::json::value kNone;
    return Emit(operand, *op, value ? *value : kNone, path + ".value", out);
  }

  Result<Operand> Resolve(std::string_view name, const std::string& path) {
    auto operand = ResolveOperand(table_, access_, name, "filter");
    if (!operand.ok()) return Fail(path, "unknown field \"" + std::string(name) + "\"").error();
    return operand;
  }

  Status Bind(const Operand& operand, const boost::json::value& value, const std::string& path) {
    auto bound = OperandValue(operand, value, numbers_);
    if (!bound.ok()) return Fail(path, bound.error().message);
    params_.push_back(std::move(bound).value());
    return {};
  }

  // `?, ?, ?` for the values of an in/notIn list.
  Status BindList(const Operand& operand, const boost::json::value& value, const std::string& path,
                  std::string& out) {
    if (!value.is_array()) return Fail(path, "must be an array of values");
    const boost::json::array& values = value.get_array();
    if (values.size() > kMaxFilterValues) {
      return Fail(path, "holds at most " + std::to_string(kMaxFilterValues) + " values");
    }
    for (std::size_t i = 0; i < values.size(); ++i) {
      if (values[i].is_null()) return Fail(path, "null is no value to match; use isNull");
      CAIRN_TRY(Bind(operand, values[i], path + "[" + std::to_string(i) + "]"));
      out += i == 0 ? "?" : ", ?";
    }
    return {};
  }

  Status BindPattern(const boost::json::value& value, const std::string& path, std::string prefix,
                     std::string suffix) {
    if (!value.is_string()) return Fail(path, "must be a string");
    params_.emplace_back(prefix + db::Dialect::EscapeLike(value.get_string()) + suffix);
    return {};
  }

  Status Emit(const Operand& operand, Op op, const boost::json::value& value,
              const std::string& path, std::string& out) {
    const std::string& column = operand.column_sql;
    const std::string like =
        std::string(dialect_.CaseInsensitiveLike()) + " ?" + std::string(dialect_.LikeEscape());
    switch (op) {
      case Op::kEquals:
        if (value.is_null()) {
          out += column + " IS NULL";
          return {};
        }
        out += column + " = ?";
        return Bind(operand, value, path);
      case Op::kNotEquals:
        if (value.is_null()) {
          out += column + " IS NOT NULL";
          return {};
        }
        out += "(" + column + " <> ? OR " + column + " IS NULL)";
        return Bind(operand, value, path);
      case Op::kIn:
      case Op::kNotIn: {
        if (value.is_array() && value.get_array().empty()) {
          out += op == Op::kIn ? "1 = 0" : "1 = 1";
          return {};
        }
        out += op == Op::kIn ? column + " IN (" : "(" + column + " NOT IN (";
        CAIRN_TRY(BindList(operand, value, path, out));
        out += op == Op::kIn ? ")" : ") OR " + column + " IS NULL)";
        return {};
      }
      case Op::kGreaterThan:
      case Op::kGreaterThanOrEqual:
      case Op::kLessThan:
      case Op::kLessThanOrEqual: {
        if (value.is_null()) return Fail(path, "must not be null");
        static constexpr std::array<std::string_view, 4> kSql{" > ?", " >= ?", " < ?", " <= ?"};
        out += column;
        out += kSql[static_cast<std::size_t>(op) - static_cast<std::size_t>(Op::kGreaterThan)];
        return Bind(operand, value, path);
      }
      case Op::kContains:
        out += column + " " + like;
        return BindPattern(value, path, "%", "%");
      case Op::kNotContains:
        out += "(" + column + " IS NULL OR " + column + " NOT " + like + ")";
        return BindPattern(value, path, "%", "%");
      case Op::kStartsWith:
        out += column + " " + like;
        return BindPattern(value, path, "", "%");
      case Op::kEndsWith:
        out += column + " " + like;
        return BindPattern(value, path, "%", "");
      case Op::kIsEmpty:
      case Op::kIsNotEmpty: {
        const bool empty = op == Op::kIsEmpty;
        const std::string blank = operand.kind == OperandKind::kOptions
                                      ? dialect_.JsonArrayLength(column) + " = 0"
                                      : column + " = ''";
        out += empty ? "(" + column + " IS NULL OR " + blank + ")"
                     : "(" + column + " IS NOT NULL AND NOT (" + blank + "))";
        return {};
      }
      case Op::kIsNull:
        out += column + " IS NULL";
        return {};
      case Op::kIsNotNull:
        out += column + " IS NOT NULL";
        return {};
      case Op::kIsTrue:
        out += column + " = " + std::string(dialect_.BoolLiteral(true));
        return {};
      case Op::kIsFalse:
        out += "(" + column + " = " + std::string(dialect_.BoolLiteral(false)) + " OR " + column +
               " IS NULL)";
        return {};
      case Op::kContainsAny:
      case Op::kContainsAll:
        return Options(operand, op == Op::kContainsAny ? " OR " : " AND ", value, path, out);
    }
    return {};
  }

  // containsAny / containsAll on a multi-select: each value must be one of its options.
  Status Options(const Operand& operand, std::string_view joiner, const boost::json::value& value,
                 const std::string& path, std::string& out) {
    if (!value.is_array() || value.get_array().empty()) {
      return Fail(path, "must be a non-empty array of options");
    }
    const boost::json::array& values = value.get_array();
    if (values.size() > kMaxFilterValues) {
      return Fail(path, "holds at most " + std::to_string(kMaxFilterValues) + " values");
    }
    out += '(';
    for (std::size_t i = 0; i < values.size(); ++i) {
      const std::string at = path + "[" + std::to_string(i) + "]";
      const auto& options = operand.field->options;
      if (!values[i].is_string() ||
          std::find(options.begin(), options.end(), values[i].get_string()) == options.end()) {
        return Fail(at, "must be one of the options of \"" + operand.name + "\"");
      }
      if (i > 0) out += joiner;
      out += dialect_.JsonArrayContainsText(operand.column_sql);
      params_.emplace_back(std::string(values[i].get_string()));
    }
    out += ')';
    return {};
  }

  const config::Table& table_;
  const access::TableAccess& access_;
  const db::Dialect& dialect_;
  const json::NumberTexts& numbers_;
  std::vector<db::Value> params_;
  std::size_t conditions_ = 0;
};

Result<Condition> Compile(const boost::json::value& tree, const json::NumberTexts& numbers,
                          const config::Table& table, const access::TableAccess& access,
                          const db::Dialect& dialect) {
  Compiler compiler(table, access, dialect, numbers);
  Condition condition;
  CAIRN_TRY(compiler.Node(tree, "filter", 0, condition.sql));
  condition.params = compiler.TakeParams();
  return condition;
}

}  // namespace

Result<Condition> CompileFilter(std::string_view filter, const config::Table& table,
                                const access::TableAccess& access, const db::Dialect& dialect) {
  // Groups nest as {"and":[{…}]}: two levels each.
  auto parsed = json::ParseInput(filter, 2 * (kMaxFilterDepth + 2), "filter", "filter");
  if (!parsed.ok()) {
    const Error& error = parsed.error();
    if (!error.errors.empty()) {  // a NUL, named where it is
      return Error::Validation(
          "Invalid filter", {{"filter", error.errors[0].field + ": " + error.errors[0].message}});
    }
    return Error::Validation(
        "Invalid filter",
        {{"filter", "must be JSON (a flat object or an and/or tree): " + error.message}});
  }
  return Compile(parsed.value().value, parsed.value().numbers, table, access, dialect);
}

Result<Condition> CompileFilter(const boost::json::value& tree, const config::Table& table,
                                const access::TableAccess& access, const db::Dialect& dialect) {
  static const json::NumberTexts kNoTexts;  // a saved view's filter comes from the config
  return Compile(tree, kNoTexts, table, access, dialect);
}

}  // namespace cairn::records::query
