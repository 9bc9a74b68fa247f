// Validation of a write body's `fields` (D31) against the table and the caller's field rules
// (D21): unknown fields, `id`, read-only types and fields the caller may not write are 400s
// naming the field; every value goes through its type's codec; on create, defaults fill absent
// fields and required fields must end up non-null. Every problem is reported at once.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <boost/json/value.hpp>

#include "access/table_access.hpp"
#include "common/json_input.hpp"
#include "common/result.hpp"
#include "config/model.hpp"
#include "db/value.hpp"

namespace cairn::records {

struct FieldWrite {
  const config::Field* field;
  db::Value value;
};

enum class WriteKind { kCreate, kUpdate };

// `fields` is the body's `fields` member and `numbers` the written text of the body's numbers;
// `path` names it in errors (`fields`, `records[3].fields`).
Result<std::vector<FieldWrite>> ParseFieldWrites(const config::Table& table,
                                                 const access::TableAccess& access,
                                                 const boost::json::value* fields,
                                                 const json::NumberTexts& numbers, WriteKind kind,
                                                 std::string_view path);

}  // namespace cairn::records
