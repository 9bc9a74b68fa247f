#include "api/analytics_api.hpp"

#include <charconv>

#include <boost/json.hpp>

#include "analytics/limits.hpp"
#include "analytics/tracker_script.hpp"
#include "api/session_layer.hpp"
#include "common/json.hpp"
#include "common/time.hpp"

namespace cairn::api {
namespace {

using analytics::AnalyticsService;
using analytics::Dimension;
using analytics::Granularity;
using analytics::ReportRange;
using http::Request;
using http::Response;

// No session: 401. A session without the admin role: 404, as if the reports did not exist.
Status RequireAdmin(const Request& request) {
  const auth::Caller* caller = CallerOf(request);
  if (caller == nullptr) return Error::Unauthorized();
  if (caller->user.role != "admin") return Error::NotFound();
  return {};
}

// An ISO 8601 time with an offset, or a date alone: the start of that day (UTC) for `from`, its
// last millisecond for `to`, so both stay inclusive.
std::optional<std::int64_t> ParseTime(std::string text, bool end_of_day) {
  if (text.size() == 10) {
    if (auto day = time::ParseIso(text + "T00:00:00Z")) {
      return end_of_day ? *day + analytics::kDayMillis - 1 : *day;
    }
    return std::nullopt;
  }
  // A `+` in a query string reads as a space: an offset like `+02:00` arrives as ` 02:00`.
  for (std::size_t i = 11; i < text.size(); ++i) {
    if (text[i] == ' ') text[i] = '+';
  }
  return time::ParseIso(text);
}

Result<ReportRange> ParseRange(const Request& request) {
  constexpr std::string_view kTimeRule =
      "is required: an ISO 8601 date or time with an offset, such as 2026-01-31 or "
      "2026-01-31T12:00:00Z";
  std::vector<FieldError> errors;
  ReportRange range;
  const auto read = [&](std::string_view name, bool end_of_day, std::int64_t& out) {
    const auto text = request.Query(name);
    std::optional<std::int64_t> millis;
    if (text && !text->empty()) millis = ParseTime(std::string(*text), end_of_day);
    if (millis) {
      out = *millis;
    } else {
      errors.push_back({std::string(name), std::string(kTimeRule)});
    }
  };
  read("from", false, range.from);
  read("to", true, range.to);
  if (errors.empty() && range.from > range.to) {
    errors.push_back({"from", "must not be after to"});
    errors.push_back({"to", "must not be before from"});
  }
  const std::string_view granularity = request.Query("granularity").value_or("day");
  if (granularity == "hour") {
    range.granularity = Granularity::kHour;
  } else if (granularity == "day" || granularity.empty()) {
    range.granularity = Granularity::kDay;
  } else if (granularity == "week") {
    range.granularity = Granularity::kWeek;
  } else if (granularity == "month") {
    range.granularity = Granularity::kMonth;
  } else {
    errors.push_back({"granularity", "must be one of hour, day, week, month"});
  }
  if (!errors.empty()) return Error::Validation("Invalid query parameter", std::move(errors));
  return range;
}

void AppendCounts(std::string& out, const analytics::Counts& counts, bool sessions) {
  out += R"("pageViews":)" + std::to_string(counts.page_views) + R"(,"uniqueVisitors":)" +
         std::to_string(counts.visitors);
  if (sessions) out += R"(,"sessions":)" + std::to_string(counts.sessions);
}

// A key part: '' (none) is null.
void AppendKey(std::string& out, const std::string& key) {
  if (key.empty()) {
    out += "null";
  } else {
    json::AppendString(out, key);
  }
}

Result<Response> Overview(AnalyticsService& service, Request& request) {
  CAIRN_TRY(RequireAdmin(request));
  CAIRN_ASSIGN_OR_RETURN(const ReportRange range, ParseRange(request));
  CAIRN_ASSIGN_OR_RETURN(const analytics::Overview overview, service.GetOverview(range));
  std::string out = R"({"summary":{)";
  AppendCounts(out, overview.summary, true);
  out += R"(},"timeSeries":[)";
  for (std::size_t i = 0; i < overview.series.size(); ++i) {
    if (i > 0) out += ',';
    out += R"({"period":")";
    time::AppendIso(out, overview.series[i].first);
    out += R"(",)";
    AppendCounts(out, overview.series[i].second, true);
    out += '}';
  }
  out += "]}";
  return Response::RawJson(200, std::move(out));
}

