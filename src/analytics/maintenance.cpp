// The background job's work: roll each finished hour up into `_cairn_analytics_hourly` and
// `_cairn_analytics_visitor_days` (and each finished day into `_cairn_analytics_daily`), then
// delete events (and rollups) older than retentionDays. Hours are rolled up in transactions under
// the job's lock (PostgreSQL: one node at a time) that also advances `rolled_until_hour` (a day's
// due hours share one transaction), so a crash or restart leaves whole hours behind, never half
// of one, and the next run carries on there.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <map>
#include <string>
#include <tuple>

#include "analytics/analytics_service.hpp"
#include "analytics/limits.hpp"
#include "analytics/report_sql.hpp"
#include "db/dialect.hpp"

namespace cairn::analytics {
namespace {

constexpr std::string_view kJobName = "analytics";

// Holds the job's lock for the transaction of `connection`; false when another node has it.
Result<bool> TakeJobLock(db::Connection& connection) {
  const auto sql = connection.dialect().TryJobLockSql();
  if (!sql) return true;
  bool held = false;
  CAIRN_TRY(
      connection.Execute(*sql, {kJobName}, [&](const db::Row& row) { held = row.GetBool(0); }));
  return held;
}

}  // namespace

Status AnalyticsService::RollUpHour(db::Connection& connection, std::int64_t hour) {
  const std::int64_t start = hour * kHourMillis;
  const std::int64_t end = start + kHourMillis;
  CAIRN_TRY(
      connection.Execute(R"(DELETE FROM "_cairn_analytics_hourly" WHERE "hour" = ?)", {hour}));
  // Page views, distinct visitors and sessions started in the hour (the same SQL as a raw
  // report, one bucket; it looks back sessionTimeout for sessions begun before the hour).
  CAIRN_TRY(connection.Execute(
      R"(INSERT INTO "_cairn_analytics_hourly" ("hour", "page_views", "visitors", "sessions") )" +
          SessionSeriesSql(),
      {kHourMillis, timeout_ms(), start - timeout_ms(), end, start}));
  // Visitors seen in no earlier hour of the day (hours are rolled up in order), by their user
  // agent's classes; all of them are the sum over device types (a visitor has one user agent).
  // A scalar subquery, not NOT EXISTS: PostgreSQL would turn that into an anti-join planned for
  // the one row its statistics expect of the current day, scanning all of the day's rows per event.
  const std::int64_t day = FloorDiv(start, kDayMillis);
  const std::int64_t bit = std::int64_t{1} << (hour - day * 24);
  std::int64_t first_visitors = 0;
  std::map<std::pair<std::string, std::string>, std::int64_t> first_by_class;
  CAIRN_TRY(connection.Execute(
      R"(SELECT "device_type", "browser", "os", COUNT(DISTINCT "visitor") )"
      R"(FROM "_cairn_analytics_events" "e" WHERE "created_at" >= ? AND "created_at" < ? )"
      R"(AND (COALESCE((SELECT "v"."hours" FROM "_cairn_analytics_visitor_days" "v" )"
      R"(WHERE "v"."day" = ? AND "v"."visitor" = "e"."visitor"), 0) & ?) = 0 )"
      R"(GROUP BY "device_type", "browser", "os")",
      {start, end, day, bit - 1}, [&](const db::Row& row) {
        const std::int64_t count = row.GetInt64(3);
        first_visitors += count;
        first_by_class[{"device", std::string(row.GetText(0))}] += count;
        first_by_class[{"browser", std::string(row.GetText(1))}] += count;
        first_by_class[{"os", std::string(row.GetText(2))}] += count;
      }));
  CAIRN_TRY(connection.Execute(
      R"(UPDATE "_cairn_analytics_hourly" SET "first_visitors" = ? WHERE "hour" = ?)",
      {first_visitors, hour}));
  CAIRN_TRY(connection.Execute(R"(DELETE FROM "_cairn_analytics_hourly_classes" WHERE "hour" = ?)",
                               {hour}));
  for (const auto& [key, count] : first_by_class) {
    CAIRN_TRY(connection.Execute(
        R"(INSERT INTO "_cairn_analytics_hourly_classes" ("hour", "dimension", "k1", )"
        R"("first_visitors", "last_visitors") VALUES (?, ?, ?, ?, 0))",
        {hour, std::string_view(key.first), std::string_view(key.second), count}));
  }
  // Each visitor of the hour gets the hour's bit on its row of the day (rolling an hour again
  // sets the same bits: idempotent). A visitor id includes its user agent, so its classes are
  // one per row.
  CAIRN_TRY(connection.Execute(
      R"(INSERT INTO "_cairn_analytics_visitor_days" ("day", "visitor", "hours", "device_type", )"
      R"("browser", "os") SELECT ?, "visitor", ?, MIN("device_type"), MIN("browser"), MIN("os") )"
      R"(FROM "_cairn_analytics_events" WHERE "created_at" >= ? AND "created_at" < ? )"
      R"(GROUP BY "visitor" ON CONFLICT ("day", "visitor") DO UPDATE SET "hours" = )"
      R"("_cairn_analytics_visitor_days"."hours" | excluded."hours")",
      {day, bit, start, end}));
  return {};
}

Status AnalyticsService::RollUpDay(db::Connection& connection, std::int64_t day) {
  const std::int64_t start = day * kDayMillis;
  const std::int64_t end = start + kDayMillis;
  CAIRN_TRY(connection.Execute(R"(DELETE FROM "_cairn_analytics_daily" WHERE "day" = ?)", {day}));
  // The day's totals from its hours (page views and sessions add up; a visitor is one row of
  // the day). Days without page views get no row.
  CAIRN_TRY(connection.Execute(
      R"(INSERT INTO "_cairn_analytics_daily" ("dimension", "day", "k1", "k2", "k3", )"
      R"("page_views", "visitors", "sessions") SELECT 'total', ?, '', '', '', )"
      R"(CAST(SUM("page_views") AS BIGINT), (SELECT COUNT(*) FROM "_cairn_analytics_visitor_days" )"
      R"(WHERE "day" = ?), CAST(SUM("sessions") AS BIGINT) FROM "_cairn_analytics_hourly" )"
      R"(WHERE "hour" >= ? AND "hour" < ? HAVING COUNT(*) > 0)",
      {day, day, day * 24, day * 24 + 24}));
  // Visitors by the last hour of the day they were seen in (the highest bit of their row), in
  // all and by their classes.
  std::int64_t last[24] = {};
  std::map<std::tuple<std::int64_t, std::string, std::string>, std::int64_t> last_by_class;
  CAIRN_TRY(connection.Execute(
      R"(SELECT "hours", "device_type", "browser", "os" FROM "_cairn_analytics_visitor_days" )"
      R"(WHERE "day" = ?)",
      {day}, [&](const db::Row& row) {
        const auto hours = static_cast<std::uint64_t>(row.GetInt64(0));
        if (hours == 0 || hours >= (std::uint64_t{1} << 24)) return;
        const int last_hour = std::bit_width(hours) - 1;
        ++last[last_hour];
        const std::int64_t at = day * 24 + last_hour;
        ++last_by_class[{at, "device", std::string(row.GetText(1))}];
        ++last_by_class[{at, "browser", std::string(row.GetText(2))}];
        ++last_by_class[{at, "os", std::string(row.GetText(3))}];
      }));
  for (int hour = 0; hour < 24; ++hour) {
    if (last[hour] == 0) continue;
    CAIRN_TRY(connection.Execute(
        R"(UPDATE "_cairn_analytics_hourly" SET "last_visitors" = ? WHERE "hour" = ?)",
        {last[hour], day * 24 + hour}));
  }
  static const db::Identifier kClassKey[] = {db::Identifier("hour"), db::Identifier("dimension"),
                                             db::Identifier("k1")};
  static const db::Identifier kLast("last_visitors");
  const std::string upsert =
      R"(INSERT INTO "_cairn_analytics_hourly_classes" ("hour", "dimension", "k1", )"
      R"("first_visitors", "last_visitors") VALUES (?, ?, ?, 0, ?))" +
      connection.dialect().UpsertClause(kClassKey, std::span(&kLast, 1));
  for (const auto& [key, count] : last_by_class) {
    CAIRN_TRY(connection.Execute(upsert, {std::get<0>(key), std::string_view(std::get<1>(key)),
                                          std::string_view(std::get<2>(key)), count}));
  }
  for (Dimension dimension : {Dimension::kPage, Dimension::kReferrer, Dimension::kCampaign,
                              Dimension::kDeviceType, Dimension::kBrowser, Dimension::kOs}) {
    const DimensionSql& sql = SqlOf(dimension);
    std::string keys;
    for (std::size_t i = 0; i < sql.keys.size(); ++i) {
      if (i > 0) keys += ", ";
      keys += sql.keys[i];
    }
    std::string insert =
        R"(INSERT INTO "_cairn_analytics_daily" ("dimension", "day", "k1", "k2", "k3", )"
        R"("page_views", "visitors", "sessions") SELECT )";
    insert += db::Dialect::StringLiteral(sql.name);
    insert += R"(, "created_at" / )" + std::to_string(kDayMillis) + ", ";
    insert += sql.keys.size() == 3 ? keys : keys + ", '', ''";
    insert += R"(, COUNT(*), COUNT(DISTINCT "visitor"), 0 FROM "_cairn_analytics_events" )"
              R"(WHERE "created_at" >= ? AND "created_at" < ?)";
    insert += sql.filter;
    insert += R"( GROUP BY "created_at" / )" + std::to_string(kDayMillis) + ", " + keys;
    CAIRN_TRY(connection.Execute(insert, {start, end}));
  }
  return {};
}

Result<MaintenanceReport> AnalyticsService::RunMaintenance(std::int64_t now) {
  CAIRN_TRY(Flush());
  MaintenanceReport report;
  // Hours that ended over kRollupGraceMs ago are due.
  const std::int64_t due_until = FloorDiv(now - kRollupGraceMs, kHourMillis);
  const std::int64_t cutoff = now - static_cast<std::int64_t>(config_.retention_days) * kDayMillis;
  while (report.hours_rolled_up < kMaxHoursRolledUpPerRun) {
    bool done = false;
    CAIRN_TRY(database_.Transaction(db::Access::kWrite, [&](db::Connection& connection) -> Status {
      CAIRN_ASSIGN_OR_RETURN(const bool held, TakeJobLock(connection));
      if (!held) {
        report.skipped = done = true;
        return {};
      }
      CAIRN_ASSIGN_OR_RETURN(std::int64_t next, ReadRolledUntilHour(connection));
      if (next == 0) {
        // First run (or the first since daily-only rollups): start at the oldest event's day
        // (or now, when there is none).
        next = due_until;
        CAIRN_TRY(connection.Execute(R"(SELECT MIN("created_at") FROM "_cairn_analytics_events")",
                                     {}, [&](const db::Row& row) {
                                       if (!row.IsNull(0)) {
                                         next = std::min(
                                             next, FloorDiv(row.GetInt64(0), kDayMillis) * 24);
                                       }
                                     }));
        CAIRN_TRY(connection.Execute(
            R"(DELETE FROM "_cairn_analytics_state" WHERE "name" = 'rolled_until')", {}));
      }
      // Days past the retention horizon are not worth rolling up: their events are going.
      next = std::max(next, FloorDiv(cutoff, kDayMillis) * 24);
      if (next >= due_until) {
        CAIRN_TRY(WriteRolledUntilHour(connection, next));
        done = true;
        return {};
      }
      // The due hours of one day per transaction; the day's rollup with its last hour.
      do {
        CAIRN_TRY(RollUpHour(connection, next));
        ++report.hours_rolled_up;
        ++next;
        if (next % 24 == 0) {
          CAIRN_TRY(RollUpDay(connection, next / 24 - 1));
          ++report.days_rolled_up;
          break;
        }
      } while (next < due_until);
      return WriteRolledUntilHour(connection, next);
    }));
    if (done) break;
  }
  if (report.skipped) return report;
  CAIRN_TRY(database_.Transaction(db::Access::kWrite, [&](db::Connection& connection) -> Status {
    CAIRN_ASSIGN_OR_RETURN(const bool held, TakeJobLock(connection));
    if (!held) {
      report.skipped = true;
      return {};
    }
    CAIRN_ASSIGN_OR_RETURN(
        report.events_deleted,
        connection.Execute(R"(DELETE FROM "_cairn_analytics_events" WHERE "created_at" < ?)",
                           {cutoff}));
    // The rollups of a day wholly past the horizon go with its events.
    const std::int64_t first_day = FloorDiv(cutoff, kDayMillis);
    CAIRN_TRY(
        connection.Execute(R"(DELETE FROM "_cairn_analytics_daily" WHERE "day" < ?)", {first_day}));
    CAIRN_TRY(connection.Execute(R"(DELETE FROM "_cairn_analytics_hourly" WHERE "hour" < ?)",
                                 {first_day * 24}));
    CAIRN_TRY(connection.Execute(
        R"(DELETE FROM "_cairn_analytics_hourly_classes" WHERE "hour" < ?)", {first_day * 24}));
    CAIRN_TRY(connection.Execute(R"(DELETE FROM "_cairn_analytics_visitor_days" WHERE "day" < ?)",
                                 {first_day}));
    return {};
  }));
  return report;
}

}  // namespace cairn::analytics
