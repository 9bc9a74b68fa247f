// The `q` index (D37) in config terms: which columns of which table are searchable. The index
// itself is the backend's (db/search_index.hpp: SQLite FTS5 trigram tables, PostgreSQL pg_trgm
// GIN indexes).
#pragma once

#include "common/result.hpp"
#include "config/model.hpp"
#include "db/database.hpp"
#include "db/search_index.hpp"

namespace cairn::records {

// The column of a searchable field (its codec says which are).
db::SearchColumn SearchColumnOf(const config::Field& field);
// `table` and all its searchable columns (what the index covers, whoever asks).
db::SearchTable SearchTableOf(const config::Table& table);

// Creates, repairs and drops the indexes so that they match `config`; run at startup, after the
// schema migration.
Status EnsureSearchIndexes(db::Database& database, const config::AppConfig& config);

}  // namespace cairn::records
