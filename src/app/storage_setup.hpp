// Builds file storage for the composition root: the backend STORAGE_PROVIDER names (D41; unset:
// local with SQLite, bytea with PostgreSQL), started (leftover staging removed) before any
// request, and the service over it.
#pragma once

#include <memory>

#include "app/settings.hpp"
#include "common/result.hpp"
#include "config/model.hpp"
#include "db/database.hpp"
#include "storage/object_store.hpp"
#include "storage/storage_service.hpp"
#include "transform/transform_service.hpp"

namespace cairn::app {

// What lives across schema versions: the backend and the transforms (settings only). The
// StorageService over them is built per version from its `buckets` (BuildStorageService).
struct StorageParts {
  std::unique_ptr<storage::ObjectStore> store;
  std::unique_ptr<transform::TransformService> transforms;  // image transforms (D46)
  std::string secret;  // signs tokens: the auth secret (AUTH_SECRET or the one kept)
};

// `before_transform` is the transform service's test hook (empty in production).
Result<StorageParts> SetUpStorage(const Settings& settings, db::Database& database,
                                  std::string secret,
                                  std::function<void(std::string_view)> before_transform = {});

// The service of one version: its buckets and roles (`config` must outlive it) over the store.
std::unique_ptr<storage::StorageService> BuildStorageService(const Settings& settings,
                                                             const config::AppConfig& config,
                                                             StorageParts& parts);

// STORAGE_TRANSFORM_CACHE_DIR, or <temp dir>/cairn-<16 hex digits of the data directory's path>
// so two instances on one machine never share entries.
std::filesystem::path TransformCacheDir(const Settings& settings);

}  // namespace cairn::app
