// The activity log's table, `_cairn_activity`: cairn's own (a name no config table can take),
// created at startup whatever the config holds, since record events are written with or without
// an `auth` section. Times are epoch milliseconds; `changes` and `metadata` hold JSON text.
#pragma once

#include "common/result.hpp"
#include "db/database.hpp"

namespace cairn::activity {

// Creates the table and its indexes when absent. Idempotent; serialized across nodes on
// PostgreSQL.
Status EnsureActivitySchema(db::Database& database);

}  // namespace cairn::activity
