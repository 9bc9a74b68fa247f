// cairn_openapi_probe: how long generating the OpenAPI documents takes for a large config.
//
//   cairn_openapi_probe [TABLES] [RUNS]
//       starts cairn in process (SQLite in a temporary directory, port 0) with a config of TABLES
//       tables (default 50) of ten fields of assorted types and an auth section, takes the route
//       table it built, and times RUNS (default 50) generations of both documents, serialized
//       (openapi::GenerateDocuments + JSON serialization, what the first request after a start or
//       a schema publish pays; later requests are served from the cache). Prints
//       `PROBE_RESULT tables=N runs=R median_ms=… p90_ms=… median_cpu_ms=… app_bytes=…
//       auth_bytes=…`.
//   cairn_openapi_probe TABLES RUNS FILE
//       also writes the application document to FILE.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <string>
#include <vector>

#include "app/application.hpp"
#include "common/json.hpp"
#include "config/loader.hpp"
#include "openapi/generator.hpp"

namespace {

std::string LargeConfig(int tables) {
  std::string yaml = "name: bench-openapi\nversion: 1.0.0\ntables:\n";
  for (int t = 0; t < tables; ++t) {
    const std::string n = std::to_string(t);
    yaml += "  - name: table_" + n + "\n    fields:\n" +
            "      - { name: title, type: single-line-text, required: true }\n"
            "      - { name: body, type: long-text }\n"
            "      - { name: amount, type: integer, min: 0, max: 1000000 }\n"
            "      - { name: price, type: currency, currency: EUR }\n"
            "      - { name: done, type: checkbox }\n"
            "      - { name: due, type: date }\n"
            "      - { name: at, type: datetime }\n"
            "      - { name: stage, type: single-select, options: [a, b, c] }\n"
            "      - { name: tags, type: multi-select, options: [x, y, z] }\n"
            "      - { name: contact, type: email }\n";
  }
  yaml += "auth:\n  strategies:\n    - type: emailAndPassword\n";
  return yaml;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace cairn;
  const int tables = argc > 1 ? std::stoi(argv[1]) : 50;
  const int runs = argc > 2 ? std::stoi(argv[2]) : 50;
  const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                    ("cairn-openapi-probe-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);

  auto outcome = config::LoadConfigText(LargeConfig(tables), true, dir, "probe.yaml");
  if (!outcome.ok()) {
    std::fprintf(stderr, "probe config is invalid: %s\n",
                 config::FormatIssue(outcome.issues.front()).c_str());
    return 1;
  }
  const config::AppConfig config = *outcome.config;
  std::vector<const http::Route*> routes;
  app::ApplicationOptions options;
  options.settings.port = 0;
  options.settings.data_dir = dir.string();
  options.settings.log_level = log::Level::kWarn;
  options.settings.auth_secret = "0123456789abcdef0123456789abcdef-probe";
  options.config = *outcome.config;
  // The routes live on the heap, so their addresses outlast the move of the router.
  options.extra_routes = [&routes](http::Router& router, db::Database&) -> Status {
    routes = router.Routes();
    return {};
  };
  auto started = app::Application::Start(std::move(options));
  if (!started.ok()) {
    std::fprintf(stderr, "cairn did not start: %s\n", started.error().message.c_str());
    return 1;
  }

  // Wall time, and the thread's CPU time (what the generation costs on a machine that is not
  // shared: the wall time of a loaded machine includes waiting for a core).
  const auto cpu_ms = [] {
    timespec now{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return static_cast<double>(now.tv_sec) * 1e3 + static_cast<double>(now.tv_nsec) / 1e6;
  };
  std::vector<double> times;
  std::vector<double> cpu_times;
  std::size_t app_bytes = 0;
  std::size_t auth_bytes = 0;
  for (int run = 0; run < runs; ++run) {
    const auto start = std::chrono::steady_clock::now();
    const double cpu_start = cpu_ms();
    const openapi::Documents documents = openapi::GenerateDocuments(routes, config);
    std::string app_json;
    std::string auth_json;
    json::Append(app_json, documents.app);
    json::Append(auth_json, documents.auth);
    cpu_times.push_back(cpu_ms() - cpu_start);
    times.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
            .count());
    app_bytes = app_json.size();
    auth_bytes = auth_json.size();
    if (run == 0 && argc > 3) {
      // A copy of the application document, to look at.
      if (std::FILE* out = std::fopen(argv[3], "w")) {
        std::fwrite(app_json.data(), 1, app_json.size(), out);
        std::fclose(out);
      }
    }
  }
  (*started)->Shutdown();
  std::filesystem::remove_all(dir);
  std::sort(times.begin(), times.end());
  std::sort(cpu_times.begin(), cpu_times.end());
  std::printf(
      "PROBE_RESULT tables=%d runs=%d median_ms=%.2f p90_ms=%.2f median_cpu_ms=%.2f "
      "app_bytes=%zu auth_bytes=%zu\n",
      tables, runs, times[times.size() / 2], times[times.size() * 9 / 10],
      cpu_times[cpu_times.size() / 2], app_bytes, auth_bytes);
  return 0;
}
