// The schema fragments every document shares (the error envelope, pagination, the record
// shapes) and the per-table record schemas built from the field codecs' JSON Schemas: the same
// codecs that check every write, so the documents cannot drift from what the API accepts.
#pragma once

#include <string>
#include <string_view>

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include "config/model.hpp"

namespace cairn::openapi {

// Names of the shared components. A route spec names the generic record shapes; in a path
// expanded for one table the generator points them at that table's own shapes.
inline constexpr std::string_view kErrorEnvelope = "ErrorEnvelope";
inline constexpr std::string_view kPagination = "Pagination";
inline constexpr std::string_view kRecord = "Record";              // a record as read
inline constexpr std::string_view kRecordCreate = "RecordCreate";  // POST body {fields}
inline constexpr std::string_view kRecordUpdate =
    "RecordUpdate";                                            // PATCH body {fields, updatedAt?}
inline constexpr std::string_view kRecordList = "RecordList";  // {records, pagination, …}
inline constexpr std::string_view kRecordFields = "RecordFields";  // the fields object
// The same shapes as a read with format=display answers them (D39): field values as display
// forms, from each field codec's DisplayJsonSchema.
inline constexpr std::string_view kRecordDisplay = "RecordDisplay";
inline constexpr std::string_view kRecordListDisplay = "RecordListDisplay";
inline constexpr std::string_view kRecordFieldsDisplay = "RecordFieldsDisplay";

// Marks the record and list components with the read format that answers them: "raw" or
// "display". An answer that may be either (a read taking `format`) is the `anyOf` of both; a
// tool that knows the request's `format` picks the branch so marked.
inline constexpr std::string_view kFormatExtension = "x-cairn-format";

// {"$ref":"#/components/schemas/<name>"}.
boost::json::value SchemaRef(std::string_view name);
// {"type":"array","items":<ref name>}.
boost::json::value ArrayOf(std::string_view name);

// The components every document has: the envelope, pagination, the generic record shapes.
boost::json::object SharedSchemas();

// The name prefix of a table's record components: its slug in PascalCase ("to-do" → "ToDo").
std::string TableSchemaPrefix(const config::Table& table);

// {"anyOf": [raw, display]}: the answer of a read that takes `format`.
boost::json::value RawOrDisplay(std::string_view raw, std::string_view display);

// Adds <prefix>Record, <prefix>RecordCreate, <prefix>RecordUpdate, <prefix>RecordList,
// <prefix>RecordFields and the display shapes (<prefix>RecordDisplay, <prefix>RecordListDisplay,
// <prefix>RecordFieldsDisplay) for `table` to `schemas`.
void AddTableSchemas(const config::Table& table, boost::json::object& schemas);

}  // namespace cairn::openapi
