// Rebasing a stale draft (D51): the draft was edited from `base`, another publish made `active`.
// A three-way merge per top-level key and per table (by id, else name): what the draft left as
// it was in `base` takes the active version's value; what the draft changed stays the draft's.
#pragma once

#include <boost/json/value.hpp>

namespace cairn::schema_edit {

boost::json::value RebaseSnapshot(const boost::json::value& base, const boost::json::value& draft,
                                  const boost::json::value& active);

}  // namespace cairn::schema_edit
