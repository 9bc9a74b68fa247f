// The comments table, `_cairn_comments` (D36): cairn's own (a name no config table can take),
// created at startup whatever the config holds, so that a record's permanent delete can always
// remove its comments. A comment belongs to (table_name, record_id): the config table's name, as
// the activity log stores it, and the record's id. Times are epoch milliseconds. No foreign keys:
// the record lives in a config table and the author in the auth tables, which may be absent.
#pragma once

#include "common/result.hpp"
#include "db/database.hpp"

namespace cairn::records {

// Creates the table and its index when absent. Idempotent; serialized across nodes on
// PostgreSQL (the migration lock).
Status EnsureCommentSchema(db::Database& database);

}  // namespace cairn::records
