// Converting a field's stored values when a new schema version changes its type (D51). A value
// is read back as the API answers it (the old type's codec), mapped by the conversion matrix
// (docs/schema-editing.md) and checked by the new type's codec exactly as a write would be, so
// every converted value is one the API would have accepted. Nothing is rounded, cut or guessed:
// a value the matrix or the codec refuses fails the whole conversion, naming its record.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"
#include "config/model.hpp"
#include "db/database.hpp"
#include "db/value.hpp"

namespace cairn::schema {

// A field of a record table whose type (or column type: a decimal's scale) changes.
struct FieldConversion {
  std::string table;   // physical name, after renames
  std::string column;  // after renames
  std::string label;   // `notes.title`, for errors
  config::Field from;  // as the active version has it
  config::Field to;    // as the new version has it
};

// The value a write of `conversion.to` stores for `stored_json`, a value of `conversion.from` as
// the API answers it (its codec's AppendJson), or the reason it cannot convert
// (Error::Validation with a message about the value).
Result<db::Value> ConvertStoredJson(const FieldConversion& conversion,
                                    std::string_view stored_json);

struct ConvertedValue {
  std::int64_t record = 0;
  db::Value value;
};

// Every stored value of the field converted (trashed records included), read from `table` and
// `column` (the names before the migration's renames when it has not applied them). Fails with
// kValidation, reason UNCONVERTIBLE_TYPE_CHANGE, naming the field and the first record whose
// value cannot convert.
Result<std::vector<ConvertedValue>> ConvertStoredValues(db::Connection& connection,
                                                        const FieldConversion& conversion,
                                                        const std::string& table,
                                                        const std::string& column);

// Writes the converted values back into the (re-created) column, kConversionWriteBatch rows per
// statement; a unique index the converted values collide on fails as UNCONVERTIBLE_TYPE_CHANGE
// naming the records of the batch.
Status WriteConvertedValues(db::Connection& connection, const FieldConversion& conversion,
                            const std::vector<ConvertedValue>& values);

// The error naming the field and a record (`record` absent: rows without ids).
Error UnconvertibleError(const std::string& label, const config::Field* from,
                         const config::Field* to, std::optional<std::int64_t> record,
                         const std::string& reason);

}  // namespace cairn::schema
