// The in-process half of bench/README.md "Analytics" (bench/analytics_probe/run drives it):
//   collect  page views through AnalyticsService::Collect from several threads (visitor hash,
//            user-agent classification, the write queue, batched inserts), events/s including
//            the final flush, on a scratch SQLite database;
//   seed     fills the analytics tables of the database cairn will serve (SQLite --sqlite PATH,
//            or PostgreSQL DATABASE_URL) with N page views over the 90 days before now plus
//            N/9 over the 10 days before those, with realistic visitors, sessions, paths,
//            referrers, campaigns and user agents; then builds the rollups with the background
//            job's own code (AnalyticsService::RunMaintenance, run until it has nothing left).
//            The events go in with multi-row INSERTs in large transactions, the time and visitor
//            indexes dropped first and rebuilt by the schema afterwards (the fixture, not the
//            measurement); both times are printed.
// Usage: cairn_analytics_probe collect [--collect N]
//        cairn_analytics_probe seed [--events N] [--sqlite PATH]
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "analytics/analytics_schema.hpp"
#include "analytics/analytics_service.hpp"
#include "analytics/limits.hpp"
#include "common/time.hpp"
#include "db/database.hpp"

using namespace cairn;
using Clock = std::chrono::steady_clock;

namespace {

const char* const kAgents[] = {
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/120.0.0.0 Safari/537.36",
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like "
    "Gecko) Version/17.0 Mobile/15E148 Safari/604.1",
    "Mozilla/5.0 (X11; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0",
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_1) AppleWebKit/605.1.15 (KHTML, like Gecko) "
    "Version/17.1 Safari/605.1.15",
    "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/120.0.0.0 Mobile Safari/537.36",
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/120.0.0.0 Safari/537.36 Edg/120.0.0.0",
    "Mozilla/5.0 (iPad; CPU OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
    "Version/17.0 Mobile/15E148 Safari/604.1",
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:121.0) Gecko/20100101 Firefox/121.0",
};
// Share of visitors per agent above (percent).
const int kAgentShare[] = {34, 22, 4, 10, 14, 8, 4, 4};
const char* const kCollectPaths[] = {"/", "/pricing", "/blog/a", "/blog/b", "/docs", "/about"};