// pages, referrers, campaigns: the first kMaxReportRows rows and how many there are in all.
Result<Response> TopList(AnalyticsService& service, Request& request, Dimension dimension) {
  CAIRN_TRY(RequireAdmin(request));
  CAIRN_ASSIGN_OR_RETURN(const ReportRange range, ParseRange(request));
  CAIRN_ASSIGN_OR_RETURN(const auto rows, service.GetBreakdown(dimension, range));
  const std::string_view list = dimension == Dimension::kPage       ? "pages"
                                : dimension == Dimension::kReferrer ? "referrers"
                                                                    : "campaigns";
  std::string out = "{\"" + std::string(list) + "\":[";
  for (std::size_t i = 0; i < rows.size() && i < analytics::kMaxReportRows; ++i) {
    const auto& [first, second, third] = rows[i].key;
    if (i > 0) out += ',';
    if (dimension == Dimension::kPage) {
      out += R"({"path":)";
      json::AppendString(out, first);
    } else if (dimension == Dimension::kReferrer) {
      out += R"({"domain":)";
      AppendKey(out, first);
    } else {
      out += R"({"source":)";
      AppendKey(out, first);
      out += R"(,"medium":)";
      AppendKey(out, second);
      out += R"(,"campaign":)";
      AppendKey(out, third);
    }
    out += ',';
    AppendCounts(out, rows[i].counts, false);
    out += '}';
  }
  out += R"(],"total":)" + std::to_string(rows.size()) + "}";
  return Response::RawJson(200, std::move(out));
}

Result<Response> Devices(AnalyticsService& service, Request& request) {
  CAIRN_TRY(RequireAdmin(request));
  CAIRN_ASSIGN_OR_RETURN(const ReportRange range, ParseRange(request));
  std::string out = "{";
  const std::pair<std::string_view, Dimension> parts[] = {{"deviceTypes", Dimension::kDeviceType},
                                                          {"browsers", Dimension::kBrowser},
                                                          {"operatingSystems", Dimension::kOs}};
  for (const auto& [name, dimension] : parts) {
    CAIRN_ASSIGN_OR_RETURN(auto rows, service.GetBreakdown(dimension, range));
    // Counted in unique visitors (a visitor has one user agent a day); ties by name.
    std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
      if (a.counts.visitors != b.counts.visitors) return a.counts.visitors > b.counts.visitors;
      return a.key < b.key;
    });
    std::int64_t all = 0;
    for (const auto& row : rows) all += row.counts.visitors;
    if (out.size() > 1) out += ',';
    out += "\"" + std::string(name) + "\":[";
    for (std::size_t i = 0; i < rows.size(); ++i) {
      if (i > 0) out += ',';
      out += R"({"name":)";
      json::AppendString(out, std::get<0>(rows[i].key));
      out += R"(,"count":)" + std::to_string(rows[i].counts.visitors) + R"(,"percentage":)";
      // Tenths of a percent, rounded half up in integers, so 2/3 is exactly 66.7.
      const std::int64_t tenths = all == 0 ? 0 : (rows[i].counts.visitors * 1000 + all / 2) / all;
      const double percentage = static_cast<double>(tenths) / 10.0;
      json::AppendDouble(out, percentage);
      out += '}';
    }
    out += ']';
  }
  out += '}';
  return Response::RawJson(200, std::move(out));
}

void AppendOptional(std::string& out, std::string_view name, const std::optional<std::string>& v) {
  out += ",\"" + std::string(name) + "\":";
  if (v) {
    json::AppendString(out, *v);
  } else {
    out += "null";
  }
}

void AppendOptional(std::string& out, std::string_view name, const std::optional<std::int64_t>& v) {
  out += ",\"" + std::string(name) + "\":" + (v ? std::to_string(*v) : std::string("null"));
}

