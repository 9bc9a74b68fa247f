#include "api/realtime_api.hpp"

#include <memory>
#include <string>

#include <boost/beast/websocket/rfc6455.hpp>

#include "api/session_layer.hpp"
#include "api/table_route_support.hpp"
#include "realtime/limits.hpp"
#include "realtime/sse_session.hpp"
#include "realtime/websocket_session.hpp"

namespace cairn::api {
namespace {

using http::Request;
using http::Response;

std::optional<std::string> QueryText(const Request& request, std::string_view name) {
  if (auto value = request.Query(name)) return std::string(*value);
  return std::nullopt;
}

}  // namespace

Status AddRealtimeRoutes(http::Router& router, const config::AppConfig& config,
                         records::RecordService& records, realtime::Hub& hub) {
  http::RouteSpec spec;
  spec.method = "GET";
  spec.pattern = "/api/tables/{tableId}/subscribe";
  spec.summary =
      "Subscribe to the table's record changes (WebSocket, or Server-Sent Events with Accept: "
      "text/event-stream)";
  spec.tag = "records";
  spec.requires_session = true;
  spec.query = {
      {"filter", boost::json::object{{"type", "string"}, {"contentMediaType", "application/json"}},
       "only changes of records matching this list filter (JSON)"},
      {"fields", boost::json::object{{"type", "string"}},
       "comma-separated fields to send; unknown and unreadable names are skipped"}};
  spec.responses = {
      {101, "Switching Protocols: the subscription's WebSocket", nullptr},
      {200, "the subscription as text/event-stream",
       boost::json::object{{"type", "string"}, {"contentMediaType", "text/event-stream"}}},
      {400, "not a WebSocket upgrade, or a bad filter", nullptr},
      {404, "no such table, or no read access to it", nullptr},
      {429, "the user has the most live subscriptions allowed", nullptr}};
  return router.Add(
      {std::move(spec), [&config, &records, &hub](Request& request) -> Result<Response> {
         CAIRN_ASSIGN_OR_RETURN(TableTarget target, ResolveTableTarget(request, config));
         realtime::SubscriptionSpec subscription;
         subscription.table = target.table;
         subscription.user_id = target.actor.user_id;
         subscription.role = target.actor.role;
         subscription.session_token = CallerOf(request)->token;
         subscription.filter = QueryText(request, "filter");
         subscription.fields = QueryText(request, "fields");
         // Read access and the filter are checked as a list checks them (404, 400); with no ids
         // nothing is read.
         auto checked = records.ReadAsSubscriber(*target.table, subscription.role, {},
                                                 subscription.filter, subscription.fields);
         if (!checked.ok()) return std::move(checked).error();
         const bool websocket = boost::beast::websocket::is_upgrade(*request.raw);
         const bool event_stream = !websocket && request.Header("Accept").find(
                                                     "text/event-stream") != std::string_view::npos;
         if (!websocket && !event_stream) {
           return Error::Validation(
               "Not a subscription request",
               {{"Upgrade",
                 "must be websocket (or Accept: text/event-stream for Server-Sent Events)"}});
         }
         auto slot = hub.Reserve(subscription.user_id);
         if (!slot) {
           Error error;
           error.code = ErrorCode::kRateLimited;
           error.message = "At most " + std::to_string(realtime::kMaxSubscriptionsPerUser) +
                           " live subscriptions per user";
           error.retry_after_seconds = realtime::kSubscriptionRetryAfterSeconds;
           return error;
         }
         Response response;
         if (websocket) {
           response.status = 101;
           response.upgrade = std::make_shared<realtime::WebSocketSession>(
               hub, std::move(subscription), std::move(slot));
         } else {
           response.upgrade = std::make_shared<realtime::SseSession>(hub, std::move(subscription),
                                                                     std::move(slot));
         }
         return response;
       }});
}

}  // namespace cairn::api
