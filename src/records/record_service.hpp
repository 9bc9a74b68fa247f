// The record lifecycle of one table (interface.md "States and transitions", D30–D35): create,
// read, update with optimistic locking, soft delete, restore, permanent delete, plain lists and
// the trash. Access rules (D20–D21) are applied here: no read access → 404 for everything; a
// record the caller cannot see → 404 (visibility is part of the WHERE clause, so hidden and
// missing records take one path); a write the caller may not make on a visible record → 403.
// Every change writes its activity entry (with before/after, which is also the record's history)
// in the same transaction. Answers are JSON text in the wire shape. Attachment values are checked
// against file storage before the write transaction, and answers embed their links (D45).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>

#include <boost/json/value.hpp>

#include "access/access_index.hpp"
#include "common/json_input.hpp"
#include "common/result.hpp"
#include "config/model.hpp"
#include "db/database.hpp"
#include "records/actor.hpp"
#include "records/attachment_files.hpp"
#include "records/change_sink.hpp"
#include "records/display_context.hpp"
#include "records/record_reader.hpp"

namespace cairn::records {

enum class DeletedRows { kExclude, kInclude, kOnly };

// The list parameters (D37) as the request gave them; RecordService checks them against the
// table and the caller's field rules.
struct ListOptions {
  int limit = 100;
  int offset = 0;
  std::optional<int> page;  // 1-based; offset = (page - 1) * limit
  DeletedRows deleted = DeletedRows::kExclude;
  std::optional<std::string> filter;  // JSON text (records/query/filter.hpp)
  std::optional<std::string> sort, order;
  std::optional<std::string> fields;  // comma-separated; unknown and unreadable names are skipped
  std::optional<std::string> q;       // free text over the readable text-like fields
  // A saved view (id or name) layered under the request's parameters: its filter is ANDed with
  // `filter`, its sorts apply unless `sort` is given. Unknown: a 400 naming `view`, or a 404
  // when the view came from the path (`view_in_path`).
  std::optional<std::string> view;
  bool view_in_path = false;
  // D38: `aggregations` (no groupBy) or `groups` over all matching rows.
  std::optional<std::string> aggregate, group_by;
  ReadFormat format;  // D39: raw or display values
};

struct HistoryOptions {
  int limit = 50;
  int offset = 0;
};

class RecordService {
 public:
  // `files` is file storage for attachment fields (D45), null when none is configured: then
  // attachment values are stored as given and reads add no links. It must outlive the service.
  // `changes` receives every committed change (realtime, D53), null for none; it is owned by the
  // caller and must outlive the service.
  RecordService(db::Database& database, const config::AppConfig& config,
                const access::AccessIndex& access, const AttachmentFiles* files = nullptr,
                ChangeSink* changes = nullptr);

  // Writes take the body and the written text of its numbers (request.json_numbers), so exact
  // decimals are checked on what the client sent (D9).
  Result<std::string> Create(const config::Table& table, const Actor& actor,
                             const boost::json::value& body, const json::NumberTexts& numbers);
  Result<std::string> Get(const config::Table& table, const Actor& actor, std::int64_t id,
                          const ReadFormat& format = {});
  // `body` may carry `updatedAt`: when it differs from the stored one → 409, nothing written.
  Result<std::string> Update(const config::Table& table, const Actor& actor, std::int64_t id,
                             const boost::json::value& body, const json::NumberTexts& numbers);
  Status Delete(const config::Table& table, const Actor& actor, std::int64_t id, bool permanent);
  Result<std::string> Restore(const config::Table& table, const Actor& actor, std::int64_t id);
  Result<std::string> List(const config::Table& table, const Actor& actor,
                           const ListOptions& options);
  // Batches (D34): all or nothing; more than kMaxBatchItems items → 413. Errors name the item:
  // `records[3].fields.email`, `ids[2]`.
  Result<std::string> CreateMany(const config::Table& table, const Actor& actor,
                                 const boost::json::value& body,
                                 const json::NumberTexts& numbers);  // {created, records}
  Result<std::string> UpdateMany(const config::Table& table, const Actor& actor,
                                 const boost::json::value& body,
                                 const json::NumberTexts& numbers);  // {updated, records}
  Result<std::string> DeleteMany(const config::Table& table, const Actor& actor,
                                 const boost::json::value& body);  // {deleted}
  Result<std::string> RestoreMany(const config::Table& table, const Actor& actor,
                                  const boost::json::value& body);  // {restored}
  // Upsert (D33): `{fields, matchFields|fieldsToMergeOn}` → {id, operation, record}; the batch
  // form `{records:[{fields}], fieldsToMergeOn}` → {records, created, updated}.
  Result<std::string> Upsert(const config::Table& table, const Actor& actor,
                             const boost::json::value& body, const json::NumberTexts& numbers);

