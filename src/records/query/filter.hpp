// The `filter` list parameter (D37) compiled to a SQL condition with bound values only. Two
// shapes: a flat object (`{"status":"open","owner":"7"}`, an AND of equals) and a tree of
// `{"and":[…]}` / `{"or":[…]}` groups holding `{field, operator, value}` conditions. Each operator
// is checked against the field's type; unknown and unreadable fields answer alike (D21). Limits
// (records/limits.hpp): nesting, number of conditions, values per list; past them → 400.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <boost/json/value.hpp>

#include "access/table_access.hpp"
#include "common/result.hpp"
#include "config/model.hpp"
#include "db/dialect.hpp"
#include "db/value.hpp"

namespace cairn::records::query {

// A SQL boolean expression over the table's columns (unqualified) with `?` placeholders, and the
// values they bind, in order. Empty `sql`: no condition.
struct Condition {
  std::string sql;
  std::vector<db::Value> params;
};

// `filter` is the parameter's text (JSON). Errors are 400s naming `filter`.
Result<Condition> CompileFilter(std::string_view filter, const config::Table& table,
                                const access::TableAccess& access, const db::Dialect& dialect);
// The same for a tree already parsed (a saved view's `filters`).
Result<Condition> CompileFilter(const boost::json::value& tree, const config::Table& table,
                                const access::TableAccess& access, const db::Dialect& dialect);

}  // namespace cairn::records::query
