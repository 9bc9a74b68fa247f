// The background job's work: roll finished days up into `_cairn_analytics_daily`, then delete
// events (and rollups) older than retentionDays. Each day is one transaction under the job's
// lock (PostgreSQL: one node at a time), so a crash leaves whole days behind, never half of one.
#include <algorithm>

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

Status AnalyticsService::RollUpDay(db::Connection& connection, std::int64_t day) {
  const std::int64_t start = day * kDayMillis;
  const std::int64_t end = start + kDayMillis;
  CAIRN_TRY(connection.Execute(R"(DELETE FROM "_cairn_analytics_daily" WHERE "day" = ?)", {day}));
  // The day's totals with its sessions (the same SQL as a raw report, one bucket).
  CAIRN_TRY(connection.Execute(
      R"(INSERT INTO "_cairn_analytics_daily" ("dimension", "day", "k1", "k2", "k3", )"
      R"("page_views", "visitors", "sessions") SELECT 'total', "bucket", '', '', '', "c1", "c2", "c3" )"
      R"(FROM (SELECT "created_at" / ? AS "bucket", COUNT(*) AS "c1", COUNT(DISTINCT "visitor") AS "c2", )"
      R"(COALESCE(SUM("starts"), 0) AS "c3" FROM (SELECT "created_at", "visitor", )"
      R"(CASE WHEN LAG("created_at") OVER "w" IS NULL )"
      R"(OR "created_at" - LAG("created_at") OVER "w" > ? THEN 1 ELSE 0 END AS "starts" )"
      R"(FROM "_cairn_analytics_events" WHERE "created_at" >= ? AND "created_at" < ? )"
      R"(WINDOW "w" AS (PARTITION BY "visitor" ORDER BY "created_at", "id")) "e" )"
      R"(WHERE "created_at" >= ? GROUP BY 1) "t")",
      {kDayMillis, timeout_ms(), start - timeout_ms(), end, start}));
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
  return WriteRolledUntil(connection, day + 1);
}

Result<MaintenanceReport> AnalyticsService::RunMaintenance(std::int64_t now) {
  CAIRN_TRY(Flush());
  MaintenanceReport report;
  // Days that ended over kRollupGraceMs ago are due.
  const std::int64_t due_until = (now - kRollupGraceMs) / kDayMillis;
  const std::int64_t cutoff = now - static_cast<std::int64_t>(config_.retention_days) * kDayMillis;
  for (int run = 0; run < kMaxDaysRolledUpPerRun; ++run) {
    bool done = false;
    CAIRN_TRY(database_.Transaction(db::Access::kWrite, [&](db::Connection& connection) -> Status {
      CAIRN_ASSIGN_OR_RETURN(const bool held, TakeJobLock(connection));
      if (!held) {
        report.skipped = done = true;
        return {};
      }
      CAIRN_ASSIGN_OR_RETURN(std::int64_t next, ReadRolledUntil(connection));
      if (next == 0) {
        // First run: start at the oldest event (or today, when there is none).
        next = due_until;
        CAIRN_TRY(connection.Execute(R"(SELECT MIN("created_at") FROM "_cairn_analytics_events")",
                                     {}, [&](const db::Row& row) {
                                       if (!row.IsNull(0))
                                         next = std::min(next, row.GetInt64(0) / kDayMillis);
                                     }));
      }
      // Days past the retention horizon are not worth rolling up: their events are going.
      next = std::max(next, cutoff / kDayMillis);
      if (next >= due_until) {
        CAIRN_TRY(WriteRolledUntil(connection, next));
        done = true;
        return {};
      }
      CAIRN_TRY(RollUpDay(connection, next));
      ++report.days_rolled_up;
      return {};
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
    // A rollup of a day wholly past the horizon goes with its events.
    CAIRN_TRY(connection.Execute(R"(DELETE FROM "_cairn_analytics_daily" WHERE "day" < ?)",
                                 {cutoff / kDayMillis}));
    return {};
  }));
  return report;
}

}  // namespace cairn::analytics
