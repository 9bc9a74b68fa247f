#include "realtime/messages.hpp"

#include <boost/json/parse.hpp>

#include "common/json.hpp"
#include "common/time.hpp"

namespace cairn::realtime {
namespace {

std::string_view EventName(records::ChangeKind kind) {
  switch (kind) {
    case records::ChangeKind::kInsert:
      return "insert";
    case records::ChangeKind::kUpdate:
      return "update";
    case records::ChangeKind::kDelete:
      return "delete";
  }
  return "update";
}

}  // namespace

std::string SubscribedMessage(std::string_view table) {
  std::string out = R"({"type":"subscribed","table":)";
  json::AppendString(out, table);
  out.push_back('}');
  return out;
}

std::string ChangeMessage(const records::RecordChange& change,
                          std::optional<std::string_view> record,
                          std::optional<std::string_view> old_record) {
  std::string out = R"({"type":"change","event":")";
  out += EventName(change.kind);
  out += R"(","table":)";
  json::AppendString(out, change.table);
  out += R"(,"recordId":")" + std::to_string(change.id) + R"(","timestamp":")";
  time::AppendIso(out, change.timestamp_ms);
  out += R"(","record":)";
  out += record ? *record : std::string_view("null");
  if (old_record) {
    out += R"(,"oldRecord":)";
    out += *old_record;
  }
  out.push_back('}');
  return out;
}

std::string HeartbeatMessage() {
  return R"({"type":"heartbeat"})";
}

std::string PongMessage() {
  return R"({"type":"pong"})";
}

std::string ResyncMessage(const std::set<std::string>& tables) {
  std::string out = R"({"type":"resync","tables":[)";
  bool first = true;
  for (const std::string& table : tables) {
    if (!first) out.push_back(',');
    first = false;
    json::AppendString(out, table);
  }
  out += "]}";
  return out;
}

bool IsPing(std::string_view text) {
  if (text == "ping") return true;
  boost::system::error_code ec;
  const boost::json::value value = boost::json::parse(text, ec);
  if (ec || !value.is_object()) return false;
  const auto* type = value.get_object().if_contains("type");
  return type != nullptr && type->is_string() && type->get_string() == "ping";
}

}  // namespace cairn::realtime
