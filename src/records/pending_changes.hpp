// The changes of one write transaction, collected inside it and handed to the ChangeSink only
// once it committed (a retried transaction starts over with Reset). Internal to records/.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "common/time.hpp"
#include "config/model.hpp"
#include "records/change_sink.hpp"

namespace cairn::records::detail {

class PendingChanges {
 public:
  explicit PendingChanges(ChangeSink* sink) : sink_(sink) {}

  void Reset() { changes_.clear(); }
  void Add(const config::Table& table, ChangeKind kind, std::int64_t id,
           std::string old_fields_json = {}) {
    if (sink_ == nullptr) return;
    changes_.push_back({table.name, kind, id, 0, std::move(old_fields_json)});
  }
  // Call after the commit; the changes are stamped with the commit time.
  void Publish() {
    if (sink_ == nullptr || changes_.empty()) return;
    const std::int64_t now = time::NowMillis();
    for (RecordChange& change : changes_) change.timestamp_ms = now;
    sink_->Committed(std::move(changes_));
    changes_.clear();
  }

 private:
  ChangeSink* sink_;
  std::vector<RecordChange> changes_;
};

}  // namespace cairn::records::detail