  Result<std::string> History(const config::Table& table, const Actor& actor, std::int64_t id,
                              const HistoryOptions& options);

  // Retention (ECO_RETENTION_PURGE_DAYS, D19a; record_retention.cpp): inside the caller's write
  // transaction, up to `limit` records of `table` with an id above `progress.last_id` that went
  // to the trash before `deleted_before` (epoch millis) go for good as a permanent delete does
  // (their comments too), each with a permanent_delete entry by nobody with `metadata.reason:
  // "retention"`. `progress.last_id` names the record being purged, also when that fails (a
  // foreign key that restricts the delete); fewer than `limit` examined means the end.
  struct TrashPurge {
    std::int64_t last_id = 0;
    std::int64_t examined = 0;
    std::int64_t purged = 0;
  };
  Status PurgeTrash(db::Connection& connection, const config::Table& table,
                    std::int64_t deleted_before, int limit, TrashPurge& progress);

  // The records `ids` as a subscriber of `role` with `filter` and `fields` (as in List) reads
  // them now (record_subscriber_read.cpp), by id: those not visible to it (missing, in the trash,
  // or outside the filter) are left out. One statement per kSubscriberReadChunk ids, in one read
  // transaction: a dispatch round reads its changes together. No read access → 404; a bad filter
  // → 400, as List answers; with no ids only these checks run (nothing is read).
  using SubscriberRecords = std::unordered_map<std::int64_t, std::string>;
  static constexpr std::size_t kSubscriberReadChunk = 512;  // a power of two (ForIdChunks)
  Result<SubscriberRecords> ReadAsSubscriber(const config::Table& table, std::string_view role,
                                             std::span<const std::int64_t> ids,
                                             const std::optional<std::string>& filter,
                                             const std::optional<std::string>& fields);

  // Whether the rows `ids` (live or in the trash) match `filter` as `role` compiles it, by id:
  // the delete of a record goes to a filtered subscriber only when it matched (the row in the
  // trash keeps its values). Ids with no row left (deleted for good) are left out. Chunked as
  // ReadAsSubscriber.
  using SubscriberMatches = std::unordered_map<std::int64_t, bool>;
  Result<SubscriberMatches> MatchesAsSubscriber(const config::Table& table, std::string_view role,
                                                std::span<const std::int64_t> ids,
                                                const std::string& filter);

  // The stored fields of a RecordChange (`stored_fields_json`, every field) as `role` may read
  // them, narrowed to `only` when given, with attachment links: the history's view of a record
  // (D21), used for a change's oldRecord.
  void AppendStoredFields(const config::Table& table, std::string_view role,
                          std::string_view stored_fields_json, const std::vector<std::string>* only,
                          std::string& out) const;

  // Saved views (record_views.cpp): `{"views":[…]}` and one view `{id,name,filters,sorts}`.
  Result<std::string> Views(const config::Table& table, const Actor& actor);
  Result<std::string> View(const config::Table& table, const Actor& actor,
                           std::string_view view_id);

 private:
  // Built once per table: the column list and its JSON writer (no per-request SQL building).
  const RecordReader& ReaderOf(const config::Table& table) const;

  db::Database& database_;
  const config::AppConfig& config_;
  const access::AccessIndex& access_;
  const AttachmentFiles* files_;
  ChangeSink* changes_;
  std::unordered_map<const config::Table*, RecordReader> readers_;
};

}  // namespace cairn::records
