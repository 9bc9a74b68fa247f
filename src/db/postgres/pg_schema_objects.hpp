// PostgreSQL's halves of the db interfaces that have one implementation per backend; the
// dialect (pg_dialect.cpp) hands them out.
#pragma once

#include "db/introspection.hpp"
#include "db/live_row_counts.hpp"
#include "db/search_index.hpp"

namespace cairn::db::postgres {

const SearchIndex& PgSearchIndex();
const LiveRowCounts& PgLiveRowCounts();
const Introspector& PgIntrospector();

}  // namespace cairn::db::postgres
