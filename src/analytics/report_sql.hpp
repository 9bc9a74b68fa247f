// The SQL shared by the reports and the rollups: a dimension's key columns, the session count
// (a session starts at a visitor's first event or after a gap longer than sessionTimeout), and
// the rollup state. Identical on both databases (integer arithmetic on epoch millis, window
// functions), so no Dialect entry is needed; where they differ (upserts, job locks) the Dialect
// is asked.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analytics/analytics_service.hpp"
#include "db/database.hpp"

namespace cairn::analytics {

struct DimensionSql {
  std::string_view name;               // the rollup's `dimension`
  std::vector<std::string_view> keys;  // 1 or 3 key expressions over the events table
  std::string_view filter;             // ` AND …` or empty
  // The `_cairn_analytics_visitor_days` column holding the key, for the dimensions that are a
  // function of the visitor (its user agent's classes); empty for the others.
  std::string_view visitor_column;
};

const DimensionSql& SqlOf(Dimension dimension);

// `SELECT bucket, page views, visitors, sessions` over events in [?, ?) grouped by
// `created_at / ?`; parameters: bucket size, gap, lookback start, end, start.
std::string SessionSeriesSql();

// The first hour (hours since 1970-01-01 UTC) not rolled up yet (0: none is). Every hour before
// it is in `_cairn_analytics_hourly` and `_cairn_analytics_visitor_days`, and every whole day
// before it in `_cairn_analytics_daily`.
Result<std::int64_t> ReadRolledUntilHour(db::Connection& connection);
Status WriteRolledUntilHour(db::Connection& connection, std::int64_t hour);

}  // namespace cairn::analytics
