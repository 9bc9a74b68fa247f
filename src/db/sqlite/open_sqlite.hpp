// The SQLite backend's entry point (driver-free header, used by db/open_database.cpp).
#pragma once

#include <memory>

#include "common/result.hpp"
#include "db/database.hpp"

namespace cairn::db::sqlite {

// Opens (creating if needed) the database file at options.sqlite_path in WAL mode, with one
// writer connection, a pool of readers and a background WAL checkpointer.
Result<std::unique_ptr<Database>> OpenSqliteDatabase(const DatabaseOptions& options);

}  // namespace cairn::db::sqlite
