// Collecting page views: checks, the visitor hash, and the write queue with its background
// writer. An acknowledged event waits at most kFlushIntervalMs in memory; Shutdown writes the
// queue before it returns, so only a crash (kill -9, power loss) can lose that window.
#include <chrono>

#include "analytics/analytics_service.hpp"
#include "analytics/limits.hpp"
#include "common/crypto.hpp"
#include "common/log.hpp"
#include "common/time.hpp"

namespace cairn::analytics {

struct AnalyticsService::Queued {
  std::int64_t created_at = 0;
  std::string visitor;
  PageView view;
  std::optional<std::string> referrer_domain;
  UserAgentClass agent;
};

namespace {

db::Value Text(const std::optional<std::string>& text) {
  if (!text || text->empty()) return db::Null{};
  return std::string_view(*text);
}

db::Value Int(const std::optional<std::int64_t>& number) {
  return number ? db::Value(*number) : db::Value(db::Null{});
}

constexpr std::string_view kInsert =
    R"(INSERT INTO "_cairn_analytics_events" ("created_at", "visitor", "path", "title", )"
    R"("referrer", "referrer_domain", "screen_width", "screen_height", "utm_source", )"
    R"("utm_medium", "utm_campaign", "utm_content", "utm_term", "browser", "os", "device_type") )"
    R"(VALUES )";
constexpr std::string_view kRow = "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";

}  // namespace

AnalyticsService::AnalyticsService(db::Database& database, config::AnalyticsConfig config,
                                   std::string app_name, const UserAgentClassifier& user_agents,
                                   Clock now)
    : database_(database),
      config_(std::move(config)),
      app_name_(std::move(app_name)),
      user_agents_(user_agents),
      now_(now ? std::move(now) : Clock([] { return time::NowMillis(); })) {
  writer_ = std::thread([this] { WriterLoop(); });
}

AnalyticsService::~AnalyticsService() {
  Shutdown();
}

std::int64_t AnalyticsService::timeout_ms() const {
  return static_cast<std::int64_t>(config_.session_timeout_minutes) * 60 * 1000;
}

Result<std::string> AnalyticsService::SecretOf(std::int64_t day) {
  const std::lock_guard lock(secret_mutex_);
  if (day == secret_day_) return secret_;
  // Every node reads the same secret: the first to need a day's writes it, the others find it.
  const std::string name = "secret:" + std::to_string(day);
  const std::string previous = "secret:" + std::to_string(day - 1);
  const std::string fresh = crypto::Base64Url(crypto::RandomBytes(32));
  std::string secret;
  CAIRN_TRY(database_.Transaction(db::Access::kWrite, [&](db::Connection& connection) -> Status {
    static const db::Identifier kName("name");
    CAIRN_TRY(connection.Execute(
        std::string(R"(INSERT INTO "_cairn_analytics_state" ("name", "value") VALUES (?, ?))") +
            connection.dialect().UpsertClause(std::span(&kName, 1), {}),
        {std::string_view(name), std::string_view(fresh)}));
    CAIRN_TRY(connection.Execute(R"(SELECT "value" FROM "_cairn_analytics_state" WHERE "name" = ?)",
                                 {std::string_view(name)}, [&](const db::Row& row) {
                                   secret = std::string(row.GetText(0));
                                 }));
    // Older secrets go: nobody can recompute an old day's visitor ids. The previous day's stays
    // for events another node stamps just before midnight.
    CAIRN_TRY(connection.Execute(
        R"(DELETE FROM "_cairn_analytics_state" WHERE "name" LIKE 'secret:%' AND "name" <> ? )"
        R"(AND "name" <> ?)",
        {std::string_view(name), std::string_view(previous)}));
    return {};
  }));
  secret_day_ = day;
  secret_ = secret;
  return secret;
}

Result<CollectOutcome> AnalyticsService::Collect(const PageView& view, const Visit& visit) {
  for (const std::string& pattern : config_.excluded_paths) {
    if (MatchesGlob(pattern, view.path)) return CollectOutcome::kExcludedPath;
  }
  if (config_.respect_do_not_track && visit.do_not_track) return CollectOutcome::kDoNotTrack;
  const std::string_view user_agent = visit.user_agent.substr(0, kMaxUserAgentLength);
  UserAgentClass agent = user_agents_.Classify(user_agent);
  if (agent.is_bot()) return CollectOutcome::kBot;

  Queued event;
  event.created_at = now_();
  const std::int64_t day = event.created_at / kDayMillis;
  CAIRN_ASSIGN_OR_RETURN(const std::string secret, SecretOf(day));
  std::string material = std::to_string(day);
  for (std::string_view part :
       {visit.client_address, user_agent, std::string_view(app_name_), std::string_view(secret)}) {
    material += '\n';  // no part holds a line break (headers cannot)
    material += part;
  }
  event.visitor = crypto::Sha256Hex(material);
  if (view.referrer && !view.referrer->empty())
    event.referrer_domain = ReferrerDomain(*view.referrer);
  event.view = view;
  event.agent = std::move(agent);

  std::vector<Queued> overflow;
  {
    const std::lock_guard lock(queue_mutex_);
    queue_.push_back(std::move(event));
    if (queue_.size() >= kMaxQueuedEvents) {
      overflow.swap(queue_);  // the writer fell behind: this request writes instead of queueing
    } else if (queue_.size() >= kFlushBatch) {
      queue_wake_.notify_one();
    }
  }
  if (!overflow.empty()) CAIRN_TRY(Write(overflow));
  return CollectOutcome::kRecorded;
}

Status AnalyticsService::Write(std::vector<Queued>& events) {
  if (events.empty()) return {};
  std::vector<db::Value> params;
  std::string sql;
  return database_.Transaction(db::Access::kWrite, [&](db::Connection& connection) -> Status {
    for (std::size_t first = 0; first < events.size(); first += kRowsPerInsert) {
      const std::size_t count = std::min(kRowsPerInsert, events.size() - first);
      params.clear();
      sql.assign(kInsert);
      for (std::size_t i = 0; i < count; ++i) {
        const Queued& e = events[first + i];
        if (i > 0) sql += ", ";
        sql += kRow;
        params.emplace_back(e.created_at);
        params.emplace_back(std::string_view(e.visitor));
        params.emplace_back(std::string_view(e.view.path));
        params.push_back(Text(e.view.title));
        params.push_back(Text(e.view.referrer));
        params.push_back(Text(e.referrer_domain));
        params.push_back(Int(e.view.screen_width));
        params.push_back(Int(e.view.screen_height));
        params.push_back(Text(e.view.utm_source));
        params.push_back(Text(e.view.utm_medium));
        params.push_back(Text(e.view.utm_campaign));
        params.push_back(Text(e.view.utm_content));
        params.push_back(Text(e.view.utm_term));
        params.emplace_back(std::string_view(e.agent.browser));
        params.emplace_back(std::string_view(e.agent.os));
        params.emplace_back(std::string_view(e.agent.device_type));
      }
      CAIRN_TRY(connection.Execute(sql, params));
    }
    return {};
  });
}

Status AnalyticsService::Flush() {
  std::vector<Queued> batch;
  {
    const std::lock_guard lock(queue_mutex_);
    batch.swap(queue_);
  }
  return Write(batch);
}

void AnalyticsService::WriterLoop() {
  std::unique_lock lock(queue_mutex_);
  while (!stopping_) {
    queue_wake_.wait_for(lock, std::chrono::milliseconds(kFlushIntervalMs),
                         [this] { return stopping_ || queue_.size() >= kFlushBatch; });
    if (queue_.empty()) continue;
    std::vector<Queued> batch;
    batch.swap(queue_);
    lock.unlock();
    if (auto written = Write(batch); !written.ok()) {
      log::Warn("analytics: writing " + std::to_string(batch.size()) +
                " page views failed, retrying: " + written.error().message);
      lock.lock();
      // Keep them for the next turn, unless the queue is full (then they are dropped, logged).
      if (queue_.size() + batch.size() <= kMaxQueuedEvents) {
        queue_.insert(queue_.begin(), std::make_move_iterator(batch.begin()),
                      std::make_move_iterator(batch.end()));
      }
      continue;
    }
    lock.lock();
  }
}

void AnalyticsService::Shutdown() {
  {
    const std::lock_guard lock(queue_mutex_);
    if (stopping_) return;
    stopping_ = true;
  }
  queue_wake_.notify_one();
  if (writer_.joinable()) writer_.join();
  if (auto flushed = Flush(); !flushed.ok()) {
    log::Warn("analytics: page views lost at shutdown: " + flushed.error().message);
  }
}

}  // namespace cairn::analytics
