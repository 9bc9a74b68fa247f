// GET /api/health (D56).
#pragma once

#include <string>

#include "api/database_liveness.hpp"
#include "http/router.hpp"

namespace cairn::api {

struct HealthInfo {
  std::string app_name;
  std::string app_version;
};

// The route answers from `liveness` without touching the database itself, so it runs on the
// network thread.
Status AddHealthRoutes(http::Router& router, const DatabaseLiveness& liveness, HealthInfo info);

}  // namespace cairn::api
