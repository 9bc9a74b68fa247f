#include "realtime/change_codec.hpp"

#include <boost/json/parse.hpp>

#include "common/json.hpp"

namespace cairn::realtime {
namespace {

char KindLetter(records::ChangeKind kind) {
  switch (kind) {
    case records::ChangeKind::kInsert:
      return 'i';
    case records::ChangeKind::kUpdate:
      return 'u';
    case records::ChangeKind::kDelete:
      return 'd';
  }
  return 'u';
}

std::optional<records::ChangeKind> KindOf(std::string_view letter) {
  if (letter == "i") return records::ChangeKind::kInsert;
  if (letter == "u") return records::ChangeKind::kUpdate;
  if (letter == "d") return records::ChangeKind::kDelete;
  return std::nullopt;
}

}  // namespace

std::string EncodeChanges(const std::deque<records::RecordChange>& changes) {
  std::string out = R"({"c":[)";
  bool first = true;
  for (const records::RecordChange& change : changes) {
    if (!first) out.push_back(',');
    first = false;
    out += R"({"t":)";
    json::AppendString(out, change.table);
    out += R"(,"k":")";
    out.push_back(KindLetter(change.kind));
    out += R"(","id":)" + std::to_string(change.id) + R"(,"ts":)" +
           std::to_string(change.timestamp_ms) + R"(,"o":)";
    if (change.old_fields_json.empty()) {
      out += "null";
    } else {
      json::AppendString(out, change.old_fields_json);
    }
    out.push_back('}');
  }
  out += "]}";
  return out;
}

std::optional<std::vector<records::RecordChange>> DecodeChanges(std::string_view payload) {
  boost::system::error_code ec;
  const boost::json::value value = boost::json::parse(payload, ec);
  if (ec || !value.is_object()) return std::nullopt;
  const auto* list = value.get_object().if_contains("c");
  if (list == nullptr || !list->is_array()) return std::nullopt;
  std::vector<records::RecordChange> changes;
  for (const boost::json::value& item : list->get_array()) {
    if (!item.is_object()) return std::nullopt;
    const boost::json::object& object = item.get_object();
    const auto* table = object.if_contains("t");
    const auto* kind = object.if_contains("k");
    const auto* id = object.if_contains("id");
    const auto* stamp = object.if_contains("ts");
    const auto* old = object.if_contains("o");
    if (table == nullptr || !table->is_string() || kind == nullptr || !kind->is_string() ||
        id == nullptr || !id->is_int64() || stamp == nullptr || !stamp->is_int64()) {
      return std::nullopt;
    }
    const auto parsed_kind = KindOf(kind->get_string());
    if (!parsed_kind) return std::nullopt;
    records::RecordChange change;
    change.table = std::string(table->get_string());
    change.kind = *parsed_kind;
    change.id = id->get_int64();
    change.timestamp_ms = stamp->get_int64();
    if (old != nullptr && old->is_string()) change.old_fields_json = std::string(old->get_string());
    changes.push_back(std::move(change));
  }
  return changes;
}

}  // namespace cairn::realtime
