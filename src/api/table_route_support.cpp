#include "api/table_route_support.hpp"

#include <charconv>

#include "api/session_layer.hpp"

namespace cairn::api {

std::optional<std::int64_t> ParsePositiveId(std::string_view text) {
  std::int64_t id = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), id);
  if (ec != std::errc() || end != text.data() + text.size() || id < 1) return std::nullopt;
  return id;
}

Result<std::int64_t> QueryInteger(const http::Request& request, std::string_view name,
                                  std::int64_t min, std::int64_t max, std::int64_t fallback) {
  const auto text = request.Query(name);
  if (!text) return fallback;
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), value);
  if (ec != std::errc() || end != text->data() + text->size() || value < min || value > max) {
    return Error::Validation("Invalid query parameter",
                             {{std::string(name), "must be an integer from " + std::to_string(min) +
                                                      " to " + std::to_string(max)}});
  }
  return value;
}

Result<records::ReadFormat> ParseReadFormat(const http::Request& request) {
  records::ReadFormat format;
  if (const auto text = request.Query("format")) {
    if (*text != "raw" && *text != "display") {
      return Error::Validation("Invalid query parameter", {{"format", "must be raw or display"}});
    }
    format.display = *text == "display";
  }
  if (const auto zone = request.Query("timezone")) {
    CAIRN_TRY(records::CheckTimeZone(*zone));
    format.timezone = std::string(*zone);
  }
  return format;
}

Result<TableTarget> ResolveTableTarget(const http::Request& request,
                                       const config::AppConfig& config) {
  const auth::Caller* caller = CallerOf(request);
  if (caller == nullptr) return Error::Unauthorized();
  TableTarget target;
  target.table = config.FindTable(request.PathParam("tableId"));
  if (target.table == nullptr) return Error::NotFound("Table not found");
  target.actor = {caller->user.id, caller->user.role, request.client_address,
                  std::string(request.Header("User-Agent"))};
  return target;
}

}  // namespace cairn::api
