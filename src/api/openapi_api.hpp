// The OpenAPI documents and the explorer (D52): GET /api/openapi.json, /api/auth/openapi.json
// and /api/scalar, admin only (no session → 401, another role → 404), registered only with
// auth. docs/openapi.md describes them.
#pragma once

#include "config/model.hpp"
#include "http/router.hpp"

namespace cairn::api {

Status AddOpenApiRoutes(http::Router& router, const config::AppConfig& config);

}  // namespace cairn::api
