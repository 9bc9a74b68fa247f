#include "analytics/report_sql.hpp"

#include <charconv>

namespace cairn::analytics {

const DimensionSql& SqlOf(Dimension dimension) {
  static const DimensionSql kPage{"page", {R"("path")"}, {}, {}};
  static const DimensionSql kReferrer{"referrer", {R"(COALESCE("referrer_domain", ''))"}, {}, {}};
  static const DimensionSql kCampaign{
      "campaign",
      {R"(COALESCE("utm_source", ''))", R"(COALESCE("utm_medium", ''))",
       R"(COALESCE("utm_campaign", ''))"},
      R"( AND ("utm_source" IS NOT NULL OR "utm_medium" IS NOT NULL OR "utm_campaign" IS NOT NULL))",
      {}};
  static const DimensionSql kDeviceType{"device", {R"("device_type")"}, {}, R"("device_type")"};
  static const DimensionSql kBrowser{"browser", {R"("browser")"}, {}, R"("browser")"};
  static const DimensionSql kOs{"os", {R"("os")"}, {}, R"("os")"};
  switch (dimension) {
    case Dimension::kPage:
      return kPage;
    case Dimension::kReferrer:
      return kReferrer;
    case Dimension::kCampaign:
      return kCampaign;
    case Dimension::kDeviceType:
      return kDeviceType;
    case Dimension::kBrowser:
      return kBrowser;
    case Dimension::kOs:
      return kOs;
  }
  return kPage;
}

std::string SessionSeriesSql() {
  // The inner query starts `gap` early so a session begun before the range is not counted
  // again; the outer one keeps the range.
  return R"(SELECT "created_at" / ? AS "bucket", COUNT(*), COUNT(DISTINCT "visitor"), )"
         R"(COALESCE(SUM("starts"), 0) FROM (SELECT "created_at", "visitor", )"
         R"(CASE WHEN LAG("created_at") OVER "w" IS NULL )"
         R"(OR "created_at" - LAG("created_at") OVER "w" > ? THEN 1 ELSE 0 END AS "starts" )"
         R"(FROM "_cairn_analytics_events" WHERE "created_at" >= ? AND "created_at" < ? )"
         R"(WINDOW "w" AS (PARTITION BY "visitor" ORDER BY "created_at", "id")) "e" )"
         R"(WHERE "created_at" >= ? GROUP BY 1)";
}

Result<std::int64_t> ReadRolledUntilHour(db::Connection& connection) {
  std::int64_t hour = 0;
  CAIRN_TRY(connection.Execute(
      R"(SELECT "value" FROM "_cairn_analytics_state" WHERE "name" = 'rolled_until_hour')", {},
      [&](const db::Row& row) {
        const std::string_view text = row.GetText(0);
        std::from_chars(text.data(), text.data() + text.size(), hour);
      }));
  return hour;
}

Status WriteRolledUntilHour(db::Connection& connection, std::int64_t hour) {
  static const db::Identifier kName("name");
  static const db::Identifier kValue("value");
  const std::string value = std::to_string(hour);
  CAIRN_TRY(connection.Execute(
      std::string(R"(INSERT INTO "_cairn_analytics_state" ("name", "value") )"
                  R"(VALUES ('rolled_until_hour', ?))") +
          connection.dialect().UpsertClause(std::span(&kName, 1), std::span(&kValue, 1)),
      {std::string_view(value)}));
  return {};
}

}  // namespace cairn::analytics
