// SQLite's halves of the db interfaces that have one implementation per backend; the dialect
// (sqlite_dialect.cpp) hands them out.
#pragma once

#include "db/introspection.hpp"
#include "db/live_row_counts.hpp"
#include "db/search_index.hpp"

namespace cairn::db::sqlite {

const SearchIndex& SqliteSearchIndex();
const LiveRowCounts& SqliteLiveRowCounts();
const Introspector& SqliteIntrospector();

}  // namespace cairn::db::sqlite
