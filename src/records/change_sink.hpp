// Where committed record changes go (realtime subscriptions, D53). RecordService calls the sink
// after a write transaction committed, never for one that rolled back, one change per record
// (a batch gives one per item, in item order). The sink must not block: it queues the changes.
// It is owned outside the RecordService (the composition root), so it outlives any service.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "config/model.hpp"

namespace cairn::records {

enum class ChangeKind { kInsert, kUpdate, kDelete };

struct RecordChange {
  std::string table;  // the table's name (config::Table::name)
  ChangeKind kind = ChangeKind::kInsert;
  std::int64_t id = 0;
  std::int64_t timestamp_ms = 0;  // when it committed (epoch milliseconds)
  // Update and delete: every stored field before the change, the activity log's form (JSON
  // object text); readers strip what a subscriber may not read (RecordService::AppendStoredFields).
  std::string old_fields_json;
};

class ChangeSink {
 public:
  virtual ~ChangeSink() = default;
  virtual void Committed(std::vector<RecordChange> changes) = 0;
};

}  // namespace cairn::records
