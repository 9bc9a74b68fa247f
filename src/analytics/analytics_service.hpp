// Cookie-free analytics (D54, docs/analytics.md) without HTTP types: page views collected into a
// write queue, reports over hourly and daily rollups (raw events only for what they do not
// cover yet), and the background maintenance (rollups, retention). api/analytics_api.cpp maps it
// onto the wire.
//
// Privacy: no cookie, no IP address stored. The visitor id is SHA-256 of (day, address, user
// agent, app name, the day's secret); the secret lives in the database (so every node agrees)
// and is replaced daily, the old one deleted, so yesterday's ids cannot be recomputed. A
// visitor therefore exists within one UTC day, and so do sessions.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "analytics/user_agents.hpp"
#include "common/result.hpp"
#include "config/model.hpp"
#include "db/database.hpp"

namespace cairn::analytics {

// A page view as the collect body gives it, validated (the route's body schema).
struct PageView {
  std::string path;
  std::optional<std::string> title;
  std::optional<std::string> referrer;  // a URL; empty is direct
  std::optional<std::int64_t> screen_width;
  std::optional<std::int64_t> screen_height;
  std::optional<std::string> utm_source, utm_medium, utm_campaign, utm_content, utm_term;
};

struct Visit {
  std::string_view user_agent;
  std::string_view client_address;  // hashed, never stored
  bool do_not_track = false;        // `DNT: 1`
};

enum class CollectOutcome { kRecorded, kExcludedPath, kDoNotTrack, kBot };

enum class Granularity { kHour, kDay, kWeek, kMonth };

// [from, to] inclusive, epoch millis (UTC).
struct ReportRange {
  std::int64_t from = 0;
  std::int64_t to = 0;
  Granularity granularity = Granularity::kDay;
};

struct Counts {
  std::int64_t page_views = 0;
  std::int64_t visitors = 0;
  std::int64_t sessions = 0;
};

struct Overview {
  Counts summary;
  std::vector<std::pair<std::int64_t, Counts>> series;  // period start (millis), oldest first
};

// One row of a breakdown: up to three keys ('' where the event had none).
using BreakdownKey = std::tuple<std::string, std::string, std::string>;
struct BreakdownRow {
  BreakdownKey key;
  // Page views and visitors (sessions are reported by the overview only). The device type,
  // browser and OS rows are counted in visitors only: their page views are partial.
  Counts counts;
};

enum class Dimension { kPage, kReferrer, kCampaign, kDeviceType, kBrowser, kOs };

struct StoredEvent {
  std::int64_t id = 0;
  std::int64_t created_at = 0;
  std::string path;
  std::optional<std::string> title, referrer, referrer_domain;
  std::optional<std::int64_t> screen_width, screen_height;
  std::optional<std::string> utm_source, utm_medium, utm_campaign, utm_content, utm_term;
  std::string browser, os, device_type;
};

struct MaintenanceReport {
  int hours_rolled_up = 0;
  int days_rolled_up = 0;
  std::int64_t events_deleted = 0;
  bool skipped = false;  // another node held the job's lock
};

class AnalyticsService {
 public:
  using Clock = std::function<std::int64_t()>;  // epoch millis
  // Starts the background writer. `now` empty: the system clock.
  AnalyticsService(db::Database& database, config::AnalyticsConfig config, std::string app_name,
                   const UserAgentClassifier& user_agents, Clock now);
  ~AnalyticsService();
  AnalyticsService(const AnalyticsService&) = delete;
  AnalyticsService& operator=(const AnalyticsService&) = delete;

  // Queues one page view (or says why it is not recorded). Stamped with the clock now.
  Result<CollectOutcome> Collect(const PageView& view, const Visit& visit);
  // Writes every queued event now (reports call it first, so they see every acknowledged one).
  Status Flush();
  // Stops the writer after it has written every queued event. Idempotent.
  void Shutdown();

  Result<Overview> GetOverview(const ReportRange& range);
  // Rows by page views (descending), then key; every row (the API cuts and counts).
  Result<std::vector<BreakdownRow>> GetBreakdown(Dimension dimension, const ReportRange& range);
  Result<std::vector<StoredEvent>> NewestEvents(int limit);

  // Rolls up finished hours (and days) and deletes events past retentionDays, as of `now`.
  Result<MaintenanceReport> RunMaintenance(std::int64_t now);

  const config::AnalyticsConfig& config() const { return config_; }

 private:
  struct Queued;
  Result<std::string> SecretOf(std::int64_t day);
  Status Write(std::vector<Queued>& events);
  void WriterLoop();
  Status RollUpHour(db::Connection& connection, std::int64_t hour);
  Status RollUpDay(db::Connection& connection, std::int64_t day);
  std::int64_t timeout_ms() const;

  db::Database& database_;
  config::AnalyticsConfig config_;
  std::string app_name_;
  const UserAgentClassifier& user_agents_;
  Clock now_;

  std::mutex secret_mutex_;
  std::int64_t secret_day_ = -1;
  std::string secret_;

  std::mutex queue_mutex_;
  std::condition_variable queue_wake_;
  std::vector<Queued> queue_;
  bool stopping_ = false;
  std::thread writer_;
};

// Whether `path` matches the glob `pattern` (`*`: any run of characters, `/` included).
bool MatchesGlob(std::string_view pattern, std::string_view path);
// The host of an http(s) URL, lowercase, without a leading `www.`; nullopt when `url` is not one.
std::optional<std::string> ReferrerDomain(std::string_view url);
// a / b rounded toward negative infinity.
std::int64_t FloorDiv(std::int64_t a, std::int64_t b);
// The start (epoch millis) of the period holding `millis`: hours, UTC days, weeks from Monday,
// calendar months.
std::int64_t PeriodStart(std::int64_t millis, Granularity granularity);
// The start of the period after the one starting at `start`.
std::int64_t NextPeriod(std::int64_t start, Granularity granularity);

}  // namespace cairn::analytics
