#include "e2e/fault_support.hpp"

#include <dirent.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "support/test_database.hpp"

namespace cairn::test {
namespace {

constexpr const char* kConfig = R"(name: faults
version: 1.0.0
tables:
  - id: 1
    name: items
    fields:
      - { id: 1, name: name, type: single-line-text, required: true }
      - { id: 2, name: version, type: integer }
      - { id: 3, name: tag, type: integer }
      - { id: 4, name: notes, type: long-text }
auth:
  strategies:
    - type: emailAndPassword
)";
constexpr const char* kAdminEmail = "faults@example.com";
constexpr const char* kAdminPassword = "faults password";

std::string FindBindir() {
  if (const char* dir = std::getenv("PG_BINDIR")) return dir;
  std::string found;
  for (const auto& entry : std::filesystem::directory_iterator("/usr/lib/postgresql")) {
    if (std::filesystem::exists(entry.path() / "bin" / "initdb")) found = entry.path() / "bin";
  }
  if (found.empty()) throw std::runtime_error("no PostgreSQL server binaries (set PG_BINDIR)");
  return found;
}

// As root, initdb and postgres refuse to run: the cluster belongs to the postgres system user.
std::string AsOwner(const std::string& command) {
  return geteuid() == 0 ? "runuser -u postgres -- " + command : command;
}

}  // namespace

PostgresCluster::PostgresCluster() : bindir_(FindBindir()) {
  // The socket path (<root>/.s.PGSQL.5432) must stay under the 107-byte unix socket limit.
  std::string pattern = "/tmp/cairn-fault-pg.XXXXXX";
  if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  root_ = pattern;
  std::filesystem::permissions(root_, std::filesystem::perms(0755));
  if (geteuid() == 0) Run("chown postgres: " + root_.string());
  Run(AsOwner(bindir_ + "/initdb -D " + (root_ / "data").string() +
              " -U cairn -A trust -E UTF8 --locale=C.UTF-8 --no-sync > " +
              (root_ / "initdb.log").string() + " 2>&1"));
  Start();
  Run(bindir_ + "/createdb -h " + root_.string() + " -U cairn cairn");
}

PostgresCluster::~PostgresCluster() {
  if (running_) {
    std::system(AsOwner(bindir_ + "/pg_ctl -D " + (root_ / "data").string() +
                        " -m immediate -w stop > /dev/null 2>&1")
                    .c_str());
  }
  std::error_code ignored;
  std::filesystem::remove_all(root_, ignored);
}

std::string PostgresCluster::url() const {
  return "postgresql:///cairn?host=" + root_.string() + "&user=cairn";
}

void PostgresCluster::Start() {
  Run(AsOwner(bindir_ + "/pg_ctl -D " + (root_ / "data").string() + " -l " +
              (root_ / "server.log").string() + " -w -t 60 -o \"-c listen_addresses='' " +
              "-c unix_socket_directories='" + root_.string() +
              "' -c fsync=off -c max_connections=100\" start > /dev/null"));
  running_ = true;
}

void PostgresCluster::Stop() {
  Run(AsOwner(bindir_ + "/pg_ctl -D " + (root_ / "data").string() +
              " -m immediate -w stop > /dev/null"));
  running_ = false;
}

void PostgresCluster::Run(const std::string& command) const {
  if (std::system(command.c_str()) != 0) {
    std::ifstream log(root_ / "server.log");
    std::stringstream text;
    text << log.rdbuf();
    throw std::runtime_error("failed: " + command + "\n" + text.str());
  }
}

FaultServer::FaultServer(std::filesystem::path work_dir, std::filesystem::path data_dir,
                         std::string database_url, std::vector<std::string> extra_env)
    : work_dir_(std::move(work_dir)) {
  std::ofstream(work_dir_ / "faults.yaml") << kConfig;
  env_ = {"PORT=0", "CAIRN_DATA_DIR=" + data_dir.string(),
          std::string("AUTH_ADMIN_EMAIL=") + kAdminEmail,
          std::string("AUTH_ADMIN_PASSWORD=") + kAdminPassword, "RATE_LIMIT_DISABLED=true"};
  if (!database_url.empty()) env_.push_back("DATABASE_URL=" + database_url);
  env_.insert(env_.end(), extra_env.begin(), extra_env.end());
}

FaultServer::~FaultServer() = default;

void FaultServer::Start() {
  process_.reset();
  process_ = std::make_unique<ServerProcess>(
      CAIRN_BINARY, std::vector<std::string>{"serve", (work_dir_ / "faults.yaml").string()}, env_,
      work_dir_ / "server.log");
  const auto result = HttpClient(port()).PostJson(
      "/api/auth/sign-in/email",
      std::string(R"({"email":")") + kAdminEmail + R"(","password":")" + kAdminPassword + "\"}");
  if (result.status != 200) throw std::runtime_error("sign-in: " + result.body);
  token_ = std::string(result.Json().at("token").as_string());
}

int FaultServer::Stop(int signal) {
  return process_->Stop(signal);
}

Headers FaultServer::Admin() const {
  return {{"Authorization", "Bearer " + token_}, {"Content-Type", "application/json"}};
}

db::Rows QueryAll(db::Database& database, const std::string& sql) {
  db::Rows rows;
  const Status status =
      database.Transaction(db::Access::kRead, [&](db::Connection& connection) -> Status {
        CAIRN_ASSIGN_OR_RETURN(rows, connection.Query(sql));
        return Status{};
      });
  if (!status.ok()) throw std::runtime_error(sql + ": " + status.error().message);
  return rows;
}

bool WaitForOtherBackendsToEnd(db::Database& database) {
  if (!IsPostgres()) return true;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (std::chrono::steady_clock::now() < deadline) {
    const db::Rows rows = QueryAll(database,
                                   "SELECT count(*) FROM pg_stat_activity WHERE datname = "
                                   "current_database() AND pid <> pg_backend_pid() AND state "
                                   "IS DISTINCT FROM 'idle'");
    if (!rows.rows.empty() && rows.rows[0].at(0).value_or("") == "0") return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

std::chrono::milliseconds ProcessCpuTime(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // Fields after the command name (which may hold spaces): state is field 3, utime 14, stime 15.
  std::istringstream fields(stat.substr(stat.rfind(')') + 2));
  std::string field;
  long long utime = 0;
  long long stime = 0;
  for (int index = 3; fields >> field; ++index) {
    if (index == 14) utime = std::stoll(field);
    if (index == 15) {
      stime = std::stoll(field);
      break;
    }
  }
  const long ticks = sysconf(_SC_CLK_TCK);
  return std::chrono::milliseconds((utime + stime) * 1000 / ticks);
}

int OpenDescriptors(pid_t pid) {
  int count = 0;
  for ([[maybe_unused]] const auto& entry :
       std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/fd")) {
    ++count;
  }
  return count;
}

void PrintFigure(const std::string& text) {
  std::cout << "[figure] " << (IsPostgres() ? "postgres: " : "sqlite: ") << text << std::endl;
}

}  // namespace cairn::test
