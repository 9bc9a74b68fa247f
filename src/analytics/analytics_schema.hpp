// The analytics tables (D54): raw page views, their daily rollups, and the module's state (the
// daily visitor secrets, how far rollups have come). Created when analytics is on.
#pragma once

#include "common/result.hpp"
#include "db/database.hpp"

namespace cairn::analytics {

Status EnsureAnalyticsSchema(db::Database& database);
// The same inside the caller's schema transaction (a publish that turns analytics on).
Status CreateAnalyticsSchema(db::Connection& connection);

}  // namespace cairn::analytics
