#include "db/database.hpp"

#include <algorithm>
#include <random>
#include <thread>
#include <vector>

#include "db/db_error.hpp"
#include "db/limits.hpp"
#include "db/transaction_support.hpp"

namespace cairn::db {

Result<Rows> Connection::Query(std::string_view sql, std::span<const Value> params) {
  Rows rows;
  bool first = true;
  auto result = Execute(sql, params, [&](const Row& row) {
    const int count = row.ColumnCount();
    if (first) {
      first = false;
      rows.columns.reserve(static_cast<std::size_t>(count));
      for (int i = 0; i < count; ++i) rows.columns.emplace_back(row.ColumnName(i));
    }
    auto& cells = rows.rows.emplace_back();
    cells.reserve(static_cast<std::size_t>(count));
    for (int i = 0; i < count; ++i) {
      if (row.IsNull(i)) {
        cells.emplace_back(std::nullopt);
      } else {
        cells.emplace_back(std::string(row.GetText(i)));
      }
    }
  });
  if (!result.ok()) return std::move(result).error();
  return rows;
}

namespace {
thread_local std::vector<const Database*> active_transactions;
}  // namespace

TransactionScope::TransactionScope(const Database* database) : database_(database) {
  active_transactions.push_back(database);
}

TransactionScope::~TransactionScope() {
  const auto it = std::find(active_transactions.rbegin(), active_transactions.rend(), database_);
  if (it != active_transactions.rend()) active_transactions.erase(std::next(it).base());
}

bool TransactionScope::Active(const Database* database) {
  return std::find(active_transactions.begin(), active_transactions.end(), database) !=
         active_transactions.end();
}

Error TransactionScope::NestedError() {
  return Error::Internal("Database::Transaction called inside a transaction of the same database");
}

Status RunWithRetries(const std::function<Status()>& attempt) {
  thread_local std::minstd_rand jitter(std::random_device{}());
  for (int i = 1;; ++i) {
    Status status = attempt();
    if (status.ok() || i >= kMaxTransactionAttempts ||
        ErrorKindOf(status.error()) != DbErrorKind::kBusy) {
      return status;
    }
    const auto base = kRetryBackoffBase * (1 << (i - 1));
    std::uniform_int_distribution<long> spread(0, base.count());
    std::this_thread::sleep_for(base + std::chrono::milliseconds(spread(jitter)));
  }
}

}  // namespace cairn::db
