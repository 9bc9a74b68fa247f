#include "jobs/purge_job.hpp"

#include "auth/limits.hpp"
#include "common/log.hpp"
#include "db/db_error.hpp"
#include "jobs/job_lock.hpp"
#include "jobs/limits.hpp"

namespace cairn::jobs {

PurgeJob::PurgeJob(db::Database& database, auth::AuthService& auth, records::RecordService* records,
                   const config::AppConfig& config, std::optional<int> retention_days)
    : PurgeJob(
          database,
          [&auth, records, &config] {
            return PurgeTables{nullptr, records, &config, &auth};
          },
          retention_days) {}

PurgeJob::PurgeJob(db::Database& database, PurgeTablesSource tables,
                   std::optional<int> retention_days)
    : database_(database), tables_(std::move(tables)), retention_days_(retention_days) {}

Result<bool> PurgeJob::LockedStep(const std::function<Status(db::Connection&)>& step) {
  bool ours = false;
  CAIRN_TRY(database_.Transaction(db::Access::kWrite, [&](db::Connection& connection) -> Status {
    CAIRN_ASSIGN_OR_RETURN(ours, TryJobLock(connection, kPurgeJobName));
    if (!ours) return {};
    return step(connection);
  }));
  return ours;
}

Result<PurgeReport> PurgeJob::Run(std::int64_t now) {
  PurgeReport report;
  const PurgeTables served = tables_();
  auth::AuthService& auth = *served.auth;
  CAIRN_ASSIGN_OR_RETURN(auto due, auth.DueErasures(now, auth::kMaxErasuresPerRun));
  for (const std::string& user_id : due) {
    bool erased = false;
    // One account per transaction: each erasure commits with its purge entry, alone.
    CAIRN_ASSIGN_OR_RETURN(bool ran, LockedStep([&](db::Connection& connection) -> Status {
                             CAIRN_ASSIGN_OR_RETURN(erased,
                                                    auth.PurgeIfDue(connection, user_id, now));
                             return {};
                           }));
    if (!ran) {
      report.skipped = true;
      return report;
    }
    if (erased) report.erased_user_ids.push_back(user_id);
  }
  report.retention_enabled = retention_days_.has_value() && served.records != nullptr;
  if (!report.retention_enabled) return report;
  const std::int64_t cutoff =
      now - static_cast<std::int64_t>(*retention_days_) * auth::kMillisPerDay;
  for (const config::Table& table : served.config->tables) {
    CAIRN_TRY(PurgeTable(*served.records, table, cutoff, report));
    if (report.skipped) return report;
  }
  return report;
}

Status PurgeJob::PurgeTable(records::RecordService& records, const config::Table& table,
                            std::int64_t cutoff, PurgeReport& report) {
  PurgeReport::TableRetention counts{table.name};
  std::int64_t after = 0;
  int batch = kRetentionBatchSize;
  for (;;) {
    records::RecordService::TrashPurge progress;
    Result<bool> ran = LockedStep([&](db::Connection& connection) {
      progress = {after, 0, 0};  // the step may run again (busy retry)
      return records.PurgeTrash(connection, table, cutoff, batch, progress);
    });
    if (!ran.ok() && db::ErrorKindOf(ran.error()) == db::DbErrorKind::kForeignKey) {
      if (batch > 1) {
        batch = 1;  // find the one record held back: the batch again, one record at a time
        continue;
      }
      // Another record refers to this one with `onDelete: restrict`: it stays in the trash.
      log::Warn("retention: record " + std::to_string(progress.last_id) + " of table \"" +
                table.name + "\" is still referenced (restrict) and stays in the trash");
      ++counts.kept;
      after = progress.last_id;
      batch = kRetentionBatchSize;
      continue;
    }
    if (!ran.ok()) return ran.error();
    if (!*ran) {
      report.skipped = true;
      break;
    }
    counts.purged += progress.purged;
    after = progress.last_id;
    if (progress.examined < batch) break;
  }
  if (counts.purged > 0 || counts.kept > 0) report.retention.push_back(std::move(counts));
  return {};
}

std::string FormatPurgeReport(const PurgeReport& report) {
  std::string out;
  if (report.skipped) out += "another node is running the purge: this run stopped early\n";
  out += "accounts erased: " + std::to_string(report.erased_user_ids.size()) + "\n";
  for (const std::string& id : report.erased_user_ids) out += "  erased user " + id + "\n";
  if (!report.retention_enabled) {
    out += "retention: off (ECO_RETENTION_PURGE_DAYS is not set)\n";
    return out;
  }
  std::int64_t purged = 0;
  for (const auto& table : report.retention) purged += table.purged;
  out += "records purged from the trash: " + std::to_string(purged) + "\n";
  for (const auto& table : report.retention) {
    out += "  " + table.table + ": " + std::to_string(table.purged) + " purged";
    if (table.kept > 0) out += ", " + std::to_string(table.kept) + " kept (still referenced)";
    out += "\n";
  }
  return out;
}

}  // namespace cairn::jobs
