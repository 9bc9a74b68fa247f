#include "api/activity_api.hpp"

#include <charconv>
#include <limits>
#include <stdexcept>

#include <boost/json.hpp>

#include "activity/activity.hpp"
#include "activity/limits.hpp"
#include "api/session_layer.hpp"
#include "common/json.hpp"
#include "common/log.hpp"
#include "common/time.hpp"

namespace cairn::api {
namespace {

using http::Request;
using http::Response;

constexpr std::int64_t kDayMillis = 24LL * 60 * 60 * 1000;

Error InvalidParameter(std::string_view name, std::string message) {
  return Error::Validation("Invalid query parameter", {{std::string(name), std::move(message)}});
}

// The query value of `name` when present and not empty (an empty value is no filter).
std::optional<std::string> QueryText(const Request& request, std::string_view name) {
  auto value = request.Query(name);
  if (!value || value->empty()) return std::nullopt;
  return std::string(*value);
}

Result<int> QueryInt(const Request& request, std::string_view name, int fallback, int min,
                     int max) {
  const auto text = request.Query(name);
  if (!text || text->empty()) return fallback;
  int value = 0;
  auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), value);
  if (ec != std::errc() || end != text->data() + text->size() || value < min || value > max) {
    return InvalidParameter(name, max == std::numeric_limits<int>::max()
                                      ? "must be an integer of at least " + std::to_string(min)
                                      : "must be an integer from " + std::to_string(min) + " to " +
                                            std::to_string(max));
  }
  return value;
}

// An ISO 8601 time with an offset (`2026-01-31T12:00:00Z`), or a date alone, which means the
// start of that day (UTC) for `from` and its last millisecond for `to`, so both stay inclusive.
Result<std::optional<std::int64_t>> QueryTime(const Request& request, std::string_view name,
                                              bool end_of_day) {
  auto text = QueryText(request, name);
  if (!text) return std::optional<std::int64_t>();
  if (text->size() == 10) {
    if (auto day = time::ParseIso(*text + "T00:00:00Z")) {
      return std::optional<std::int64_t>(end_of_day ? *day + kDayMillis - 1 : *day);
    }
  }
  // A `+` in a query string reads as a space: an offset like `+02:00` arrives as ` 02:00`.
  for (std::size_t i = 11; i < text->size(); ++i) {
    if ((*text)[i] == ' ') (*text)[i] = '+';
  }
  if (auto millis = time::ParseIso(*text)) return std::optional<std::int64_t>(*millis);
  return InvalidParameter(name,
                          "must be an ISO 8601 date or time with an offset, such as "
                          "2026-01-31 or 2026-01-31T12:00:00Z");
}

Result<activity::ActivityQuery> ParseQuery(const Request& request) {
  activity::ActivityQuery query;
  CAIRN_ASSIGN_OR_RETURN(query.page,
                         QueryInt(request, "page", 1, 1, std::numeric_limits<int>::max()));
  CAIRN_ASSIGN_OR_RETURN(query.page_size, QueryInt(request, "pageSize", activity::kDefaultPageSize,
                                                   1, activity::kMaxPageSize));
  query.table_name = QueryText(request, "table");
  if (!query.table_name) query.table_name = QueryText(request, "tableName");
  query.action = QueryText(request, "action");
  query.user_id = QueryText(request, "userId");
  CAIRN_ASSIGN_OR_RETURN(query.from_millis, QueryTime(request, "from", false));
  CAIRN_ASSIGN_OR_RETURN(query.to_millis, QueryTime(request, "to", true));
  if (query.from_millis && query.to_millis && *query.from_millis > *query.to_millis) {
    return InvalidParameter("from", "must not be after to");
  }
  return query;
}

// Every role but admin is refused; the session layer has already refused nobody (D17).
Status RequireAdmin(const Request& request) {
  const auth::Caller* caller = CallerOf(request);
  if (caller == nullptr) throw std::logic_error("activity routes need requires_session");
  if (caller->user.role != "admin") {
    return Error::Forbidden("Only admins may read the activity log");
  }
  return {};
}

void AppendOptionalString(std::string& out, const std::optional<std::string>& text) {
  if (text) {
    json::AppendString(out, *text);
  } else {
    out += "null";
  }
}

// Stored JSON text, re-serialized so that the answer is valid JSON whatever was stored.
void AppendStoredJson(std::string& out, const std::optional<std::string>& text, std::int64_t id) {
  if (!text) {
    out += "null";
    return;
  }
  boost::system::error_code ec;
  const boost::json::value value = boost::json::parse(*text, ec);
  if (ec) {
    log::Warn("activity entry " + std::to_string(id) + " holds invalid JSON: " + ec.message());
    out += "null";
    return;
  }
  json::Append(out, value);
}

// {id, action, tableName, recordId?, createdAt, user} without the closing brace.
void AppendItemMembers(std::string& out, const activity::ActivityItem& item) {
  out += R"({"id":")";
  out += std::to_string(item.id);
  out += R"(","action":)";
  json::AppendString(out, item.action);
  out += R"(,"tableName":)";
  AppendOptionalString(out, item.table_name);
  if (item.record_id) {
    out += R"(,"recordId":)";
    out += std::to_string(*item.record_id);
  }
  out += R"(,"createdAt":")";
  time::AppendIso(out, item.created_at);
  out += R"(","user":)";
  // No account behind the entry (erased, or the system acted): null (D50 rule 2).
  if (item.user_id && item.user_name && item.user_email) {
    out += R"({"id":)";
    json::AppendString(out, *item.user_id);
    out += R"(,"name":)";
    json::AppendString(out, *item.user_name);
    out += R"(,"email":)";
    json::AppendString(out, *item.user_email);
    out += '}';
  } else {
    out += "null";
  }
}

