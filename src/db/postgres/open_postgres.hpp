// The PostgreSQL backend's entry point (driver-free header, used by db/open_database.cpp).
#pragma once

#include <memory>

#include "common/result.hpp"
#include "db/database.hpp"

namespace cairn::db::postgres {

// Connects to options.url (any libpq URI: postgres://… or postgresql://…, including
// `?host=/socket/dir` and `options=-csearch_path%3Dx`) with a bounded pool of connections. One
// connection is opened at once so that a bad URL fails at startup.
Result<std::unique_ptr<Database>> OpenPostgresDatabase(const DatabaseOptions& options);

}  // namespace cairn::db::postgres
