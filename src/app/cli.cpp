#include "app/cli.hpp"

#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "app/admin_commands.hpp"
#include "app/not_served.hpp"
#include "app/serve.hpp"
#include "app/settings.hpp"
#include "common/json.hpp"
#include "common/log.hpp"
#include "config/loader.hpp"

namespace cairn::app {
namespace {

constexpr const char* kUsage = R"(cairn — one configuration file, a complete application backend.

Usage:
  cairn serve <config> [options]   serve the app (also: cairn <config>)
  cairn validate <config>          check a config; prints every error with its key path
  cairn schema                     print the JSON Schema of the config file
  cairn admin create <email> --password <p> [--name <n>]
                                   create a verified admin in the configured database
                                   (the password may come from AUTH_ADMIN_PASSWORD instead)
  cairn admin purge-due <config>   erase the accounts whose deletion grace period is over and
                                   purge the trash past ECO_RETENTION_PURGE_DAYS, now
  cairn secret generate            print a random AUTH_SECRET
  cairn --version                  print the version
  cairn --help                     print this help

Options for serve (flags beat environment variables beat defaults):
  --host <ip>          HOST          address to listen on (127.0.0.1)
  --port <n>           PORT          port to listen on (3000)
  --data-dir <dir>     CAIRN_DATA_DIR  SQLite database and files (./cairn_data)
  --base-url <url>     BASE_URL      public URL used in links (http://<host>:<port>)
  --log-level <level>  LOG_LEVEL     debug, info, warn or error (info)
  --database-url <url> DATABASE_URL  postgres://… to use PostgreSQL instead of SQLite

See docs/config.md for the config format and docs/settings.md for every setting.
)";

struct CommandLine {
  std::vector<std::string> positional;
  Flags flags;
  std::string error;
};

CommandLine Parse(int argc, char** argv) {
  static const std::vector<std::string> kValueFlags = {
      "host", "port", "data-dir", "base-url", "log-level", "database-url", "password", "name"};
  CommandLine line;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h" || arg == "--version") {
      line.flags[arg.substr(arg.find_first_not_of('-'))] = "true";
      continue;
    }
    if (!arg.starts_with("--")) {
      line.positional.push_back(arg);
      continue;
    }
    std::string name = arg.substr(2);
    std::string value;
    bool has_value = false;
    if (auto eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
      has_value = true;
    }
    if (std::find(kValueFlags.begin(), kValueFlags.end(), name) == kValueFlags.end()) {
      line.error = "unknown option --" + name;
      return line;
    }
    if (!has_value) {
      if (i + 1 >= argc) {
        line.error = "option --" + name + " needs a value";
        return line;
      }
      value = argv[++i];
    }
    line.flags[name] = value;
  }
  return line;
}

int Validate(const std::string& path) {
  auto outcome = config::LoadConfigFile(path);
  if (!outcome.config) {
    PrintIssues(outcome.issues);
    return kExitInvalid;
  }
  // Settings are not read here: the environment of a deployment is not this shell's.
  for (const NotServedLine& line : NotServedReport(outcome, nullptr)) {
    if (line.kind == NoticeKind::kNotServed) std::cerr << line.text << "\n";
  }
  std::cout << "valid: " << outcome.config->name << "\n";
  return kExitOk;
}

}  // namespace

int RunCli(int argc, char** argv) {
  CommandLine line = Parse(argc, argv);
  if (!line.error.empty()) {
    std::cerr << "cairn: " << line.error << "\n\n" << kUsage;
    return kExitUsage;
  }
  if (line.flags.contains("version")) {
    std::cout << "cairn " << CAIRN_VERSION << "\n";
    return kExitOk;
  }
  if (line.flags.contains("help") || line.flags.contains("h")) {
    std::cout << kUsage;
    return kExitOk;
  }
  const auto& args = line.positional;
  if (args.empty()) {
    std::cerr << kUsage;
    return kExitUsage;
  }
  const std::string& command = args[0];
  if (command == "schema" && args.size() == 1) {
    std::cout << json::SerializePretty(config::ConfigJsonSchema()) << "\n";
    return kExitOk;
  }
  if (command == "validate" && args.size() == 2) return Validate(args[1]);
  if (command == "admin" && args.size() == 3 && args[1] == "create") {
    return AdminCreate(args[2], line.flags);
  }
  if (command == "admin" && args.size() == 3 && args[1] == "purge-due") {
    return AdminPurgeDue(args[2], line.flags);
  }
  if (command == "secret" && args.size() == 2 && args[1] == "generate") return SecretGenerate();
  if (command == "serve" && args.size() == 2) return Serve(args[1], line.flags, {});
  const bool looks_like_config =
      command.ends_with(".yaml") || command.ends_with(".yml") || command.ends_with(".json");
  if (args.size() == 1 && looks_like_config) return Serve(command, line.flags, {});
  std::cerr << "cairn: unknown command or wrong arguments: " << command << "\n\n" << kUsage;
  return kExitUsage;
}

}  // namespace cairn::app
