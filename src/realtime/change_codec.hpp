// Committed changes as they travel between nodes (NOTIFY payloads): a JSON object
// {"c":[{"t":table,"k":"i"|"u"|"d","id":7,"ts":epoch ms,"o":old fields as JSON text or null}]}.
// The old fields stay text inside a string, so exact decimals keep their written form.
#pragma once

#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "records/change_sink.hpp"

namespace cairn::realtime {

inline constexpr std::string_view kChangeChannel = "cairn_changes";

std::string EncodeChanges(const std::deque<records::RecordChange>& changes);
// Nothing when `payload` is not a change list.
std::optional<std::vector<records::RecordChange>> DecodeChanges(std::string_view payload);

}  // namespace cairn::realtime