Result<Response> Events(AnalyticsService& service, Request& request) {
  CAIRN_TRY(RequireAdmin(request));
  int limit = analytics::kDefaultEventsLimit;
  if (const auto text = request.Query("limit")) {
    auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), limit);
    if (text->empty() || ec != std::errc() || end != text->data() + text->size() || limit < 1 ||
        limit > analytics::kMaxEventsLimit) {
      return Error::Validation("Invalid query parameter",
                               {{"limit", "must be an integer from 1 to " +
                                              std::to_string(analytics::kMaxEventsLimit)}});
    }
  }
  CAIRN_ASSIGN_OR_RETURN(const auto events, service.NewestEvents(limit));
  std::string out = R"({"events":[)";
  for (std::size_t i = 0; i < events.size(); ++i) {
    const auto& e = events[i];
    if (i > 0) out += ',';
    out += R"({"id":)" + std::to_string(e.id) + R"(,"createdAt":")";
    time::AppendIso(out, e.created_at);
    out += R"(","path":)";
    json::AppendString(out, e.path);
    AppendOptional(out, "title", e.title);
    AppendOptional(out, "referrer", e.referrer);
    AppendOptional(out, "referrerDomain", e.referrer_domain);
    AppendOptional(out, "screenWidth", e.screen_width);
    AppendOptional(out, "screenHeight", e.screen_height);
    AppendOptional(out, "utmSource", e.utm_source);
    AppendOptional(out, "utmMedium", e.utm_medium);
    AppendOptional(out, "utmCampaign", e.utm_campaign);
    AppendOptional(out, "utmContent", e.utm_content);
    AppendOptional(out, "utmTerm", e.utm_term);
    out += R"(,"browser":)";
    json::AppendString(out, e.browser);
    out += R"(,"os":)";
    json::AppendString(out, e.os);
    out += R"(,"deviceType":)";
    json::AppendString(out, e.device_type);
    out += '}';
  }
  out += "]}";
  return Response::RawJson(200, std::move(out));
}

std::optional<std::string> OptionalMember(const boost::json::object& body, std::string_view key) {
  const boost::json::value* v = body.if_contains(key);
  if (v == nullptr || !v->is_string()) return std::nullopt;
  return std::string(v->get_string());
}

std::optional<std::int64_t> OptionalInt(const boost::json::object& body, std::string_view key) {
  const boost::json::value* v = body.if_contains(key);
  if (v == nullptr || !v->is_int64()) return std::nullopt;
  return v->get_int64();
}

Result<Response> Collect(AnalyticsService& service, Request& request) {
  const boost::json::object& body = request.json->as_object();
  analytics::PageView view;
  view.path = std::string(body.at("p").as_string());
  view.title = OptionalMember(body, "t");
  view.referrer = OptionalMember(body, "r");
  if (view.referrer && !view.referrer->empty() && !analytics::ReferrerDomain(*view.referrer)) {
    return Error::Validation("Invalid request body",
                             {{"r", "must be an absolute http(s) URL, or empty for direct"}});
  }
  view.screen_width = OptionalInt(body, "sw");
  view.screen_height = OptionalInt(body, "sh");
  view.utm_source = OptionalMember(body, "us");
  view.utm_medium = OptionalMember(body, "um");
  view.utm_campaign = OptionalMember(body, "uc");
  view.utm_content = OptionalMember(body, "ux");
  view.utm_term = OptionalMember(body, "ut");
  analytics::Visit visit;
  visit.user_agent = request.Header("User-Agent");
  visit.client_address = request.client_address;
  visit.do_not_track = request.Header("DNT") == "1";
  CAIRN_TRY(service.Collect(view, visit));
  return Response::NoContent();
}

boost::json::value CollectSchema() {
  using analytics::kMaxPathLength;
  const auto text = [](std::size_t max) {
    return boost::json::object{{"type", "string"}, {"maxLength", max}};
  };
  const auto screen = boost::json::object{
      {"type", "integer"}, {"minimum", 0}, {"maximum", analytics::kMaxScreenPixels}};
  boost::json::object path = text(kMaxPathLength);
  path["minLength"] = 1;
  path["pattern"] = "^/";
  return boost::json::object{
      {"type", "object"},
      {"required", boost::json::array{"p"}},
      {"additionalProperties", false},
      {"properties", boost::json::object{{"p", path},
                                         {"t", text(analytics::kMaxTitleLength)},
                                         {"r", text(analytics::kMaxReferrerLength)},
                                         {"sw", screen},
                                         {"sh", screen},
                                         {"us", text(analytics::kMaxUtmLength)},
                                         {"um", text(analytics::kMaxUtmLength)},
                                         {"uc", text(analytics::kMaxUtmLength)},
                                         {"ux", text(analytics::kMaxUtmLength)},
                                         {"ut", text(analytics::kMaxUtmLength)}}}};
}

