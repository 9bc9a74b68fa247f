// Support for the fault tests (issue 22): a throwaway PostgreSQL cluster the test can stop and
// start, the real `cairn` binary serving a small `items` table, and process measurements.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "db/database.hpp"
#include "e2e/server_process.hpp"
#include "support/http_client.hpp"

namespace cairn::test {

// A PostgreSQL cluster of its own (initdb into a temporary directory, a unix socket there only,
// the superuser `cairn`, trust auth), as scripts/with-postgres makes one. As root the server runs
// as the `postgres` system user. fsync is off (only an OS crash would need it) but commits are
// synchronous, so a commit PostgreSQL acknowledged survives an immediate stop.
class PostgresCluster {
 public:
  // Throws when the binaries are missing or initdb/start fail.
  PostgresCluster();
  ~PostgresCluster();
  PostgresCluster(const PostgresCluster&) = delete;
  PostgresCluster& operator=(const PostgresCluster&) = delete;

  // The database `cairn` on this cluster, as DATABASE_URL.
  std::string url() const;
  void Start();
  // `pg_ctl stop -m immediate`: every backend is killed at once, as in a crash of the server.
  void Stop();

 private:
  void Run(const std::string& command) const;
  std::filesystem::path root_;
  std::string bindir_;
  bool running_ = false;
};

// The `cairn` binary serving the fault tests' config (a table `items`: name, version, tag, notes)
// with an admin account, on the SQLite data dir `data_dir` or `database_url`.
class FaultServer {
 public:
  FaultServer(std::filesystem::path work_dir, std::filesystem::path data_dir,
              std::string database_url, std::vector<std::string> extra_env = {});
  ~FaultServer();

  // Starts the server (again) and signs the admin in.
  void Start();
  // SIGKILL (or another signal); returns the wait status.
  int Stop(int signal);
  std::uint16_t port() const { return process_->port(); }
  pid_t pid() const { return process_->pid(); }
  std::string Log() const { return process_->Log(); }
  // Authorization and Content-Type headers for the admin.
  Headers Admin() const;

 private:
  std::filesystem::path work_dir_;
  std::vector<std::string> env_;
  std::unique_ptr<ServerProcess> process_;
  std::string token_;
};

// Runs `sql` in a read transaction of `database`; throws on an error.
db::Rows QueryAll(db::Database& database, const std::string& sql);

// On PostgreSQL, waits (up to 10 s) until no other session of this database is busy (active or
// in a transaction), so the work of a killed client's backends has ended. True on SQLite.
bool WaitForOtherBackendsToEnd(db::Database& database);

// User plus system CPU time a process has used so far (/proc/<pid>/stat).
std::chrono::milliseconds ProcessCpuTime(pid_t pid);
// Descriptors the process has open (/proc/<pid>/fd).
int OpenDescriptors(pid_t pid);

// Milliseconds since `start`.
inline double MillisSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

// A figure for docs/reliability.md and `make reliability`: printed as `[figure] <text>`.
void PrintFigure(const std::string& text);

}  // namespace cairn::test
