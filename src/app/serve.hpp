// `cairn serve`: load settings and config, start the application, wait for SIGINT or SIGTERM,
// shut down gracefully (D5).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "app/application.hpp"
#include "app/settings.hpp"
#include "config/loader.hpp"

namespace cairn::app {

inline constexpr int kExitOk = 0;
inline constexpr int kExitInvalid = 1;  // invalid config or settings, failed startup
inline constexpr int kExitUsage = 2;

// Prints config issues, one per line, and their count, to stderr.
void PrintIssues(const std::vector<config::ConfigIssue>& issues);

// Serves `config_path` until a signal arrives; returns the process exit code. `extra_routes`
// lets test programs add probe routes.
int Serve(const std::string& config_path, const Flags& flags,
          std::function<Status(http::Router&, db::Database&)> extra_routes);

}  // namespace cairn::app
