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

// {"$ref":"#/components/schemas/<name>"}.
boost::json::value SchemaRef(std::string_view name);
// {"type":"array","items":<ref name>}.
boost::json::value ArrayOf(std::string_view name);

// The components every document has: the envelope, pagination, the generic record shapes.
boost::json::object SharedSchemas();

// The name prefix of a table's record components: its slug in PascalCase ("to-do" → "ToDo").
std::string TableSchemaPrefix(const config::Table& table);

// Adds <prefix>Record, <prefix>RecordCreate, <prefix>RecordUpdate, <prefix>RecordList and
// <prefix>RecordFields for `table` to `schemas`.
void AddTableSchemas(const config::Table& table, boost::json::object& schemas);

}  // namespace cairn::openapi
