// What a list query may name (D37): a readable field with a column of its own, or one of the
// system keys `id`, `createdAt`, `updatedAt`, `createdBy`, `updatedBy`. A field the caller may not
// read resolves exactly like one that does not exist (D21), so no value can be probed.
#pragma once

#include <string>
#include <string_view>

#include <boost/json/value.hpp>

#include "access/table_access.hpp"
#include "common/json_input.hpp"
#include "common/result.hpp"
#include "config/model.hpp"
#include "db/value.hpp"
#include "records/field_codec.hpp"

namespace cairn::records::query {

struct Operand {
  std::string name;                         // as the caller wrote it
  std::string column_sql;                   // quoted column
  OperandKind kind = OperandKind::kOpaque;  // a field's: its codec's Comparison()
  const config::Field* field = nullptr;     // null for system keys
};

// The operand `name` names, or a 400 naming `parameter` ("unknown field" for missing, hidden
// and column-less fields alike).
Result<Operand> ResolveOperand(const config::Table& table, const access::TableAccess& access,
                               std::string_view name, std::string_view parameter);

// A JSON value compared with `operand`, as the value bound for its column (a decimal is scaled
// like the stored one, a datetime becomes a timestamp). Range rules (min, max) do not apply: a
// filter may ask for any value of the type. Numbers are read from their written text when
// `numbers` holds it. Errors are messages about the value only.
Result<db::Value> OperandValue(const Operand& operand, const boost::json::value& value,
                               const json::NumberTexts& numbers);

}  // namespace cairn::records::query
