// The analytics routes (D54, docs/analytics.md), registered only when `analytics` is truthy:
//   POST /api/analytics/collect   204, no session, no cookie (rate limited per address)
//   GET  /api/analytics/script.js the tracker
//   GET  /api/analytics/{overview,pages,referrers,devices,campaigns,events}  admins only:
//        no session 401, any other role 404 (the reports do not exist for them)
#pragma once

#include "analytics/analytics_service.hpp"
#include "common/result.hpp"
#include "http/router.hpp"

namespace cairn::api {

// `sessions`: the config has auth (without it nobody can be an admin, so reports answer 401).
Status AddAnalyticsRoutes(http::Router& router, analytics::AnalyticsService& service,
                          bool sessions);

}  // namespace cairn::api
