// The purge job (D19a): erases the accounts whose deletion grace period is over, then applies
// ECO_RETENTION_PURGE_DAYS to the trash of every table. Run by the scheduler on every node (one
// node at a time: each step is a transaction under the job's advisory lock on PostgreSQL) and by
// `cairn admin purge-due`. Every step checks again, inside its transaction, that its work is
// still due, so concurrent runs and concurrent requests never purge anything twice.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "auth/auth_service.hpp"
#include "common/result.hpp"
#include "config/model.hpp"
#include "db/database.hpp"
#include "records/record_service.hpp"

namespace cairn::jobs {

inline constexpr std::string_view kPurgeJobName = "purge";

struct PurgeReport {
  // Another node held the job's lock: this run stopped where it found it.
  bool skipped = false;
  std::vector<std::string> erased_user_ids;
  struct TableRetention {
    std::string table;  // config name
    std::int64_t purged = 0;
    std::int64_t kept = 0;  // past the horizon, but another record's restrict reference holds it
  };
  std::vector<TableRetention> retention;  // one per table with anything purged or kept
  bool retention_enabled = false;
};

// What a run reads from the served schema version: its record service, config and auth service
// (a publish swaps them; `owner` keeps them alive until the run ends).
struct PurgeTables {
  std::shared_ptr<const void> owner;
  records::RecordService* records = nullptr;  // null: no tables served
  const config::AppConfig* config = nullptr;
  auth::AuthService* auth = nullptr;  // never null
};
using PurgeTablesSource = std::function<PurgeTables()>;

class PurgeJob {
 public:
  // `tables` is asked once per run (the version served at that moment).
  PurgeJob(db::Database& database, PurgeTablesSource tables, std::optional<int> retention_days);
  // `records` may be null (no tables served): then only erasures run. `retention_days` unset:
  // the trash is kept forever.
  PurgeJob(db::Database& database, auth::AuthService& auth, records::RecordService* records,
           const config::AppConfig& config, std::optional<int> retention_days);

  // One run as of `now` (epoch millis).
  Result<PurgeReport> Run(std::int64_t now);

 private:
  // Runs `step` in a write transaction that holds the job's lock; false when another node held
  // it (nothing ran).
  Result<bool> LockedStep(const std::function<Status(db::Connection&)>& step);
  Status PurgeTable(records::RecordService& records, const config::Table& table,
                    std::int64_t cutoff, PurgeReport& report);

  db::Database& database_;
  PurgeTablesSource tables_;
  std::optional<int> retention_days_;
};

// The report as the lines `cairn admin purge-due` prints.
std::string FormatPurgeReport(const PurgeReport& report);

}  // namespace cairn::jobs
