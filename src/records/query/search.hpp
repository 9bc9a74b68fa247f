// The `q` list parameter (D37): records where any readable text-like field (single-line-text,
// long-text, email, url, phone-number, single-select, multi-select) contains `q`, ignoring case.
// At most kMaxSearchLength characters.
#pragma once

#include <string_view>

#include "access/table_access.hpp"
#include "common/result.hpp"
#include "db/dialect.hpp"
#include "records/query/filter.hpp"

namespace cairn::records::query {

// The backend decides how `q` is matched (db/search_index.hpp): on SQLite, 3+ characters go
// through the table's trigram index.
Result<Condition> CompileSearch(std::string_view q, const config::Table& table,
                                const access::TableAccess& access, const db::Dialect& dialect);

}  // namespace cairn::records::query
