#include "analytics/analytics_schema.hpp"

#include <string>

namespace cairn::analytics {
namespace {

// Only the id's type differs between the databases. Times are epoch millis (UTC); a rollup's
// `day` is the day number since 1970-01-01, an `hour` the hour number. Rollup keys are '' where
// the event had none, so they can sit in the primary key. The time index also holds the visitor
// and id: the overview's raw part (distinct visitors, sessions by window) reads the index alone.
//
// `_cairn_analytics_hourly` holds each finished hour's page views, distinct visitors and sessions
// started (all three exact per hour; page views and sessions add up over any hours), and how many
// of the day's visitors were seen first and last in that hour: the visitors of the day's first n
// hours are the sum of `first_visitors` over them, those of its last n hours of `last_visitors`.
// `_cairn_analytics_hourly_classes` holds the same two counts by device type, browser and OS.
// `_cairn_analytics_visitor_days` holds each (day, visitor) once with a bit per hour of the day
// the visitor was seen in (bit 0: 00:00–00:59 UTC) and its user agent's classes: the distinct
// visitors of any set of whole hours of a day are the rows whose `hours` meet that set's bits.
std::string SchemaSql(const db::Dialect& dialect) {
  std::string sql = R"SQL(CREATE TABLE IF NOT EXISTS "_cairn_analytics_events" (
  "id" )SQL";
  sql += dialect.ColumnTypeSql({db::ColumnKind::kId});
  sql += R"SQL(,
  "created_at" BIGINT NOT NULL,
  "visitor" TEXT NOT NULL,
  "path" TEXT NOT NULL,
  "title" TEXT,
  "referrer" TEXT,
  "referrer_domain" TEXT,
  "screen_width" BIGINT,
  "screen_height" BIGINT,
  "utm_source" TEXT,
  "utm_medium" TEXT,
  "utm_campaign" TEXT,
  "utm_content" TEXT,
  "utm_term" TEXT,
  "browser" TEXT NOT NULL,
  "os" TEXT NOT NULL,
  "device_type" TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS "_cairn_analytics_events_created" ON "_cairn_analytics_events" ("created_at", "visitor", "id");
CREATE INDEX IF NOT EXISTS "_cairn_analytics_events_visitor" ON "_cairn_analytics_events" ("visitor", "created_at");
CREATE TABLE IF NOT EXISTS "_cairn_analytics_daily" (
  "dimension" TEXT NOT NULL,
  "day" BIGINT NOT NULL,
  "k1" TEXT NOT NULL,
  "k2" TEXT NOT NULL,
  "k3" TEXT NOT NULL,
  "page_views" BIGINT NOT NULL,
  "visitors" BIGINT NOT NULL,
  "sessions" BIGINT NOT NULL,
  PRIMARY KEY ("dimension", "day", "k1", "k2", "k3")
);
CREATE TABLE IF NOT EXISTS "_cairn_analytics_hourly" (
  "hour" BIGINT PRIMARY KEY,
  "page_views" BIGINT NOT NULL,
  "visitors" BIGINT NOT NULL,
  "sessions" BIGINT NOT NULL,
  "first_visitors" BIGINT NOT NULL DEFAULT 0,
  "last_visitors" BIGINT NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS "_cairn_analytics_hourly_classes" (
  "hour" BIGINT NOT NULL,
  "dimension" TEXT NOT NULL,
  "k1" TEXT NOT NULL,
  "first_visitors" BIGINT NOT NULL,
  "last_visitors" BIGINT NOT NULL,
  PRIMARY KEY ("hour", "dimension", "k1")
);
CREATE TABLE IF NOT EXISTS "_cairn_analytics_visitor_days" (
  "day" BIGINT NOT NULL,
  "visitor" TEXT NOT NULL,
  "hours" BIGINT NOT NULL,
  "device_type" TEXT NOT NULL,
  "browser" TEXT NOT NULL,
  "os" TEXT NOT NULL,
  PRIMARY KEY ("day", "visitor")
);
CREATE TABLE IF NOT EXISTS "_cairn_analytics_state" (
  "name" TEXT PRIMARY KEY,
  "value" TEXT NOT NULL
);
)SQL";
  return sql;
}

}  // namespace

Status EnsureAnalyticsSchema(db::Database& database) {
  return database.Transaction(db::Access::kSchema, [&](db::Connection& connection) -> Status {
    if (auto lock = connection.dialect().MigrationLockSql()) {
      CAIRN_TRY(connection.Execute(*lock, {}));
    }
    return CreateAnalyticsSchema(connection);
  });
}

Status CreateAnalyticsSchema(db::Connection& connection) {
  return connection.ExecuteScript(SchemaSql(connection.dialect()));
}

}  // namespace cairn::analytics
