// GET /api/tables/{tableId}/subscribe (D53): the checks of a subscription, answered before the
// upgrade (401, 404 without read access, 400 for a bad filter, 429 past the per-user limit), then
// the WebSocket handed to the realtime module.
#pragma once

#include "common/result.hpp"
#include "config/model.hpp"
#include "http/router.hpp"
#include "realtime/hub.hpp"
#include "records/record_service.hpp"

namespace cairn::api {

Status AddRealtimeRoutes(http::Router& router, const config::AppConfig& config,
                         records::RecordService& records, realtime::Hub& hub);

}  // namespace cairn::api
