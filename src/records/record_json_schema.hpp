// The JSON Schema of a record write body (D30, D31) for one table, from the field codecs: what
// generated tool and API descriptions show. The record service still validates every write
// itself (access, required fields, files); these schemas only describe the input.
#pragma once

#include <boost/json/object.hpp>

#include "config/model.hpp"

namespace cairn::records {

enum class RecordWriteKind { kCreate, kUpdate };

// `{fields:{…}}` for a create, `{fields:{…}, updatedAt?}` for an update: every writable field of
// `table` with its codec's JSON Schema; on create the required fields without a default are
// required.
boost::json::object RecordWriteSchema(const config::Table& table, RecordWriteKind kind);

}  // namespace cairn::records
