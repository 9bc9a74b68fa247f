// `fields=` (D37): the readable fields it names, in config order; unknown and unreadable names
// are left out silently (D21). Internal to records/.
#pragma once

#include <string_view>
#include <vector>

#include "access/table_access.hpp"
#include "config/model.hpp"

namespace cairn::records::detail {

std::vector<const config::Field*> SelectedFields(const access::TableAccess& access,
                                                 std::string_view names);

}  // namespace cairn::records::detail
