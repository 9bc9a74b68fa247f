// The analytics measurements of bench/README.md ("Analytics"), in process on SQLite:
//   collect   page views through AnalyticsService::Collect from several threads (visitor hash,
//             user-agent classification, the write queue, batched inserts), events/s including
//             the final flush;
//   overview  GET-equivalent overview of a 90-day range over N stored events (default 1,000,000;
//             --events 10000000 for the issue's full size), with the days rolled up as the
//             background job leaves them, median of 20 runs; and the same over raw events only.
// Usage: cairn_analytics_probe [--events N] [--collect N] [--dir DIR]
#include <algorithm>
#include <atomic>
#include <chrono>
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
};
const char* const kPaths[] = {"/", "/pricing", "/blog/a", "/blog/b", "/docs", "/about"};

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

// Inserts `count` events spread evenly over the 90 days before `end`, directly (the fixture, not
// the measurement).
void Fill(db::Database& database, std::int64_t count, std::int64_t end) {
  const std::int64_t span = 90 * analytics::kDayMillis;
  const std::int64_t batch = 500;
  for (std::int64_t done = 0; done < count;) {
    Check(database.Transaction(
              db::Access::kWrite,
              [&](db::Connection& connection) -> Status {
                for (int statement = 0; statement < 100 && done < count; ++statement) {
                  std::string sql =
                      R"(INSERT INTO "_cairn_analytics_events" ("created_at", "visitor", "path", )"
                      R"("referrer_domain", "utm_source", "browser", "os", "device_type") VALUES )";
                  std::vector<db::Value> params;
                  const std::int64_t rows = std::min(batch, count - done);
                  for (std::int64_t i = 0; i < rows; ++i, ++done) {
                    if (i > 0) sql += ", ";
                    sql += "(?, ?, ?, ?, ?, ?, ?, ?)";
                    const std::int64_t at = end - span + (done * span) / count;
                    params.emplace_back(at);
                    params.emplace_back("v" + std::to_string((done * 7919) % 50'000) + "-" +
                                        std::to_string(at / analytics::kDayMillis));
                    params.emplace_back(std::string(kPaths[done % 6]));
                    params.emplace_back(done % 3 == 0 ? db::Value(std::string("google.com"))
                                                      : db::Value(db::Null{}));
                    params.emplace_back(done % 10 == 0 ? db::Value(std::string("newsletter"))
                                                       : db::Value(db::Null{}));
                    params.emplace_back(std::string(done % 2 ? "Chrome" : "Firefox"));
                    params.emplace_back(std::string(done % 2 ? "Windows" : "Linux"));
                    params.emplace_back(std::string("desktop"));
                  }
                  CAIRN_TRY(connection.Execute(sql, params));
                }
                return {};
              }),
          "fill");
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::int64_t events = 1'000'000;
  std::int64_t collect = 200'000;
  std::filesystem::path dir = std::filesystem::temp_directory_path() / "cairn-analytics-probe";
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--events") events = std::atoll(argv[i + 1]);
    if (flag == "--collect") collect = std::atoll(argv[i + 1]);
    if (flag == "--dir") dir = argv[i + 1];
  }
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  db::DatabaseOptions options;
  options.sqlite_path = (dir / "cairn.db").string();
  auto database = db::OpenDatabase(options);
  Check(database.ok() ? Status() : Status(database.error()), "open");
  Check(analytics::EnsureAnalyticsSchema(**database), "schema");
  auto agents = analytics::UserAgentClassifier::Shared();
  Check(agents.ok() ? Status() : Status(agents.error()), "uap-core");

  const std::int64_t end = time::NowMillis() / analytics::kDayMillis * analytics::kDayMillis +
                           12 * analytics::kHourMillis;
  std::atomic<std::int64_t> now{end};
  config::AnalyticsConfig config;
  config.retention_days = 730;
  analytics::AnalyticsService service(**database, config, "bench", **agents,
                                      [&now] { return now.load(); });

  // --- collect ---
  {
    const int threads = 4;
    const auto start = Clock::now();
    std::vector<std::thread> workers;
    for (int t = 0; t < threads; ++t) {
      workers.emplace_back([&, t] {
        analytics::PageView view;
        for (std::int64_t i = t; i < collect; i += threads) {
          view.path = kPaths[i % 6];
          const std::string address =
              "10.0." + std::to_string((i / 250) % 250) + "." + std::to_string(i % 250);
          analytics::Visit visit{kAgents[i % 5], address, false};
          Check(service.Collect(view, visit).ok() ? Status() : Error::Internal("collect"),
                "collect");
        }
      });
    }
    for (auto& worker : workers) worker.join();
    Check(service.Flush(), "flush");
    const double seconds = Seconds(start);
    std::printf("collect: %lld events in %.2f s = %.0f events/s (target >= 10000)\n",
                static_cast<long long>(collect), seconds, static_cast<double>(collect) / seconds);
  }
  Check((*database)->Transaction(db::Access::kWrite,
                                 [](db::Connection& c) -> Status {
                                   CAIRN_TRY(
                                       c.Execute(R"(DELETE FROM "_cairn_analytics_events")", {}));
                                   return {};
                                 }),
        "clear");

  // --- overview over 90 days ---
  auto start = Clock::now();
  Fill(**database, events, end);
  std::printf("fixture: %lld events over 90 days in %.1f s\n", static_cast<long long>(events),
              Seconds(start));
  analytics::ReportRange range;
  range.from = end - 90 * analytics::kDayMillis;
  range.to = end;
  const auto median_ms = [&] {
    std::vector<double> runs;
    for (int i = 0; i < 20; ++i) {
      const auto t0 = Clock::now();
      Check(service.GetOverview(range).ok() ? Status() : Error::Internal("overview"), "overview");
      runs.push_back(Seconds(t0) * 1000);
    }
    std::sort(runs.begin(), runs.end());
    return runs[runs.size() / 2];
  };
  std::printf("overview, 90 days, raw events only: median %.1f ms\n", median_ms());
  start = Clock::now();
  int days = 0;
  for (int run = 0; run < 5; ++run) {
    auto report = service.RunMaintenance(end);
    Check(report.ok() ? Status() : Status(report.error()), "maintenance");
    days += report->days_rolled_up;
  }
  std::printf("rollups: %d days in %.1f s\n", days, Seconds(start));
  std::printf("overview, 90 days, rolled up (today raw): median %.1f ms (target <= 100 ms)\n",
              median_ms());
  service.Shutdown();
  (*database)->Close();
  std::filesystem::remove_all(dir);
  return 0;
}
