// Dates, date-times and times in their display form (D39), through ICU's date formatter.
// The pattern comes from the field: `format` when written; else `dateFormat` (US 11/24/2026,
// European 24/11/2026, ISO 2026-11-24; ICU's medium date, Nov 24, 2026, when absent) and
// `timeFormat` (12-hour 2:30 PM, 24-hour 14:30; 24-hour by default with European and ISO dates).
// Date-times render in the request's `?timezone=`, else the field's `timezone` or `timeZone`
// (`local` has no meaning on a server and falls back), else UTC. Each appends a JSON string.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <boost/json/object.hpp>

#include "config/model.hpp"
#include "records/display_context.hpp"

namespace cairn::records::display {

// `date` as stored: YYYY-MM-DD.
void AppendDate(DisplayContext& context, const config::Field& field, std::string_view date,
                std::string& out);
// A date-time as milliseconds since the epoch (datetime and updated-at).
void AppendDatetime(DisplayContext& context, const config::Field& field, std::int64_t epoch_millis,
                    std::string& out);
// `time` as stored: HH:MM or HH:MM:SS.
void AppendTime(DisplayContext& context, const config::Field& field, std::string_view time,
                std::string& out);

// The JSON Schema of what AppendDate, AppendDatetime or AppendTime writes for `field`: a string
// whose pattern is read from the same ICU pattern (the display locale's month and day names,
// AM/PM), with an example formatted by it.
boost::json::object DateDisplaySchema(const config::Field& field);
boost::json::object DatetimeDisplaySchema(const config::Field& field);
boost::json::object TimeDisplaySchema(const config::Field& field);

}  // namespace cairn::records::display
