#include "app/serve.hpp"

#include <csignal>
#include <iostream>

#include <pthread.h>

#include "app/not_served.hpp"
#include "common/log.hpp"

namespace cairn::app {
namespace {

// One line per config key or setting this build accepts but does not act on (not_served.hpp).
void WarnNotServed(const config::LoadOutcome& outcome, const EnvLookup& env) {
  for (const NotServedLine& line : NotServedReport(outcome, &env)) {
    if (line.kind == NoticeKind::kNotServed) {
      log::Warn(line.text);
    } else {
      log::Info(line.text);
    }
  }
}

}  // namespace

void PrintIssues(const std::vector<config::ConfigIssue>& issues) {
  for (const auto& issue : issues) std::cerr << config::FormatIssue(issue) << "\n";
  std::cerr << issues.size() << (issues.size() == 1 ? " error" : " errors") << "\n";
}

int Serve(const std::string& config_path, const Flags& flags,
          std::function<Status(http::Router&, db::Database&)> extra_routes) {
  const EnvLookup env = ProcessEnvironment();
  auto settings = LoadSettings(flags, env);
  if (!settings.ok()) {
    std::cerr << settings.error().message << "\n";
    return kExitInvalid;
  }
  auto outcome = config::LoadConfigFile(config_path);
  if (!outcome.config) {
    PrintIssues(outcome.issues);
    return kExitInvalid;
  }
  log::SetLevel(settings->log_level);
  WarnNotServed(outcome, env);
  // Signals are taken by this thread alone (sigwait); every thread started below inherits the
  // mask, so none of them is interrupted by SIGINT or SIGTERM.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  // A file-size limit (RLIMIT_FSIZE, `ulimit -f`) would otherwise kill the process with SIGXFSZ
  // in the middle of an upload; ignored, the write fails with EFBIG and the upload is answered
  // 507 like a full disk (D47).
  std::signal(SIGXFSZ, SIG_IGN);

  ApplicationOptions options;
  options.settings = *settings;
  options.config = std::move(*outcome.config);
  options.extra_routes = std::move(extra_routes);
  auto app = Application::Start(std::move(options));
  if (!app.ok()) {
    std::cerr << "cairn: " << app.error().message;
    if (!app.error().detail.empty()) std::cerr << " (" << app.error().detail << ")";
    std::cerr << "\n";
    return kExitInvalid;
  }
  log::Info("listening on http://" + settings->host + ":" + std::to_string((*app)->port()));
  int signal_number = 0;
  sigwait(&signals, &signal_number);
  log::Info(std::string("received ") + (signal_number == SIGINT ? "SIGINT" : "SIGTERM") +
            ", shutting down");
  (*app)->Shutdown();
  log::Info("stopped");
  return kExitOk;
}

}  // namespace cairn::app
