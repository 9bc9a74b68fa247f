// Everything the running app derives from one schema version (D51), built once and never
// changed: the config, the access index, the services its `auth`, `buckets` and `analytics`
// build, the record service and the route table (with the version's session layer). Publishing
// a version builds a new snapshot and swaps its router in; the server holds the router through
// an aliasing shared_ptr, so a request in flight keeps its whole snapshot alive and none sees a
// mix. What no config key decides lives across versions (database, the auth runtime — secret,
// mail queue, counters, the session cache —, the storage backend and transforms, the global rate
// limit, jobs): application.cpp's Parts.
#pragma once

#include <cstdint>
#include <memory>

#include "access/access_index.hpp"
#include "analytics/analytics_service.hpp"
#include "app/attachment_storage.hpp"
#include "app/auth_setup.hpp"
#include "config/model.hpp"
#include "http/router.hpp"
#include "records/record_service.hpp"
#include "storage/storage_service.hpp"

namespace cairn::app {

struct AppSnapshot {
  std::int64_t version = 0;  // the schema version; 0 when versions are not kept
  config::AppConfig config;
  access::AccessIndex access;  // every (table, role) answer of `config`
  // With auth. Shared with the previous version when its `auth` and `name` are the same (the
  // services copy what they read of the config).
  std::shared_ptr<AuthServices> auth;
  std::unique_ptr<storage::StorageService> storage;          // with auth; reads `config`
  std::unique_ptr<StorageAttachmentFiles> attachment_files;  // over `storage`
  // With `analytics` on; shared with the previous version when its `analytics` and `name` are
  // the same. A replaced one writes its queued page views when the last snapshot holding it goes.
  std::shared_ptr<analytics::AnalyticsService> analytics;
  std::unique_ptr<records::RecordService> records;  // with auth
  http::Router router;

  AppSnapshot() = default;
  AppSnapshot(const AppSnapshot&) = delete;  // the services point into it
  AppSnapshot& operator=(const AppSnapshot&) = delete;
};

}  // namespace cairn::app
