// The reports. A range is cut into whole days that are rolled up (read from
// `_cairn_analytics_daily`) and the rest (partial days at the edges, today, days not rolled up
// yet), read from raw events. Both agree because a visitor id, and so a session, never spans two
// days: daily visitor and session counts add up.
#include <algorithm>
#include <map>

#include "analytics/analytics_service.hpp"
#include "analytics/limits.hpp"
#include "analytics/report_sql.hpp"

namespace cairn::analytics {
namespace {

std::int64_t FloorDay(std::int64_t millis) {
  return millis / kDayMillis - (millis % kDayMillis < 0 ? 1 : 0);
}

struct Split {
  std::vector<std::pair<std::int64_t, std::int64_t>> raw;  // [start, end) in millis
  std::int64_t first_day = 0;                              // rolled-up days [first_day, end_day)
  std::int64_t end_day = 0;
};

// [from, end) → rolled-up whole days before `rolled_until`, raw for the rest.
Split SplitRange(std::int64_t from, std::int64_t end, std::int64_t rolled_until) {
  Split split;
  const std::int64_t first = FloorDay(from + kDayMillis - 1);  // first whole day
  const std::int64_t last = std::min(FloorDay(end), rolled_until);
  if (first >= last) {
    split.raw.emplace_back(from, end);
    return split;
  }
  split.first_day = first;
  split.end_day = last;
  if (from < first * kDayMillis) split.raw.emplace_back(from, first * kDayMillis);
  if (last * kDayMillis < end) split.raw.emplace_back(last * kDayMillis, end);
  return split;
}

void Add(Counts& into, const Counts& more) {
  into.page_views += more.page_views;
  into.visitors += more.visitors;
  into.sessions += more.sessions;
}

// Page views, visitors and sessions per bucket of `bucket_ms` over raw events in [start, end).
Status RawSeries(db::Connection& connection, std::int64_t start, std::int64_t end,
                 std::int64_t bucket_ms, std::int64_t gap_ms, std::map<std::int64_t, Counts>& out) {
  CAIRN_TRY(connection.Execute(
      SessionSeriesSql(), {bucket_ms, gap_ms, start - gap_ms, end, start}, [&](const db::Row& row) {
        Add(out[row.GetInt64(0) * bucket_ms], {row.GetInt64(1), row.GetInt64(2), row.GetInt64(3)});
      }));
  return {};
}

Error TooManyBuckets() {
  return Error::Validation(
      "Invalid query parameter",
      {{"granularity", "gives more than " + std::to_string(kMaxTimeSeriesBuckets) +
                           " periods for this range; choose a coarser one"}});
}

}  // namespace

Result<Overview> AnalyticsService::GetOverview(const ReportRange& range) {
  const std::int64_t end = range.to + 1;
  // Zero-filled periods, oldest first; refused before any SQL when there would be too many.
  Overview overview;
  std::map<std::int64_t, std::size_t> period_index;
  for (std::int64_t start = PeriodStart(range.from, range.granularity); start < end;
       start = NextPeriod(start, range.granularity)) {
    if (static_cast<std::int64_t>(overview.series.size()) >= kMaxTimeSeriesBuckets) {
      return TooManyBuckets();
    }
    period_index[start] = overview.series.size();
    overview.series.emplace_back(start, Counts{});
  }
  CAIRN_TRY(Flush());
  std::map<std::int64_t, Counts> days;
  std::map<std::int64_t, Counts> hours;
  CAIRN_TRY(database_.Transaction(db::Access::kRead, [&](db::Connection& connection) -> Status {
    CAIRN_ASSIGN_OR_RETURN(const std::int64_t rolled, ReadRolledUntil(connection));
    const Split split = SplitRange(range.from, end, rolled);
    if (split.first_day < split.end_day) {
      CAIRN_TRY(connection.Execute(
          R"(SELECT "day", "page_views", "visitors", "sessions" FROM "_cairn_analytics_daily" )"
          R"(WHERE "dimension" = 'total' AND "day" >= ? AND "day" < ?)",
          {split.first_day, split.end_day}, [&](const db::Row& row) {
            Add(days[row.GetInt64(0) * kDayMillis],
                {row.GetInt64(1), row.GetInt64(2), row.GetInt64(3)});
          }));
    }
    for (const auto& [start, stop] : split.raw) {
      CAIRN_TRY(RawSeries(connection, start, stop, kDayMillis, timeout_ms(), days));
    }
    // Hours cannot come from daily rollups: an hourly series reads raw events only.
    if (range.granularity == Granularity::kHour) {
      CAIRN_TRY(RawSeries(connection, range.from, end, kHourMillis, timeout_ms(), hours));
    }
    return {};
  }));
  for (const auto& [day, counts] : days) Add(overview.summary, counts);
  for (const auto& [start, counts] : range.granularity == Granularity::kHour ? hours : days) {
    auto found = period_index.find(PeriodStart(start, range.granularity));
    if (found != period_index.end()) Add(overview.series[found->second].second, counts);
  }
  return overview;
}

Result<std::vector<BreakdownRow>> AnalyticsService::GetBreakdown(Dimension dimension,
                                                                 const ReportRange& range) {
  const DimensionSql& sql = SqlOf(dimension);
  const std::int64_t end = range.to + 1;
  std::string keys;
  for (std::size_t i = 0; i < sql.keys.size(); ++i) {
    if (i > 0) keys += ", ";
    keys += sql.keys[i];
  }
  const std::string select_keys = sql.keys.size() == 3 ? keys : keys + ", '', ''";
  const std::string raw_sql =
      "SELECT " + select_keys +
      R"(, COUNT(*), COUNT(DISTINCT "visitor") FROM "_cairn_analytics_events" )"
      R"(WHERE "created_at" >= ? AND "created_at" < ?)" +
      std::string(sql.filter) + " GROUP BY " + keys;
  std::map<BreakdownKey, Counts> merged;
  const auto add_row = [&](const db::Row& row) {
    Add(merged[{std::string(row.GetText(0)), std::string(row.GetText(1)),
                std::string(row.GetText(2))}],
        {row.GetInt64(3), row.GetInt64(4), 0});
  };
  CAIRN_TRY(Flush());
  CAIRN_TRY(database_.Transaction(db::Access::kRead, [&](db::Connection& connection) -> Status {
    CAIRN_ASSIGN_OR_RETURN(const std::int64_t rolled, ReadRolledUntil(connection));
    const Split split = SplitRange(range.from, end, rolled);
    if (split.first_day < split.end_day) {
      CAIRN_TRY(connection.Execute(
          R"(SELECT "k1", "k2", "k3", CAST(SUM("page_views") AS BIGINT), )"
          R"(CAST(SUM("visitors") AS BIGINT) FROM "_cairn_analytics_daily" )"
          R"(WHERE "dimension" = ? AND "day" >= ? AND "day" < ? GROUP BY "k1", "k2", "k3")",
          {sql.name, split.first_day, split.end_day}, add_row));
    }
    for (const auto& [start, stop] : split.raw) {
      CAIRN_TRY(connection.Execute(raw_sql, {start, stop}, add_row));
    }
    return {};
  }));
  std::vector<BreakdownRow> rows;
  rows.reserve(merged.size());
  for (auto& [key, counts] : merged) rows.push_back({key, counts});
  std::stable_sort(rows.begin(), rows.end(), [](const BreakdownRow& a, const BreakdownRow& b) {
    return a.counts.page_views > b.counts.page_views;
  });
  return rows;
}

Result<std::vector<StoredEvent>> AnalyticsService::NewestEvents(int limit) {
  CAIRN_TRY(Flush());
  std::vector<StoredEvent> events;
  const auto text = [](const db::Row& row, int column) -> std::optional<std::string> {
    if (row.IsNull(column)) return std::nullopt;
    return std::string(row.GetText(column));
  };
  const auto number = [](const db::Row& row, int column) -> std::optional<std::int64_t> {
    if (row.IsNull(column)) return std::nullopt;
    return row.GetInt64(column);
  };
  CAIRN_TRY(database_.Transaction(db::Access::kRead, [&](db::Connection& connection) -> Status {
    CAIRN_TRY(connection.Execute(
        R"(SELECT "id", "created_at", "path", "title", "referrer", "referrer_domain", )"
        R"("screen_width", "screen_height", "utm_source", "utm_medium", "utm_campaign", )"
        R"("utm_content", "utm_term", "browser", "os", "device_type" )"
        R"(FROM "_cairn_analytics_events" ORDER BY "created_at" DESC, "id" DESC LIMIT ?)",
        {static_cast<std::int64_t>(limit)}, [&](const db::Row& row) {
          StoredEvent e;
          e.id = row.GetInt64(0);
          e.created_at = row.GetInt64(1);
          e.path = std::string(row.GetText(2));
          e.title = text(row, 3);
          e.referrer = text(row, 4);
          e.referrer_domain = text(row, 5);
          e.screen_width = number(row, 6);
          e.screen_height = number(row, 7);
          e.utm_source = text(row, 8);
          e.utm_medium = text(row, 9);
          e.utm_campaign = text(row, 10);
          e.utm_content = text(row, 11);
          e.utm_term = text(row, 12);
          e.browser = std::string(row.GetText(13));
          e.os = std::string(row.GetText(14));
          e.device_type = std::string(row.GetText(15));
          events.push_back(std::move(e));
        }));
    return {};
  }));
  return events;
}

}  // namespace cairn::analytics
