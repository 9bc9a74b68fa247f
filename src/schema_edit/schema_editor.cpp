#include "schema_edit/schema_editor.hpp"

#include <boost/json.hpp>

#include "activity/activity.hpp"
#include "common/log.hpp"
#include "common/time.hpp"
#include "config/loader.hpp"
#include "schema/physical_model.hpp"
#include "schema_edit/config_merge.hpp"
#include "schema_edit/config_renames.hpp"
#include "schema_edit/limits.hpp"
#include "schema_edit/startup_version.hpp"
#include "schema_edit/table_name_references.hpp"

namespace cairn::schema_edit {
namespace {

const boost::json::value* Member(const boost::json::value& document, std::string_view key) {
  if (!document.is_object()) return nullptr;
  return document.as_object().if_contains(key);
}

bool SameMember(const boost::json::value& a, const boost::json::value& b, std::string_view key) {
  const auto* left = Member(a, key);
  const auto* right = Member(b, key);
  if (left == nullptr || right == nullptr) return left == right;
  return *left == *right;
}

Error NoSuchVersion(std::int64_t version) {
  return Error::NotFound("schema version " + std::to_string(version) + " does not exist");
}

boost::json::array Lines(const std::vector<std::string>& lines) {
  boost::json::array out;
  for (const auto& line : lines) out.emplace_back(line);
  return out;
}

boost::json::array DeferredLabels(const std::vector<schema::DeferredDrop>& drops) {
  boost::json::array out;
  for (const auto& drop : drops) out.emplace_back(drop.label);
  return out;
}

// The names of the tables of a document, for the diff.
std::vector<std::pair<std::string, const boost::json::value*>> TablesOf(
    const boost::json::value& document) {
  std::vector<std::pair<std::string, const boost::json::value*>> tables;
  const auto* list = Member(document, "tables");
  if (list == nullptr || !list->is_array()) return tables;
  for (const auto& table : list->as_array()) {
    const auto* name = Member(table, "name");
    tables.emplace_back(name && name->is_string() ? std::string(name->as_string()) : "", &table);
  }
  return tables;
}

}  // namespace

SchemaEditor::SchemaEditor(db::Database& database, Prepare prepare, config::AppConfig active,
                           std::int64_t active_version, boost::json::value file_document)
    : database_(database),
      prepare_(std::move(prepare)),
      file_document_(std::move(file_document)),
      active_(std::move(active)),
      active_version_(active_version) {}

boost::json::value SchemaEditor::ActiveDocument() {
  std::lock_guard lock(mutex_);
  return active_.document;
}

std::int64_t SchemaEditor::active_version() {
  std::lock_guard lock(mutex_);
  return active_version_;
}

Result<DraftView> SchemaEditor::ViewOf(db::Connection& connection, std::optional<Draft> draft) {
  CAIRN_ASSIGN_OR_RETURN(const auto active, ReadActiveVersion(connection));
  const std::int64_t active_version = active.value_or(0);
  DraftView view;
  if (!draft) {
    CAIRN_ASSIGN_OR_RETURN(auto version, ReadVersion(connection, active_version));
    if (!version) return NoSuchVersion(active_version);
    view.draft.snapshot = std::move(version->snapshot);
    view.draft.base_version = active_version;
    return view;
  }
  view.exists = true;
  view.stale = draft->base_version < active_version;
  CAIRN_ASSIGN_OR_RETURN(auto base, ReadVersion(connection, draft->base_version));
  view.dirty = !base || base->snapshot != draft->snapshot;
  view.draft = std::move(*draft);
  return view;
}

Result<StatusView> SchemaEditor::GetStatus() {
  StatusView status;
  CAIRN_TRY(database_.Transaction(db::Access::kRead, [&](db::Connection& connection) -> Status {
    CAIRN_ASSIGN_OR_RETURN(auto draft, ReadDraft(connection));
    CAIRN_ASSIGN_OR_RETURN(status.draft, ViewOf(connection, std::move(draft)));
    CAIRN_ASSIGN_OR_RETURN(const auto active, ReadActiveVersion(connection));
    status.active_version = active.value_or(0);
    return {};
  }));
  status.drift = file_document_ != ActiveDocument();
  return status;
}

Result<boost::json::value> SchemaEditor::Diff() {
  const boost::json::value active = ActiveDocument();
  boost::json::array changes;
  const auto add = [&](std::string path, std::string_view change) {
    changes.push_back(boost::json::object{{"path", std::move(path)}, {"change", change}});
  };
  std::vector<std::string> keys;
  for (const boost::json::value* document :
       std::initializer_list<const boost::json::value*>{&file_document_, &active}) {
    if (!document->is_object()) continue;
    for (const auto& member : document->as_object()) {
      const std::string key(member.key());
      if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(key);
    }
  }
  for (const std::string& key : keys) {
    if (SameMember(file_document_, active, key)) continue;
    const auto* in_file = Member(file_document_, key);
    const auto* in_active = Member(active, key);
    if (key != "tables" || in_file == nullptr || in_active == nullptr) {
      add(key, in_file == nullptr     ? "onlyInActive"
               : in_active == nullptr ? "onlyInFile"
                                      : "changed");
      continue;
    }
    const auto file_tables = TablesOf(file_document_);
    const auto active_tables = TablesOf(active);
    const auto find = [](const auto& tables, const std::string& name) {
      return std::find_if(tables.begin(), tables.end(),
                          [&name](const auto& other) { return other.first == name; });
    };
    for (const auto& [name, table] : file_tables) {
      const auto it = find(active_tables, name);
      if (it == active_tables.end()) {
        add("tables." + name, "onlyInFile");
      } else if (*it->second != *table) {
        add("tables." + name, "changed");
      }
    }
    for (const auto& entry : active_tables) {
      if (find(file_tables, entry.first) == file_tables.end()) {
        add("tables." + entry.first, "onlyInActive");
      }
    }
  }
  boost::json::object out;
  out["activeVersion"] = active_version();
  out["drift"] = !changes.empty();
  out["changes"] = std::move(changes);
  return boost::json::value(std::move(out));
}

Result<DraftView> SchemaEditor::GetDraft() {
  DraftView view;
  CAIRN_TRY(database_.Transaction(db::Access::kRead, [&](db::Connection& connection) -> Status {
    CAIRN_ASSIGN_OR_RETURN(auto draft, ReadDraft(connection));
    CAIRN_ASSIGN_OR_RETURN(view, ViewOf(connection, std::move(draft)));
    return {};
  }));
  return view;
}

Result<DraftView> SchemaEditor::PutDraft(boost::json::value snapshot,
                                         std::optional<std::int64_t> base_version,
                                         const std::string& user_id) {
  if (!snapshot.is_object()) {
    return Error::Validation("The draft is invalid",
                             {{"snapshot", "must be an object (a config document)"}});
  }
  DraftView view;
  CAIRN_TRY(database_.Transaction(db::Access::kWrite, [&](db::Connection& connection) -> Status {
    CAIRN_ASSIGN_OR_RETURN(const auto active, ReadActiveVersion(connection));
    const std::int64_t base = base_version.value_or(active.value_or(0));
    if (base < 1 || base > active.value_or(0)) {
      return Error::Validation("The draft is invalid",
                               {{"baseVersion", "must name a published version (1 to " +
                                                    std::to_string(active.value_or(0)) + ")"}});
    }
    Draft draft{snapshot, base, time::NowMillis(), user_id};
    CAIRN_TRY(WriteDraft(connection, draft));
    CAIRN_ASSIGN_OR_RETURN(view, ViewOf(connection, std::move(draft)));
    return {};
  }));
  return view;
}

Result<DraftView> SchemaEditor::EditDraft(const std::function<Status(boost::json::object&)>& edit,
                                          const std::string& user_id) {
  DraftView view;
  CAIRN_TRY(database_.Transaction(db::Access::kWrite, [&](db::Connection& connection) -> Status {
    CAIRN_ASSIGN_OR_RETURN(auto stored, ReadDraft(connection));
    CAIRN_ASSIGN_OR_RETURN(DraftView current, ViewOf(connection, std::move(stored)));
    Draft draft = std::move(current.draft);
    if (!draft.snapshot.is_object()) draft.snapshot = boost::json::object();
    CAIRN_TRY(edit(draft.snapshot.as_object()));
    draft.updated_at = time::NowMillis();
    draft.updated_by = user_id;
    CAIRN_TRY(WriteDraft(connection, draft));
    CAIRN_ASSIGN_OR_RETURN(view, ViewOf(connection, std::move(draft)));
    return {};
  }));
  return view;
}

Status SchemaEditor::DiscardDraft() {
  return database_.Transaction(db::Access::kWrite,
                               [&](db::Connection& connection) { return DeleteDraft(connection); });
}

Result<DraftView> SchemaEditor::RebaseDraft(const std::string& user_id) {
  DraftView view;
  CAIRN_TRY(database_.Transaction(db::Access::kWrite, [&](db::Connection& connection) -> Status {
    CAIRN_ASSIGN_OR_RETURN(auto draft, ReadDraft(connection));
    if (!draft) return Error::NotFound("There is no draft to rebase");
    CAIRN_ASSIGN_OR_RETURN(const auto active, ReadActiveVersion(connection));
    const std::int64_t active_version = active.value_or(0);
    if (draft->base_version < active_version) {
      CAIRN_ASSIGN_OR_RETURN(const auto base, ReadVersion(connection, draft->base_version));
      CAIRN_ASSIGN_OR_RETURN(const auto head, ReadVersion(connection, active_version));
      if (!base) return NoSuchVersion(draft->base_version);
      if (!head) return NoSuchVersion(active_version);
      draft->snapshot = RebaseSnapshot(base->snapshot, draft->snapshot, head->snapshot);
      draft->base_version = active_version;
      draft->updated_at = time::NowMillis();
      draft->updated_by = user_id;
      CAIRN_TRY(WriteDraft(connection, *draft));
    }
    CAIRN_ASSIGN_OR_RETURN(view, ViewOf(connection, std::move(draft)));
    return {};
  }));
  return view;
}

Result<SchemaEditor::Candidate> SchemaEditor::Check(const boost::json::value& snapshot,
                                                    const boost::json::value& active) {
  if (!snapshot.is_object()) {
    return Error::Validation("The draft is not a valid config",
                             {{"", "must be an object (a config document)"}});
  }
  config::LoadOutcome outcome = config::LoadConfigDocument(snapshot);
  if (!outcome.config) {
    std::vector<FieldError> errors;
    for (const auto& issue : outcome.issues) errors.push_back({issue.path, issue.message});
    Error error = Error::Validation("The draft is not a valid config", std::move(errors));
    error.reason = "INVALID_CONFIG";
    return error;
  }
  for (const std::string_view key : kRestartOnlyPresence) {
    const bool before = Member(active, key) != nullptr;
    if (before == (Member(snapshot, key) != nullptr)) continue;
    Error error = Error::Validation(
        "The draft " + std::string(before ? "removes" : "adds") + " `" + std::string(key) +
            "`, which only the config file does",
        {{std::string(key),
          "cannot be added or removed while cairn runs (the schema routes and sessions exist "
          "only with it): change it in the config file and restart"}});
    error.reason = "RESTART_REQUIRED";
    return error;
  }
  if (hooks_.check) CAIRN_TRY(hooks_.check(*outcome.config));
  auto model = schema::BuildSchemaModel(*outcome.config);
  if (!model.ok()) {
    Error error = Error::Validation(model.error().message, {{"tables", model.error().message}});
    return error;
  }
  return Candidate{std::move(*outcome.config), snapshot};
}

Result<std::vector<FieldError>> SchemaEditor::ValidateDraft() {
  CAIRN_ASSIGN_OR_RETURN(DraftView view, GetDraft());
  auto candidate = Check(view.draft.snapshot, ActiveDocument());
  if (candidate.ok()) return std::vector<FieldError>{};
  if (candidate.error().code != ErrorCode::kValidation) return candidate.error();
  return candidate.error().errors;
}

Result<SchemaEditor::Preview> SchemaEditor::PreviewDraft() {
  CAIRN_ASSIGN_OR_RETURN(DraftView view, GetDraft());
  Preview preview;
  std::lock_guard lock(mutex_);
  auto candidate = Check(view.draft.snapshot, active_.document);
  if (!candidate.ok()) {
    if (candidate.error().code != ErrorCode::kValidation) return candidate.error();
    preview.errors = candidate.error().errors;
    return preview;
  }
  CAIRN_ASSIGN_OR_RETURN(const schema::SchemaModel model,
                         schema::BuildSchemaModel(candidate->config));
  const Renames renames = RenamesBetween(active_, candidate->config);
  preview.renames = renames.columns;
  schema::MigrateOptions options;
  options.defer_removals = true;
  options.dry_run = true;
  options.table_renames = renames.tables;
  options.column_renames = renames.columns;
  options.conversions = ConversionsBetween(active_, candidate->config);
  auto planned = [&]() -> Result<schema::MigrationReport> {
    schema::MigrationReport report;
    CAIRN_TRY(database_.Transaction(db::Access::kSchema, [&](db::Connection& connection) -> Status {
      CAIRN_ASSIGN_OR_RETURN(report, schema::Migrate(connection, model, options));
      return {};
    }));
    return report;
  }();
  if (!planned.ok()) {
    if (planned.error().code != ErrorCode::kValidation) return planned.error();
    preview.errors = planned.error().errors;
    return preview;
  }
  preview.migration = std::move(*planned);
  return preview;
}

Result<PublishOutcome> SchemaEditor::Publish(const boost::json::value& snapshot,
                                             std::string_view source,
                                             std::optional<std::int64_t> restored_from,
                                             std::optional<std::int64_t> expected_base,
                                             const std::string& user_id,
                                             const std::string& message) {
  if (message.size() > kMaxMessageLength) {
    return Error::Validation(
        "The message is too long",
        {{"message", "must be at most " + std::to_string(kMaxMessageLength) + " characters"}});
  }
  std::lock_guard lock(mutex_);
  CAIRN_ASSIGN_OR_RETURN(Candidate candidate, Check(snapshot, active_.document));
  CAIRN_ASSIGN_OR_RETURN(const schema::SchemaModel model,
                         schema::BuildSchemaModel(candidate.config));
  CAIRN_ASSIGN_OR_RETURN(Activate activate, prepare_(candidate.config));
  const Renames renames = RenamesBetween(active_, candidate.config);
  PublishOutcome outcome;
  CAIRN_TRY(database_.Transaction(db::Access::kSchema, [&](db::Connection& connection) -> Status {
    // Nodes publish one at a time (PostgreSQL: the migration's transaction-level lock).
    if (auto lock_sql = connection.dialect().MigrationLockSql()) {
      CAIRN_TRY(connection.Execute(*lock_sql, {}));
    }
    CAIRN_ASSIGN_OR_RETURN(const auto active, ReadActiveVersion(connection));
    outcome.previous_version = active.value_or(0);
    if (expected_base && *expected_base != outcome.previous_version) {
      Error error = Error::Conflict("The draft is stale: it is based on version " +
                                    std::to_string(*expected_base) + ", the active version is " +
                                    std::to_string(outcome.previous_version) + "; rebase it first");
      error.reason = "STALE_DRAFT";
      return error;
    }
    if (outcome.previous_version != active_version_) {
      return Error::Conflict("Another node published version " +
                             std::to_string(outcome.previous_version) + " a moment ago; try again");
    }
    schema::MigrateOptions options;
    options.defer_removals = true;
    options.table_renames = renames.tables;
    options.column_renames = renames.columns;
    options.conversions = ConversionsBetween(active_, candidate.config);
    CAIRN_ASSIGN_OR_RETURN(outcome.migration, schema::Migrate(connection, model, options));
    CAIRN_TRY(RenameTableReferences(connection, renames.table_names));
    if (hooks_.migrate) CAIRN_TRY(hooks_.migrate(connection, candidate.config));
    outcome.version = outcome.previous_version + 1;
    Version version;
    version.info = {outcome.version, std::string(source), restored_from,
                    user_id,         time::NowMillis(),   message};
    version.snapshot = snapshot;
    CAIRN_TRY(InsertVersion(connection, version));
    if (expected_base) CAIRN_TRY(DeleteDraft(connection));
    boost::json::object metadata;
    metadata["version"] = outcome.version;
    metadata["previousVersion"] = outcome.previous_version;
    if (restored_from) metadata["restoredFromVersion"] = *restored_from;
    if (!message.empty()) metadata["message"] = message;
    metadata["migration"] = {{"applied", Lines(outcome.migration.descriptions)},
                             {"deferred", DeferredLabels(outcome.migration.deferred)}};
    activity::ActivityEntry entry;
    entry.action = source == kSourceRestore ? "schema.restore" : "schema.publish";
    entry.user_id = user_id;
    entry.metadata_json = boost::json::serialize(metadata);
    return activity::RecordActivity(connection, entry);
  }));
  active_ = std::move(candidate.config);
  active_version_ = outcome.version;
  if (Status live = activate(outcome.version, true); !live.ok()) {
    return Error::Internal("version " + std::to_string(outcome.version) +
                           " is published but could not be put live: " + live.error().message +
                           " " + live.error().detail);
  }
  return outcome;
}

Result<PublishOutcome> SchemaEditor::PublishDraft(const std::string& user_id,
                                                  const std::string& message) {
  CAIRN_ASSIGN_OR_RETURN(DraftView view, GetDraft());
  if (!view.exists) return Error::NotFound("There is no draft to publish");
  if (view.stale) {
    Error error = Error::Conflict("The draft is stale: it is based on version " +
                                  std::to_string(view.draft.base_version) +
                                  "; rebase it on the active version first");
    error.reason = "STALE_DRAFT";
    return error;
  }
  return Publish(view.draft.snapshot, kSourcePublish, std::nullopt, view.draft.base_version,
                 user_id, message);
}

Result<std::vector<VersionInfo>> SchemaEditor::Versions() {
  std::vector<VersionInfo> versions;
  CAIRN_TRY(database_.Transaction(db::Access::kRead, [&](db::Connection& connection) -> Status {
    CAIRN_ASSIGN_OR_RETURN(versions, ListVersions(connection, kMaxListedVersions));
    return {};
  }));
  return versions;
}

Result<Version> SchemaEditor::GetVersion(std::int64_t number) {
  std::optional<Version> version;
  CAIRN_TRY(database_.Transaction(db::Access::kRead, [&](db::Connection& connection) -> Status {
    CAIRN_ASSIGN_OR_RETURN(version, ReadVersion(connection, number));
    return {};
  }));
  if (!version) return NoSuchVersion(number);
  return std::move(*version);
}

Result<PublishOutcome> SchemaEditor::Restore(std::int64_t number, const std::string& user_id,
                                             const std::string& message) {
  CAIRN_ASSIGN_OR_RETURN(Version version, GetVersion(number));
  return Publish(version.snapshot, kSourceRestore, number, std::nullopt, user_id,
                 message.empty() ? "restore version " + std::to_string(number) : message);
}

Result<std::vector<schema::DeferredDrop>> SchemaEditor::Deferred() {
  std::vector<schema::DeferredDrop> drops;
  CAIRN_TRY(database_.Transaction(db::Access::kRead, [&](db::Connection& connection) -> Status {
    CAIRN_ASSIGN_OR_RETURN(drops, schema::ReadDeferredDrops(connection));
    return {};
  }));
  return drops;
}

Result<schema::MigrationReport> SchemaEditor::Prune(const std::string& user_id) {
  std::lock_guard lock(mutex_);
  CAIRN_ASSIGN_OR_RETURN(const schema::SchemaModel model, schema::BuildSchemaModel(active_));
  // The same snapshot again: a table rebuilt by prune (SQLite) needs its search triggers back.
  CAIRN_ASSIGN_OR_RETURN(Activate activate, prepare_(active_));
  schema::MigrationReport report;
  CAIRN_TRY(database_.Transaction(db::Access::kSchema, [&](db::Connection& connection) -> Status {
    CAIRN_ASSIGN_OR_RETURN(report, schema::PruneDeferred(connection, model));
    if (!report.changed()) return {};
    boost::json::object metadata;
    metadata["version"] = active_version_;
    metadata["pruned"] = DeferredLabels(report.deferred);
    metadata["applied"] = Lines(report.descriptions);
    activity::ActivityEntry entry;
    entry.action = "migration";
    entry.user_id = user_id;
    entry.metadata_json = boost::json::serialize(metadata);
    return activity::RecordActivity(connection, entry);
  }));
  if (report.changed()) CAIRN_TRY(activate(active_version_, true));
  return report;
}

Status SchemaEditor::Follow() {
  std::lock_guard lock(mutex_);
  std::optional<Version> version;
  CAIRN_TRY(database_.Transaction(db::Access::kRead, [&](db::Connection& connection) -> Status {
    CAIRN_ASSIGN_OR_RETURN(const auto active, ReadActiveVersion(connection));
    if (!active || *active <= active_version_) return {};
    CAIRN_ASSIGN_OR_RETURN(version, ReadVersion(connection, *active));
    return {};
  }));
  if (!version) return {};
  config::LoadOutcome outcome = config::LoadConfigDocument(version->snapshot);
  if (!outcome.config) {
    return Error::Internal("schema version " + std::to_string(version->info.version) +
                           " is not a valid config");
  }
  config::AppConfig next = *outcome.config;
  CAIRN_ASSIGN_OR_RETURN(Activate activate, prepare_(std::move(*outcome.config)));
  CAIRN_TRY(activate(version->info.version, false));
  active_ = std::move(next);
  active_version_ = version->info.version;
  log::Info("switched to schema version " + std::to_string(active_version_) +
            " published by another node");
  return {};
}

}  // namespace cairn::schema_edit
