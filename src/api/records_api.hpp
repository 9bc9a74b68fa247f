// /api/tables/{tableId}/records…: the records API of every configured table (interface.md
// "Records", D30–D35) over records::RecordService. Every route needs a session (D17).
#pragma once

#include "common/result.hpp"
#include "config/model.hpp"
#include "http/router.hpp"
#include "records/record_service.hpp"

namespace cairn::api {

Status AddRecordRoutes(http::Router& router, const config::AppConfig& config,
                       records::RecordService& records);

}  // namespace cairn::api