Result<Response> ListActivity(db::Database& database, Request& request) {
  CAIRN_TRY(RequireAdmin(request));
  CAIRN_ASSIGN_OR_RETURN(const activity::ActivityQuery query, ParseQuery(request));
  CAIRN_ASSIGN_OR_RETURN(const activity::ActivityPage page,
                         activity::ListActivity(database, query));
  std::string out = R"({"activities":[)";
  for (std::size_t i = 0; i < page.entries.size(); ++i) {
    if (i > 0) out += ',';
    AppendItemMembers(out, page.entries[i]);
    out += '}';
  }
  const std::int64_t total_pages = (page.total + query.page_size - 1) / query.page_size;
  out += R"(],"pagination":{"total":)" + std::to_string(page.total) + R"(,"page":)" +
         std::to_string(query.page) + R"(,"pageSize":)" + std::to_string(query.page_size) +
         R"(,"totalPages":)" + std::to_string(total_pages) + "}}";
  return Response::RawJson(200, std::move(out));
}

Result<Response> GetActivity(db::Database& database, Request& request) {
  CAIRN_TRY(RequireAdmin(request));
  // Ids are positive integers; anything else names no entry.
  const std::string_view text = request.PathParam("activityId");
  std::int64_t id = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), id);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || id < 1) {
    return Error::NotFound("Activity not found");
  }
  CAIRN_ASSIGN_OR_RETURN(const auto detail, activity::GetActivity(database, id));
  if (!detail) return Error::NotFound("Activity not found");
  std::string out;
  AppendItemMembers(out, detail->item);
  out += R"(,"changes":)";
  AppendStoredJson(out, detail->item.changes_json, id);
  out += R"(,"ipAddress":)";
  AppendOptionalString(out, detail->ip_address);
  out += R"(,"userAgent":)";
  AppendOptionalString(out, detail->user_agent);
  out += R"(,"metadata":)";
  AppendStoredJson(out, detail->metadata_json, id);
  out += '}';
  return Response::RawJson(200, std::move(out));
}

boost::json::value Schema(const char* text) {
  return boost::json::parse(text);
}

constexpr const char* kEntrySchema = R"({"type":"object",
  "required":["id","action","tableName","createdAt","user"],
  "properties":{"id":{"type":"string"},"action":{"type":"string"},
  "tableName":{"type":["string","null"]},"recordId":{"type":"integer"},
  "createdAt":{"type":"string","format":"date-time"},
  "user":{"oneOf":[{"type":"null"},{"type":"object","required":["id","name","email"],
    "properties":{"id":{"type":"string"},"name":{"type":"string"},"email":{"type":"string"}}}]}}})";

http::RouteSpec ListSpec() {
  http::RouteSpec spec;
  spec.method = "GET";
  spec.pattern = "/api/activity";
  spec.summary = "The activity log, newest first (admin only)";
  spec.tag = "activity";
  spec.requires_session = true;
  // A filtered count can read many rows: off the I/O threads.
  spec.execution = http::Execution::kWorker;
  spec.query = {
      {"page", Schema(R"({"type":"integer","minimum":1,"default":1})"), "Page number", false},
      {"pageSize", Schema(R"({"type":"integer","minimum":1,"maximum":100,"default":50})"),
       "Entries per page", false},
      {"table", Schema(R"({"type":"string"})"), "Only entries of this table (alias tableName)",
       false},
      {"action", Schema(R"({"type":"string"})"), "Only entries with this action", false},
      {"userId", Schema(R"({"type":"string"})"), "Only entries by this user", false},
      {"from", Schema(R"({"type":"string"})"), "Created at or after (ISO 8601 time or date)",
       false},
      {"to", Schema(R"({"type":"string"})"), "Created at or before (ISO 8601 time or date)", false},
  };
  boost::json::object page = Schema(R"({"type":"object","required":["activities","pagination"],
    "properties":{"pagination":{"type":"object",
      "required":["total","page","pageSize","totalPages"],
      "properties":{"total":{"type":"integer"},"page":{"type":"integer"},
      "pageSize":{"type":"integer"},"totalPages":{"type":"integer"}}}}})")
                                 .as_object();
  page["properties"].as_object()["activities"] =
      boost::json::object{{"type", "array"}, {"items", Schema(kEntrySchema)}};
  spec.responses = {{200, "A page of entries", std::move(page)},
                    {400, "A query parameter is invalid", {}},
                    {401, "No session", {}},
                    {403, "The caller is not an admin", {}}};
  return spec;
}

http::RouteSpec DetailSpec() {
  http::RouteSpec spec;
  spec.method = "GET";
  spec.pattern = "/api/activity/{activityId}";
  spec.summary = "One activity entry with its changes, request and metadata (admin only)";
  spec.tag = "activity";
  spec.requires_session = true;
  boost::json::object detail = Schema(kEntrySchema).as_object();
  auto& properties = detail["properties"].as_object();
  properties["changes"] = Schema(R"({"type":["object","null"]})");
  properties["ipAddress"] = Schema(R"({"type":["string","null"]})");
  properties["userAgent"] = Schema(R"({"type":["string","null"]})");
  properties["metadata"] = Schema(R"({"type":["object","null"]})");
  spec.responses = {{200, "The entry", std::move(detail)},
                    {401, "No session", {}},
                    {403, "The caller is not an admin", {}},
                    {404, "No entry has this id", {}}};
  return spec;
}

}  // namespace

Status AddActivityRoutes(http::Router& router, db::Database& database) {
  CAIRN_TRY(router.Add(
      {ListSpec(), [&database](Request& request) { return ListActivity(database, request); }}));
  return router.Add(
      {DetailSpec(), [&database](Request& request) { return GetActivity(database, request); }});
}

}  // namespace cairn::api
