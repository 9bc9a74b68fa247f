// The messages of D53, as JSON text.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "records/change_sink.hpp"

namespace cairn::realtime {

std::string SubscribedMessage(std::string_view table);
// `record` and `old_record` are JSON text; an absent record is sent as null.
std::string ChangeMessage(const records::RecordChange& change,
                          std::optional<std::string_view> record,
                          std::optional<std::string_view> old_record);
std::string HeartbeatMessage();
std::string PongMessage();
// Changes of these tables may have been missed: clients read them again.
std::string ResyncMessage(const std::set<std::string>& tables);

// Whether a client text frame is a ping: `ping` or `{"type":"ping"}`.
bool IsPing(std::string_view text);

}  // namespace cairn::realtime
