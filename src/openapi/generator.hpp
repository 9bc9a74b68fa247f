// Builds the two OpenAPI 3.1 documents from a route table: the application API and the auth
// surface (every route under /api/auth/). Every route appears with what its spec says; routes
// under /api/tables/{tableId} appear once per configured table, with that table's record
// shapes. No server types: the input is the route list and the config.
#pragma once

#include <span>
#include <string>

#include <boost/json/value.hpp>

#include "config/model.hpp"
#include "http/route.hpp"

namespace cairn::openapi {

inline constexpr std::string_view kAuthPrefix = "/api/auth/";
inline constexpr std::string_view kTablePrefix = "/api/tables/{tableId}";
// The path item extension naming the table a path was expanded for.
inline constexpr std::string_view kTableExtension = "x-cairn-table";

struct Documents {
  boost::json::value app;
  boost::json::value auth;
};

Documents GenerateDocuments(std::span<const http::Route* const> routes,
                            const config::AppConfig& config);

}  // namespace cairn::openapi
