// GET /api/activity and GET /api/activity/{activityId} (D50): the activity log, for admins.
// Registered only when the config has an `auth` section: the session layer answers 401 before
// the handler runs, and the handler answers 403 to every role but admin.
#pragma once

#include "common/result.hpp"
#include "db/database.hpp"
#include "http/router.hpp"

namespace cairn::api {

Status AddActivityRoutes(http::Router& router, db::Database& database);

}  // namespace cairn::api
