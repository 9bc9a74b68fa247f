// One codec per field type (D31) owns everything type-specific: the column that stores it (the
// physical model and so the migration read it here), how it compares in a filter, whether `q`
// searches it, how a JSON value in a write body becomes the value bound to its column, how the
// column is written back as JSON and shown for people, and the value's JSON Schema (kept for a
// OpenAPI documents, beside the schema of its display form). Each type lives in its own file
// under records/fields/ and is listed once in the registry (fields/registry.cpp);
// docs/architecture.md says how to add one.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <boost/json/value.hpp>

#include "common/json_input.hpp"
#include "common/result.hpp"
#include "config/model.hpp"
#include "db/dialect.hpp"
#include "db/row.hpp"
#include "db/value.hpp"
#include "records/attachment_files.hpp"
#include "records/display_context.hpp"

namespace cairn::records {

// How a value compares in a filter, which decides the operators it accepts (D37; the operators
// of each kind are listed in query/filter.cpp).
enum class OperandKind {
  kText,       // single-line-text, long-text, email, url, phone-number
  kOption,     // single-select
  kOptions,    // multi-select (a JSON array of options)
  kNumber,     // integer, decimal, currency, percentage, duration, id
  kTemporal,   // date, datetime, time, updated-at, createdAt, updatedAt
  kCheckbox,   // checkbox
  kReference,  // many-to-one relationship, created-by, updated-by, deleted-by
  kOpaque,     // json, attachments: only null checks
};

class FieldCodec {
 public:
  virtual ~FieldCodec() = default;

  // The column that holds the value, as a semantic type each backend maps to its own SQL type
  // (db::Dialect::ColumnTypeSql); none for fields without a column of their own (one-to-many
  // and many-to-many relationships). schema::BuildSchemaModel creates the columns from this.
  virtual std::optional<db::ColumnType> Column(const config::Field& field) const = 0;

  // How the value compares in a filter (and which aggregates take it).
  virtual OperandKind Comparison() const = 0;

  // Whether `q` looks for its text (D37).
  virtual bool Searchable() const { return false; }

  // False for the server-controlled types (created-by, updated-by, deleted-by, updated-at) and
  // one-to-many relationships: writing them is a 400 naming the field.
  virtual bool Writable(const config::Field& field) const;

  // The value to bind for `input` (JSON null → db::Null, which `required` checks later).
  // Errors are Error::Validation with a message about the value only; the caller names the
  // field (`fields.email`, `records[3].fields.email`).
  virtual Result<db::Value> Parse(const config::Field& field,
                                  const boost::json::value& input) const = 0;

  // Parse for a JSON number `input` that the client wrote as `written` (kept by the JSON
  // parser for fractions, exponents and integers beyond 64 bits, where a double loses digits).
  // The exact-number types check the written text (D9); the others take the parsed number.
  virtual Result<db::Value> ParseWritten(const config::Field& field,
                                         const boost::json::value& input,
                                         std::string_view written) const;

  // Parse for a write when file storage is configured (D45): the attachment types ask `files`
  // whether each file exists in the field's bucket, check its real type and size against the
  // field, and store the size and type storage reports (not the client's). Called before the
  // write transaction. Errors other than Error::Validation (storage failing) are the request's.
  // The default is Parse.
  virtual Result<db::Value> ParseWithFiles(const config::Field& field,
                                           const boost::json::value& input,
                                           const AttachmentFiles& files) const;

  // Appends the JSON of the value in `column` of `row` (`null` when the column is NULL): the
  // stored value, as history and the activity log keep it.
  virtual void AppendJson(const config::Field& field, const db::Row& row, int column,
                          std::string& out) const = 0;

  // AppendJson as a read answers it when file storage is configured: the attachment types add
  // each file's links from `files` (signed URLs are minted at read time, never stored; D45).
  // Pure CPU. The default is AppendJson.
  virtual void AppendReadJson(const config::Field& field, const db::Row& row, int column,
                              const AttachmentFiles& files, std::string& out) const;

  // The JSON Schema of the field's value on the wire (nullable unless required).
  virtual boost::json::value JsonSchema(const config::Field& field) const = 0;

  // The JSON Schema of AppendDisplay's output (nullable unless required), for the OpenAPI
  // documents' display shapes. A codec that overrides AppendDisplayValue overrides this beside
  // it, from the same formatter; the default is JsonSchema, as the default display is the raw
  // JSON.
  virtual boost::json::value DisplayJsonSchema(const config::Field& field) const;

  // Appends the value's display form for `format=display` (D39): a JSON string for numbers,
  // dates, times, durations and json (`"$1,234.50"`, `"Nov 24, 2026, 8:44 AM"`), attachment
  // objects with display names; a NULL column stays null.
  void AppendDisplay(const config::Field& field, const db::Row& row, int column,
                     DisplayContext& context, std::string& out) const;

 protected:
  // The display form of a column that is not NULL. The default is the raw JSON, for the types
  // whose stored value is already what a person reads (text, selects, checkbox, relationships).
  virtual void AppendDisplayValue(const config::Field& field, const db::Row& row, int column,
                                  DisplayContext& context, std::string& out) const;
};

// The codec's ParseWritten when `numbers` holds the text `input` was written as, else its
// ParseWithFiles when `files` is given (file storage configured), else its Parse.
Result<db::Value> ParseFieldValue(const config::Field& field, const boost::json::value& input,
                                  const json::NumberTexts& numbers,
                                  const AttachmentFiles* files = nullptr);

// The codec of a field type; every type has one.
const FieldCodec& CodecOf(config::FieldType type);
inline const FieldCodec& CodecOf(const config::Field& field) {
  return CodecOf(field.type);
}

}  // namespace cairn::records
