// Helpers shared by the route files of /api/tables/{tableId}/… (records, comments) and other
// routes that read integers from the query.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "common/result.hpp"
#include "config/model.hpp"
#include "http/request.hpp"
#include "records/actor.hpp"
#include "records/display_context.hpp"

namespace cairn::api {

// A positive integer id from a path segment, or nothing (such a path names no record).
std::optional<std::int64_t> ParsePositiveId(std::string_view text);
// The id passed on for a malformed one: no row has it, so lookups answer 404 after the table's
// own checks.
inline constexpr std::int64_t kNoRecord = 0;

// The query parameter `name` as an integer in [min, max]; `fallback` when it is absent; a 400
// naming it otherwise.
Result<std::int64_t> QueryInteger(const http::Request& request, std::string_view name,
                                  std::int64_t min, std::int64_t max, std::int64_t fallback);

// `format` (raw or display, D39) and `timezone` (an IANA zone) of a record read; a 400 naming
// the parameter otherwise.
Result<records::ReadFormat> ParseReadFormat(const http::Request& request);

// The table `{tableId}` names and the caller acting on it (the route requires a session).
struct TableTarget {
  const config::Table* table = nullptr;
  records::Actor actor;
};
Result<TableTarget> ResolveTableTarget(const http::Request& request,
                                       const config::AppConfig& config);

}  // namespace cairn::api
