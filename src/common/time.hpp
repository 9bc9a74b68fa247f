// Wall-clock time as milliseconds since the Unix epoch, and ISO 8601 text.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace cairn::time {

using EpochMillis = std::int64_t;

EpochMillis NowMillis();
// `2026-11-22T05:00:00.123Z`
std::string FormatIso(EpochMillis millis);
void AppendIso(std::string& out, EpochMillis millis);
// Accepts `YYYY-MM-DDTHH:MM[:SS[.fff]](Z|±HH:MM)` and the PostgreSQL text form
// `YYYY-MM-DD HH:MM:SS[.ffffff]±HH[:MM]`; returns UTC milliseconds.
std::optional<EpochMillis> ParseIso(std::string_view text);

}  // namespace cairn::time
