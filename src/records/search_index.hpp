// The full-text index behind `q` (D37), kept in step with every write by the database itself.
// SQLite: one FTS5 table per table with searchable fields (tokenize='trigram': substring matches
// of 3+ characters, case-insensitive), external content over the table, and triggers on insert,
// delete and updates of the searchable columns. Its name carries a fingerprint of its columns,
// so a config change swaps it for a new one, rebuilt from the table. PostgreSQL: a pg_trgm GIN
// index per searchable column, which serves the same ILIKE '%q%' the query runs (when the
// extension cannot be created, search still works, without the index).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "config/model.hpp"
#include "db/database.hpp"

namespace cairn::records {

// single-line-text, long-text, email, url, phone-number, single-select, multi-select.
bool IsSearchable(const config::Field& field);

// The SQLite FTS5 table of `table` (quoted), or none when it has no searchable field.
std::optional<std::string> SearchIndexSql(const config::Table& table);

// Creates, repairs and drops the indexes so that they match `config`; run at startup, after the
// schema migration.
Status EnsureSearchIndexes(db::Database& database, const config::AppConfig& config);

}  // namespace cairn::records
