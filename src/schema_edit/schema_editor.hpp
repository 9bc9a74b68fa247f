// Live schema editing (D51) without HTTP types: the working draft, validation, publishing (a
// migration of the live database and a new version in one transaction, then the app's new
// snapshot put live), versions and restores, prune of deferred removals, and following the
// versions other nodes publish (PostgreSQL). The routes are api/schema_api.cpp.
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <boost/json/value.hpp>

#include "common/result.hpp"
#include "config/model.hpp"
#include "db/database.hpp"
#include "schema/migrator.hpp"
#include "schema_edit/version_store.hpp"

namespace cairn::schema_edit {

// Puts a prepared snapshot live as `version`. `leader`: this node migrated (it also brings the
// search indexes in line); a follower only swaps.
using Activate = std::function<Status(std::int64_t version, bool leader)>;
// Builds everything the app derives from `config` (routes, access, …) without putting it live.
using Prepare = std::function<Result<Activate>(config::AppConfig config)>;

struct DraftView {
  Draft draft;
  bool exists = false;  // false: the active version, shown as a clean draft
  bool dirty = false;   // differs from its base version
  bool stale = false;   // its base is behind the active version
};

struct PublishOutcome {
  std::int64_t version = 0;
  std::int64_t previous_version = 0;
  schema::MigrationReport migration;
};

struct StatusView {
  std::int64_t active_version = 0;
  DraftView draft;
  bool drift = false;  // the config file differs from the active version
};

// Top-level keys a publish may change but not add or remove (400 RESTART_REQUIRED naming the
// key). `auth`'s services are rebuilt with each version, but with or without an `auth` section
// is another application: the session layer, the records, storage and these very routes exist
// only with it, so removing it would cut every admin off, and adding it cannot be asked for
// (the routes do not exist without it). Change it in the config file and restart.
inline constexpr std::string_view kRestartOnlyPresence[] = {"auth"};

// What the services derived from a version (auth, storage, analytics: built with its snapshot)
// need of a publish beyond the config's own validation. Both may be empty.
struct ServiceHooks {
  // Refuses a version its services could not be built from (an OAuth provider without its
  // credentials in the environment): validation errors with key paths, like the config's.
  std::function<Status(const config::AppConfig&)> check;
  // The tables the version's services need (the oauth strategy's, analytics'), created in the
  // publish transaction with the migration.
  std::function<Status(db::Connection&, const config::AppConfig&)> migrate;
};

class SchemaEditor {
 public:
  SchemaEditor(db::Database& database, Prepare prepare, config::AppConfig active,
               std::int64_t active_version, boost::json::value file_document);
  // Before the first request (not thread-safe).
  void SetServiceHooks(ServiceHooks hooks) { hooks_ = std::move(hooks); }

  Result<StatusView> GetStatus();
  // The changes between the config file and the active version, per top-level key and table.
  Result<boost::json::value> Diff();
  boost::json::value ActiveDocument();
  std::int64_t active_version();

  Result<DraftView> GetDraft();
  // `base_version` absent: the active version.
  Result<DraftView> PutDraft(boost::json::value snapshot, std::optional<std::int64_t> base_version,
                             const std::string& user_id);
  // Applies `edit` to the draft (the active version when there is none) and stores it.
  Result<DraftView> EditDraft(const std::function<Status(boost::json::object&)>& edit,
                              const std::string& user_id);
  Status DiscardDraft();
  Result<DraftView> RebaseDraft(const std::string& user_id);
  // Every problem of the draft, with its key path as `cairn validate` prints it; empty: valid.
  Result<std::vector<FieldError>> ValidateDraft();
  // What publishing the draft would do, changing nothing: its problems, and otherwise the
  // migration it would run, the removals it would defer and the renames it would make.
  struct Preview {
    std::vector<FieldError> errors;
    schema::MigrationReport migration;
    std::vector<schema::ColumnRename> renames;
  };
  Result<Preview> PreviewDraft();
  Result<PublishOutcome> PublishDraft(const std::string& user_id, const std::string& message);

  Result<std::vector<VersionInfo>> Versions();
  Result<Version> GetVersion(std::int64_t version);
  Result<PublishOutcome> Restore(std::int64_t version, const std::string& user_id,
                                 const std::string& message);
  // Drops every deferred table and column.
  Result<schema::MigrationReport> Prune(const std::string& user_id);
  // What prune would drop.
  Result<std::vector<schema::DeferredDrop>> Deferred();

  // Switches to a version another node published (no migration: that node ran it).
  Status Follow();

 private:
  struct Candidate {
    config::AppConfig config;
    boost::json::value document;
  };
  Result<Candidate> Check(const boost::json::value& snapshot, const boost::json::value& active);
  Result<PublishOutcome> Publish(const boost::json::value& snapshot, std::string_view source,
                                 std::optional<std::int64_t> restored_from,
                                 std::optional<std::int64_t> expected_base,
                                 const std::string& user_id, const std::string& message);
  Result<DraftView> ViewOf(db::Connection& connection, std::optional<Draft> draft);

  db::Database& database_;
  Prepare prepare_;
  ServiceHooks hooks_;
  boost::json::value file_document_;
  std::mutex mutex_;  // one publish, restore, prune or follow at a time in this process
  config::AppConfig active_;
  std::int64_t active_version_;
};

}  // namespace cairn::schema_edit
