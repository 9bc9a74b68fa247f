// POST /mcp: the Model Context Protocol server (D55, src/mcp) for admins. Registered only when
// the config has an `auth` section: the session layer (cookie or Bearer) answers 401 before the
// handler runs; the handler answers 403 to anyone but an admin, or an admin's impersonation
// session (whose tools then act as the impersonated user, as its REST calls do), and to a
// browser Origin that is not trusted (DNS rebinding; the transport requires the check).
// GET and DELETE /mcp answer 405: no server-initiated stream, no MCP sessions.
#pragma once

#include <string>
#include <vector>

#include "auth/auth_service.hpp"
#include "common/result.hpp"
#include "config/model.hpp"
#include "http/router.hpp"

namespace cairn::api {

// `config` is the configuration this route table is built from (its tables become record tools
// over this table's record routes); `trusted_origins` as for the origin check.
Status AddMcpRoutes(http::Router& router, const config::AppConfig& config, auth::AuthService& auth,
                    std::vector<std::string> trusted_origins);

}  // namespace cairn::api
