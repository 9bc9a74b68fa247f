#include "jobs/job_lock.hpp"

namespace cairn::jobs {

Result<bool> TryJobLock(db::Connection& connection, std::string_view job) {
  const auto sql = connection.dialect().TryJobLockSql();
  if (!sql) return true;
  bool acquired = false;
  CAIRN_TRY(
      connection.Execute(*sql, {job}, [&](const db::Row& row) { acquired = row.GetBool(0); }));
  return acquired;
}

}  // namespace cairn::jobs