double Seconds(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

void Check(const Status& status, const char* what) {
  if (!status.ok()) {
    std::fprintf(stderr, "%s: %s %s\n", what, status.error().message.c_str(),
                 status.error().detail.c_str());
    std::exit(1);
  }
}

// splitmix64: a fixed sequence, so every run seeds the same events.
struct Random {
  std::uint64_t state;
  std::uint64_t Next() {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  double Unit() { return static_cast<double>(Next() >> 11) / 9007199254740992.0; }
  std::int64_t Below(std::int64_t n) { return static_cast<std::int64_t>(Unit() * n); }
};

// Zipf-distributed picks among n items (item 0 the most frequent).
class Zipf {
 public:
  Zipf(int n, double s) {
    double sum = 0;
    for (int i = 1; i <= n; ++i) cdf_.push_back(sum += 1.0 / std::pow(i, s));
    for (double& c : cdf_) c /= sum;
  }
  int Pick(Random& random) const {
    return static_cast<int>(std::lower_bound(cdf_.begin(), cdf_.end(), random.Unit()) -
                            cdf_.begin());
  }

 private:
  std::vector<double> cdf_;
};

struct Event {
  std::int64_t at;
  std::string visitor;
  int path;
  int referrer;  // -1 direct
  int campaign;  // -1 none
  int agent;
};

std::string PathName(int i) {
  static const char* const kTop[] = {"/", "/pricing", "/docs", "/blog", "/about", "/signup"};
  if (i < 6) return kTop[i];
  return (i % 3 == 0 ? "/docs/page-" : "/blog/post-") + std::to_string(i);
}
std::string ReferrerName(int i) {
  static const char* const kTop[] = {"google.com",           "bing.com",    "duckduckgo.com",
                                     "news.ycombinator.com", "twitter.com", "reddit.com"};
  if (i < 6) return kTop[i];
  return "site" + std::to_string(i) + ".example.org";
}

// Traffic by hour of the UTC day: low at night, high in the afternoon.
double HourWeight(int hour) {
  return 1.0 + 0.7 * std::sin((hour - 9) * 3.14159265358979 / 12.0);
}

// One UTC day's page views (`quota` of them, roughly), visitor by visitor: 1–3 sessions each
// (gaps over an hour between them), 1–12 pages per session 10 s–5 min apart, a referrer and
// sometimes a campaign on a session's first page. Events after `limit` are dropped (today), so
// today holds only the part of its share that is already past.
void GenerateDay(std::int64_t day, std::int64_t quota, std::int64_t limit, Random& random,
                 const Zipf& paths, const Zipf& referrers, std::vector<Event>& out) {
  std::vector<double> hour_cdf;
  double sum = 0;
  for (int h = 0; h < 24; ++h) hour_cdf.push_back(sum += HourWeight(h));
  std::int64_t made = 0;
  for (std::int64_t v = 0; made < quota; ++v) {
    const int hour = static_cast<int>(
        std::lower_bound(hour_cdf.begin(), hour_cdf.end(), random.Unit() * sum) - hour_cdf.begin());
    std::int64_t at = day * analytics::kDayMillis + hour * analytics::kHourMillis +
                      random.Below(analytics::kHourMillis);
    int agent = 0;
    for (std::int64_t roll = random.Below(100); roll >= kAgentShare[agent]; ++agent)
      roll -= kAgentShare[agent];
    char visitor[80];
    std::snprintf(visitor, sizeof visitor, "%016llx%016llx%016llx%016llx",
                  static_cast<unsigned long long>(random.Next()),
                  static_cast<unsigned long long>(random.Next()),
                  static_cast<unsigned long long>(day), static_cast<unsigned long long>(v));
    const std::int64_t roll = random.Below(100);
    const int sessions = roll < 80 ? 1 : roll < 95 ? 2 : 3;
    for (int s = 0; s < sessions; ++s) {
      const std::int64_t r = random.Below(100);
      const int referrer = r < 55   ? -1
                           : r < 85 ? static_cast<int>(random.Below(3))
                                    : referrers.Pick(random);
      const int campaign = random.Below(100) < 5 ? static_cast<int>(random.Below(20)) : -1;
      const int pages = 1 + static_cast<int>(std::min<std::int64_t>(11, random.Below(7)));
      for (int p = 0; p < pages; ++p) {
        // A visitor id is one UTC day's (the hash includes the day): past midnight it ends.
        if (at >= (day + 1) * analytics::kDayMillis) break;
        // Today's page views after now have not happened yet, but count toward the day's share.
        if (at <= limit) {
          out.push_back({at, visitor, paths.Pick(random), p == 0 ? referrer : -1,
                         p == 0 ? campaign : -1, agent});
        }
        ++made;
        at += 10'000 + random.Below(290'000);
      }
      at += analytics::kHourMillis + random.Below(5 * analytics::kHourMillis);
    }
  }
}

Status InsertDay(db::Connection& connection, std::vector<Event>& events,
                 const std::vector<analytics::UserAgentClass>& classes) {
  std::sort(events.begin(), events.end(),
            [](const Event& a, const Event& b) { return a.at < b.at; });
  constexpr std::size_t kRows = 400;
  std::vector<std::string> text;
  for (std::size_t first = 0; first < events.size(); first += kRows) {
    const std::size_t count = std::min(kRows, events.size() - first);
    std::string sql =
        R"(INSERT INTO "_cairn_analytics_events" ("created_at", "visitor", "path", "referrer", )"
        R"("referrer_domain", "screen_width", "screen_height", "utm_source", "utm_medium", )"
        R"("utm_campaign", "browser", "os", "device_type") VALUES )";
    std::vector<db::Value> params;
    text.clear();
    text.reserve(count * 6);
    for (std::size_t i = 0; i < count; ++i) {
      const Event& e = events[first + i];
      const analytics::UserAgentClass& agent = classes[e.agent];
      if (i > 0) sql += ", ";
      sql += "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
      params.emplace_back(e.at);
      params.emplace_back(std::string_view(e.visitor));
      params.emplace_back(text.emplace_back(PathName(e.path)));
      if (e.referrer < 0) {
        params.emplace_back(db::Null{});
        params.emplace_back(db::Null{});
      } else {
        const std::string& domain = text.emplace_back(ReferrerName(e.referrer));
        params.emplace_back(text.emplace_back("https://" + domain + "/"));
        params.emplace_back(std::string_view(domain));
      }
      const bool mobile = agent.device_type != "desktop";
      params.emplace_back(std::int64_t{mobile ? 390 : 1920});
      params.emplace_back(std::int64_t{mobile ? 844 : 1080});
      if (e.campaign < 0) {
        for (int k = 0; k < 3; ++k) params.emplace_back(db::Null{});
      } else {
        params.emplace_back(text.emplace_back(e.campaign % 5 == 0 ? "twitter" : "newsletter"));
        params.emplace_back(text.emplace_back(e.campaign % 5 == 0 ? "social" : "email"));
        params.emplace_back(text.emplace_back("campaign-" + std::to_string(e.campaign)));
      }
      params.emplace_back(std::string_view(agent.browser));
      params.emplace_back(std::string_view(agent.os));
      params.emplace_back(std::string_view(agent.device_type));
    }
    CAIRN_TRY(connection.Execute(sql, params));
  }
  return {};
}

int Seed(std::int64_t events, const db::DatabaseOptions& options) {
  auto database = db::OpenDatabase(options);
  Check(database.ok() ? Status() : Status(database.error()), "open");
  db::Database& db = **database;
  Check(analytics::EnsureAnalyticsSchema(db), "schema");
  auto agents = analytics::UserAgentClassifier::Shared();
  Check(agents.ok() ? Status() : Status(agents.error()), "uap-core");
  std::vector<analytics::UserAgentClass> classes;
  for (const char* agent : kAgents) classes.push_back((*agents)->Classify(agent));

  Check(
      db.Transaction(
          db::Access::kSchema,
          [](db::Connection& c) -> Status {
            for (const char* table : {"_cairn_analytics_events", "_cairn_analytics_daily",
                                      "_cairn_analytics_hourly", "_cairn_analytics_hourly_classes",
                                      "_cairn_analytics_visitor_days", "_cairn_analytics_state"}) {
              CAIRN_TRY(c.Execute(std::string("DELETE FROM \"") + table + "\"", {}));
            }
            CAIRN_TRY(c.Execute(R"(DROP INDEX IF EXISTS "_cairn_analytics_events_created")", {}));
            CAIRN_TRY(c.Execute(R"(DROP INDEX IF EXISTS "_cairn_analytics_events_visitor")", {}));
            return {};
          }),
      "clear");

  const std::int64_t now = time::NowMillis();
  const std::int64_t today = now / analytics::kDayMillis;
  const std::int64_t range_start = now - 90 * analytics::kDayMillis;
  const Zipf paths(2000, 1.1);
  const Zipf referrers(300, 1.2);
  Random random{42};
  std::int64_t stored = 0;
  std::int64_t in_range = 0;
  const auto start = Clock::now();
  // Days 100 … 0 before today: the range's 90 days get `events`, the 10 before it a ninth of that.
  for (std::int64_t day = today - 100; day <= today; ++day) {
    const bool before = (day + 1) * analytics::kDayMillis <= range_start;
    const double share = before ? 1.0 / 9 / 10 : 1.0 / 90;
    std::vector<Event> batch;
    GenerateDay(day, static_cast<std::int64_t>(static_cast<double>(events) * share), now, random,
                paths, referrers, batch);
    for (const Event& e : batch) in_range += e.at >= range_start ? 1 : 0;
    stored += static_cast<std::int64_t>(batch.size());
    Check(db.Transaction(db::Access::kWrite,
                         [&](db::Connection& c) { return InsertDay(c, batch, classes); }),
          "insert");
  }
  std::printf("seed: %lld events (%lld in the last 90 days) inserted in %.1f s\n",
              static_cast<long long>(stored), static_cast<long long>(in_range), Seconds(start));
  auto indexes = Clock::now();
  Check(analytics::EnsureAnalyticsSchema(db), "indexes");
  if (db.dialect().backend() == db::Backend::kPostgres) {
    Check(db.Transaction(db::Access::kSchema,
                         [](db::Connection& c) -> Status {
                           CAIRN_TRY(c.Execute(R"(ANALYZE "_cairn_analytics_events")", {}));
                           return {};
                         }),
          "analyze");
  }
  std::printf("seed: indexes built in %.1f s\n", Seconds(indexes));

  // The rollups, as the background job builds them (it stops after kMaxHoursRolledUpPerRun).
  config::AnalyticsConfig config;
  config.retention_days = 730;
  analytics::AnalyticsService service(db, config, "bench", **agents, {});
  const auto rollups = Clock::now();
  int hours = 0;
  int days = 0;
  for (;;) {
    auto report = service.RunMaintenance(time::NowMillis());
    Check(report.ok() ? Status() : Status(report.error()), "maintenance");
    hours += report->hours_rolled_up;
    days += report->days_rolled_up;
    if (report->hours_rolled_up == 0) break;
  }
  std::printf("seed: rollups of %d hours and %d days built by the job's code in %.1f s\n", hours,
              days, Seconds(rollups));
  if (db.dialect().backend() == db::Backend::kPostgres) {
    Check(db.Transaction(db::Access::kSchema,
                         [](db::Connection& c) -> Status {
                           CAIRN_TRY(c.Execute("ANALYZE", {}));
                           return {};
                         }),
          "analyze");
  }
  service.Shutdown();
  db.Close();
  return 0;
}

int Collect(std::int64_t collect) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / "cairn-analytics-probe";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  db::DatabaseOptions options;
  options.sqlite_path = (dir / "cairn.db").string();
  auto database = db::OpenDatabase(options);
  Check(database.ok() ? Status() : Status(database.error()), "open");
  Check(analytics::EnsureAnalyticsSchema(**database), "schema");
  auto agents = analytics::UserAgentClassifier::Shared();
  Check(agents.ok() ? Status() : Status(agents.error()), "uap-core");
  config::AnalyticsConfig config;
  analytics::AnalyticsService service(**database, config, "bench", **agents, {});
  const int threads = 4;
  const auto start = Clock::now();
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      analytics::PageView view;
      for (std::int64_t i = t; i < collect; i += threads) {
        view.path = kCollectPaths[i % 6];
        const std::string address =
            "10.0." + std::to_string((i / 250) % 250) + "." + std::to_string(i % 250);
        analytics::Visit visit{kAgents[i % 5], address, false};
        Check(service.Collect(view, visit).ok() ? Status() : Error::Internal("collect"), "collect");
      }
    });
  }
  for (auto& worker : workers) worker.join();
  Check(service.Flush(), "flush");
  const double seconds = Seconds(start);
  std::printf("collect: %lld events in %.2f s = %.0f events/s (target >= 10000)\n",
              static_cast<long long>(collect), seconds, static_cast<double>(collect) / seconds);
  service.Shutdown();
  (*database)->Close();
  std::filesystem::remove_all(dir);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // progress shows through `tee`
  const std::string mode = argc > 1 ? argv[1] : "";
  std::int64_t events = 10'000'000;
  std::int64_t collect = 200'000;
  db::DatabaseOptions options;
  if (const char* url = std::getenv("DATABASE_URL"); url != nullptr) options.url = url;
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--events") events = std::atoll(argv[i + 1]);
    if (flag == "--collect") collect = std::atoll(argv[i + 1]);
    if (flag == "--sqlite") options.sqlite_path = argv[i + 1];
  }
  if (mode == "collect") return Collect(collect);
  if (mode == "seed" && (!options.url.empty() || !options.sqlite_path.empty())) {
    return Seed(events, options);
  }
  std::fprintf(stderr,
               "usage: cairn_analytics_probe collect [--collect N]\n"
               "       cairn_analytics_probe seed [--events N] (--sqlite PATH | DATABASE_URL)\n");
  return 2;
}
