// The reports. A range is cut into what the rollups cover and the rest, read from raw events:
// whole days from `_cairn_analytics_daily`, whole hours of the other days from
// `_cairn_analytics_hourly` and `_cairn_analytics_visitor_days`, and raw events only for a
// partial hour at each edge and the hours not rolled up yet (the current one). Page views and
// sessions (counted where they start) add up over any periods. Visitors add up over days, since
// a visitor id never spans two days; within a day, those of its first or last rolled-up hours
// are sums of the hours' `first_visitors` or `last_visitors`, those of other hours the visitor
// rows whose hour bits meet them; the raw part adds its visitors not among those.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <functional>
#include <map>
#include <string>

#include "analytics/analytics_service.hpp"
#include "analytics/limits.hpp"
#include "analytics/report_sql.hpp"

namespace cairn::analytics {
namespace {

using Interval = std::pair<std::int64_t, std::int64_t>;  // [start, end) in millis

// A day the range covers only in part, or not rolled up as a whole.
struct PartialDay {
  std::int64_t day = 0;
  std::int64_t hours = 0;     // bits of its rolled-up whole hours inside the range
  std::vector<Interval> raw;  // its parts read from raw events
  Interval span;              // the whole part of the day inside the range
};

struct Plan {
  std::int64_t first_hour = 0;  // rolled-up whole hours [first_hour, end_hour)
  std::int64_t end_hour = 0;
  std::int64_t first_day = 0;  // rolled-up whole days [first_day, end_day)
  std::int64_t end_day = 0;
  std::vector<Interval> raw;  // the rest
  std::vector<PartialDay> partial_days;
};

Plan PlanRange(std::int64_t from, std::int64_t end, std::int64_t rolled_hour) {
  Plan plan;
  const std::int64_t first = FloorDiv(from + kHourMillis - 1, kHourMillis);
  const std::int64_t last = std::min(FloorDiv(end, kHourMillis), rolled_hour);
  if (first >= last) {
    plan.raw.emplace_back(from, end);
  } else {
    plan.first_hour = first;
    plan.end_hour = last;
    if (from < first * kHourMillis) plan.raw.emplace_back(from, first * kHourMillis);
    if (last * kHourMillis < end) plan.raw.emplace_back(last * kHourMillis, end);
    plan.first_day = FloorDiv(first + 23, 24);
    plan.end_day = std::max(plan.first_day, FloorDiv(last, 24));
  }
  for (std::int64_t day = FloorDiv(from, kDayMillis); day <= FloorDiv(end - 1, kDayMillis); ++day) {
    if (day >= plan.first_day && day < plan.end_day) continue;
    PartialDay partial;
    partial.day = day;
    const std::int64_t day_start = day * kDayMillis;
    const std::int64_t day_end = day_start + kDayMillis;
    partial.span = {std::max(from, day_start), std::min(end, day_end)};
    for (std::int64_t hour = std::max(plan.first_hour, day * 24);
         hour < std::min(plan.end_hour, day * 24 + 24); ++hour) {
      partial.hours |= std::int64_t{1} << (hour - day * 24);
    }
    for (const auto& [start, stop] : plan.raw) {
      const std::int64_t a = std::max(start, day_start);
      const std::int64_t b = std::min(stop, day_end);
      if (a < b) partial.raw.emplace_back(a, b);
    }
    plan.partial_days.push_back(std::move(partial));
  }
  return plan;
}

// Appends [start, end), joined to the last interval when they touch.
void Append(std::vector<Interval>& intervals, Interval next) {
  if (!intervals.empty() && intervals.back().second == next.first) {
    intervals.back().second = next.second;
  } else {
    intervals.push_back(next);
  }
}

// The raw parts of the partial days without rolled-up hours: their visitors are counted from
// raw events alone (a visitor id is one day's, so one distinct count over several days is the
// sum of each day's).
std::vector<Interval> RawOnlyIntervals(const Plan& plan) {
  std::vector<Interval> out;
  for (const PartialDay& partial : plan.partial_days) {
    if (partial.hours != 0) continue;
    for (const Interval& interval : partial.raw) Append(out, interval);
  }
  return out;
}

// `"created_at" >= ? AND "created_at" < ?` for each interval, joined by OR, in parentheses.
std::string IntervalsSql(std::size_t count) {
  std::string sql = "(";
  for (std::size_t i = 0; i < count; ++i) {
    if (i > 0) sql += " OR ";
    sql += R"(("created_at" >= ? AND "created_at" < ?))";
  }
  return sql + ")";
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

using EachVisitors = std::function<void(std::string, std::int64_t)>;

// Calls `each(key, visitors)` for the visitor rows of `partial`'s day whose hour bits meet its
// rolled-up hours. `column` empty: one count (key ''); else grouped by that visitor-days column.
Status RolledVisitors(db::Connection& connection, const PartialDay& partial,
                      std::string_view column, const EachVisitors& each) {
  const std::string key = column.empty() ? std::string("''") : std::string(column);
  const std::string group = column.empty() ? std::string() : " GROUP BY " + key;
  CAIRN_TRY(connection.Execute(
      "SELECT " + key +
          R"(, COUNT(*) FROM "_cairn_analytics_visitor_days" WHERE "day" = ? AND ("hours" & ?) <> 0)" +
          group,
      {partial.day, partial.hours}, [&](const db::Row& row) {
        if (row.GetInt64(1) > 0) each(std::string(row.GetText(0)), row.GetInt64(1));
      }));
  return {};
}

// The same for the visitors of `partial`'s raw parts that are not among those rows (a scalar
// subquery per event: one primary-key lookup each, whatever the statistics say of today).
Status RawVisitorsNotRolled(db::Connection& connection, const PartialDay& partial,
                            std::string_view column, const EachVisitors& each) {
  if (partial.raw.empty()) return {};
  const std::string key = column.empty() ? std::string("''") : std::string(column);
  const std::string group = column.empty() ? std::string() : " GROUP BY " + key;
  std::vector<db::Value> params;
  for (const auto& [start, stop] : partial.raw) {
    params.emplace_back(start);
    params.emplace_back(stop);
  }
  params.emplace_back(partial.day);
  params.emplace_back(partial.hours);
  CAIRN_TRY(connection.Execute(
      "SELECT " + key + R"(, COUNT(DISTINCT "visitor") FROM "_cairn_analytics_events" "e" WHERE )" +
          IntervalsSql(partial.raw.size()) +
          R"( AND (COALESCE((SELECT "v"."hours" FROM "_cairn_analytics_visitor_days" "v" WHERE )"
          R"("v"."day" = ? AND "v"."visitor" = "e"."visitor"), 0) & ?) = 0)" +
          group,
      params, [&](const db::Row& row) {
        if (row.GetInt64(1) > 0) each(std::string(row.GetText(0)), row.GetInt64(1));
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
  std::map<std::int64_t, Counts> hours;               // page views, the hour's visitors, sessions
  std::map<std::int64_t, std::int64_t> day_visitors;  // by day start
  // Rolled-up hours (by hour number): the day's visitors first and last seen in each.
  std::map<std::int64_t, std::pair<std::int64_t, std::int64_t>> first_last;
  CAIRN_TRY(database_.Transaction(db::Access::kRead, [&](db::Connection& connection) -> Status {
    CAIRN_ASSIGN_OR_RETURN(const std::int64_t rolled, ReadRolledUntilHour(connection));
    const Plan plan = PlanRange(range.from, end, rolled);
    if (plan.first_hour < plan.end_hour) {
      CAIRN_TRY(connection.Execute(
          R"(SELECT "hour", "page_views", "visitors", "sessions", "first_visitors", )"
          R"("last_visitors" FROM "_cairn_analytics_hourly" WHERE "hour" >= ? AND "hour" < ?)",
          {plan.first_hour, plan.end_hour}, [&](const db::Row& row) {
            Add(hours[row.GetInt64(0) * kHourMillis],
                {row.GetInt64(1), row.GetInt64(2), row.GetInt64(3)});
            first_last[row.GetInt64(0)] = {row.GetInt64(4), row.GetInt64(5)};
          }));
    }
    for (const auto& [start, stop] : plan.raw) {
      CAIRN_TRY(RawSeries(connection, start, stop, kHourMillis, timeout_ms(), hours));
    }
    if (plan.first_day < plan.end_day) {
      CAIRN_TRY(connection.Execute(R"(SELECT "day", "visitors" FROM "_cairn_analytics_daily" )"
                                   R"(WHERE "dimension" = 'total' AND "day" >= ? AND "day" < ?)",
                                   {plan.first_day, plan.end_day}, [&](const db::Row& row) {
                                     day_visitors[row.GetInt64(0) * kDayMillis] += row.GetInt64(1);
                                   }));
    }
    for (const auto& [start, stop] : RawOnlyIntervals(plan)) {
      CAIRN_TRY(connection.Execute(
          R"(SELECT "created_at" / ?, COUNT(DISTINCT "visitor") FROM "_cairn_analytics_events" )"
          R"(WHERE "created_at" >= ? AND "created_at" < ? GROUP BY 1)",
          {kDayMillis, start, stop}, [&](const db::Row& row) {
            day_visitors[row.GetInt64(0) * kDayMillis] += row.GetInt64(1);
          }));
    }
    for (const PartialDay& partial : plan.partial_days) {
      if (partial.hours == 0) continue;
      std::int64_t& visitors = day_visitors[partial.day * kDayMillis];
      const auto count = [&](const std::string&, std::int64_t n) { visitors += n; };
      // Rolled-up hours that begin the day or end it need no visitor rows: those of a range's
      // first day (starting mid-day) and of today.
      const auto bits = static_cast<std::uint64_t>(partial.hours);
      const int a = std::countr_zero(bits);
      const int b = std::bit_width(bits);
      if (a == 0 || b == 24) {
        for (int hour = a; hour < b; ++hour) {
          auto found = first_last.find(partial.day * 24 + hour);
          if (found != first_last.end()) {
            visitors += a == 0 ? found->second.first : found->second.second;
          }
        }
      } else {
        CAIRN_TRY(RolledVisitors(connection, partial, {}, count));
      }
      CAIRN_TRY(RawVisitorsNotRolled(connection, partial, {}, count));
    }
    return {};
  }));
  const auto add_to_period = [&](std::int64_t start, const Counts& counts) {
    auto found = period_index.find(PeriodStart(start, range.granularity));
    if (found != period_index.end()) Add(overview.series[found->second].second, counts);
  };
  // Visitors of the summary, and of days, weeks and months, add up by day; an hour's are its own.
  const bool hourly = range.granularity == Granularity::kHour;
  for (const auto& [start, counts] : hours) {
    Add(overview.summary, {counts.page_views, 0, counts.sessions});
    add_to_period(start, {counts.page_views, hourly ? counts.visitors : 0, counts.sessions});
  }
  for (const auto& [start, visitors] : day_visitors) {
    overview.summary.visitors += visitors;
    if (!hourly) add_to_period(start, {0, visitors, 0});
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
    CAIRN_ASSIGN_OR_RETURN(const std::int64_t rolled, ReadRolledUntilHour(connection));
    const Plan plan = PlanRange(range.from, end, rolled);
    if (plan.first_day < plan.end_day) {
      CAIRN_TRY(connection.Execute(
          R"(SELECT "k1", "k2", "k3", CAST(SUM("page_views") AS BIGINT), )"
          R"(CAST(SUM("visitors") AS BIGINT) FROM "_cairn_analytics_daily" )"
          R"(WHERE "dimension" = ? AND "day" >= ? AND "day" < ? GROUP BY "k1", "k2", "k3")",
          {sql.name, plan.first_day, plan.end_day}, add_row));
    }
    if (sql.visitor_column.empty()) {
      // Pages, referrers and campaigns: the partial days from raw events.
      std::vector<Interval> partial;
      for (const PartialDay& day : plan.partial_days) Append(partial, day.span);
      for (const auto& [start, stop] : partial) {
        CAIRN_TRY(connection.Execute(raw_sql, {start, stop}, add_row));
      }
      return {};
    }
    // Device type, browser and OS are the visitor's: the visitor rows answer for rolled-up hours.
    for (const auto& [start, stop] : RawOnlyIntervals(plan)) {
      CAIRN_TRY(connection.Execute(raw_sql, {start, stop}, add_row));
    }
    for (const PartialDay& partial : plan.partial_days) {
      if (partial.hours == 0) continue;
      const auto add = [&](std::string key, std::int64_t visitors) {
        Add(merged[{std::move(key), "", ""}], {0, visitors, 0});
      };
      // As for the overview: hours that begin or end the day from their first/last counts.
      const auto bits = static_cast<std::uint64_t>(partial.hours);
      const int a = std::countr_zero(bits);
      const int b = std::bit_width(bits);
      if (a == 0 || b == 24) {
        CAIRN_TRY(connection.Execute(
            std::string(R"(SELECT "k1", CAST(SUM(")") +
                (a == 0 ? "first_visitors" : "last_visitors") +
                R"(") AS BIGINT) FROM "_cairn_analytics_hourly_classes" WHERE "dimension" = ? )"
                R"(AND "hour" >= ? AND "hour" < ? GROUP BY "k1")",
            {sql.name, partial.day * 24 + a, partial.day * 24 + b}, [&](const db::Row& row) {
              if (row.GetInt64(1) > 0) add(std::string(row.GetText(0)), row.GetInt64(1));
            }));
      } else {
        CAIRN_TRY(RolledVisitors(connection, partial, sql.visitor_column, add));
      }
      CAIRN_TRY(RawVisitorsNotRolled(connection, partial, sql.visitor_column, add));
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