http::RouteSpec CollectSpec() {
  http::RouteSpec spec;
  spec.method = "POST";
  spec.pattern = "/api/analytics/collect";
  spec.summary = "Record a page view (no session, no cookie)";
  spec.tag = "analytics";
  spec.body_schema = CollectSchema();
  spec.max_body_bytes = analytics::kMaxCollectBodyBytes;
  spec.responses = {{204, "Recorded, or deliberately not (excluded path, Do Not Track, bot)", {}},
                    {400, "The body is invalid", {}},
                    {429, "Too many page views from this address", {}}};
  return spec;
}

http::RouteSpec ScriptSpec() {
  http::RouteSpec spec;
  spec.method = "GET";
  spec.pattern = "/api/analytics/script.js";
  spec.summary = "The tracker script";
  spec.tag = "analytics";
  spec.responses = {
      {200, "JavaScript",
       boost::json::object{{"type", "string"}, {"contentMediaType", "text/javascript"}}}};
  return spec;
}

http::RouteSpec ReportSpec(std::string_view name, std::string summary, bool sessions, bool ranged) {
  http::RouteSpec spec;
  spec.method = "GET";
  spec.pattern = "/api/analytics/" + std::string(name);
  spec.summary = std::move(summary);
  spec.tag = "analytics";
  spec.requires_session = sessions;
  const auto schema = [](const char* text) { return boost::json::parse(text); };
  if (ranged) {
    spec.query = {
        {"from", schema(R"({"type":"string"})"), "Start, inclusive (ISO 8601 date or time)", true},
        {"to", schema(R"({"type":"string"})"), "End, inclusive (ISO 8601 date or time)", true},
        {"granularity", schema(R"({"enum":["hour","day","week","month"],"default":"day"})"),
         "Period of the time series (weeks start on Monday, UTC)", false}};
  } else {
    spec.query = {{"limit", schema(R"({"type":"integer","minimum":1,"maximum":1000,"default":50})"),
                   "How many events", false}};
  }
  spec.responses = {{200, "The report", {}},
                    {400, "A query parameter is invalid", {}},
                    {401, "No session", {}},
                    {404, "The caller is not an admin", {}}};
  return spec;
}

}  // namespace

Status AddAnalyticsRoutes(http::Router& router, AnalyticsService& service, bool sessions) {
  CAIRN_TRY(router.Add(
      {CollectSpec(), [&service](Request& request) { return Collect(service, request); }}));
  const std::string script = analytics::TrackerScript(service.config().respect_do_not_track);
  CAIRN_TRY(router.Add({ScriptSpec(), [script](Request&) -> Result<Response> {
                          Response response;
                          response.content_type = "application/javascript; charset=utf-8";
                          response.body = script;
                          response.SetHeader("Cache-Control", "public, max-age=3600");
                          return response;
                        }}));
  CAIRN_TRY(router.Add(
      {ReportSpec("overview", "Page views, visitors and sessions over time", sessions, true),
       [&service](Request& request) { return Overview(service, request); }}));
  CAIRN_TRY(
      router.Add({ReportSpec("pages", "Top pages", sessions, true), [&service](Request& request) {
                    return TopList(service, request, Dimension::kPage);
                  }}));
  CAIRN_TRY(router.Add(
      {ReportSpec("referrers", "Top referring domains", sessions, true),
       [&service](Request& request) { return TopList(service, request, Dimension::kReferrer); }}));
  CAIRN_TRY(router.Add(
      {ReportSpec("campaigns", "UTM campaigns", sessions, true),
       [&service](Request& request) { return TopList(service, request, Dimension::kCampaign); }}));
  CAIRN_TRY(router.Add(
      {ReportSpec("devices", "Device types, browsers and operating systems", sessions, true),
       [&service](Request& request) { return Devices(service, request); }}));
  return router.Add({ReportSpec("events", "The newest raw page views", sessions, false),
                     [&service](Request& request) { return Events(service, request); }});
}

}  // namespace cairn::api
