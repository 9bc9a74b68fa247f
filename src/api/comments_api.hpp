// /api/tables/{tableId}/records/{recordId}/comments…: comments on records (interface.md
// "Records", D36) over records::CommentService. Every route needs a session (D17).
#pragma once

#include "access/access_index.hpp"
#include "common/result.hpp"
#include "config/model.hpp"
#include "db/database.hpp"
#include "http/router.hpp"

namespace cairn::api {

// The routes own their CommentService; `config`, `database` and `access` must outlive the router.
Status AddCommentRoutes(http::Router& router, const config::AppConfig& config,
                        db::Database& database, const access::AccessIndex& access);

}  // namespace cairn::api
