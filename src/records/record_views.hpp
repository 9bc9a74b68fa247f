// Saved views of a table (interface.md "Views"): lookup by id or name, and their sorts as the
// `sort` parameter's text. Internal to records/.
#pragma once

#include <string>
#include <string_view>

#include "config/model.hpp"

namespace cairn::records {

const config::View* FindView(const config::Table& table, std::string_view id_or_name);
// `field:asc,other:desc`.
std::string ViewSortText(const config::View& view);

}  // namespace cairn::records
