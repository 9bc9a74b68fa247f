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

namespace cairn::app {

struct StorageParts {
  std::unique_ptr<storage::ObjectStore> store;
  std::unique_ptr<storage::StorageService> service;
};

// `secret` signs tokens (the auth secret: AUTH_SECRET or the one kept in the database).
Result<StorageParts> SetUpStorage(const Settings& settings, const config::AppConfig& config,
                                  db::Database& database, std::string_view secret);

}  // namespace cairn::app
