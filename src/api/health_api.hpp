// GET /api/health (D56).
#pragma once

#include <string>

#include "db/database.hpp"
#include "http/router.hpp"

namespace cairn::api {

struct HealthInfo {
  std::string app_name;
  std::string app_version;
};

Status AddHealthRoutes(http::Router& router, db::Database& database, HealthInfo info);

}  // namespace cairn::api
