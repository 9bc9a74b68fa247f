// Everything the running app derives from one schema version (D51), built once and never
// changed: the config, the access index, the record service and the route table. Publishing a
// version builds a new snapshot and swaps its router in; the server holds the router through an
// aliasing shared_ptr, so a request in flight keeps its whole snapshot alive and none sees a mix.
// Stateful services that live across versions (database, auth, storage, rate limits, mail, jobs)
// are outside it (application.cpp's Parts).
#pragma once

#include <cstdint>
#include <memory>

#include "access/access_index.hpp"
#include "config/model.hpp"
#include "http/router.hpp"
#include "records/record_service.hpp"

namespace cairn::app {

struct AppSnapshot {
  std::int64_t version = 0;  // the schema version; 0 when versions are not kept
  config::AppConfig config;
  access::AccessIndex access;                       // every (table, role) answer of `config`
  std::unique_ptr<records::RecordService> records;  // with auth
  http::Router router;

  AppSnapshot() = default;
  AppSnapshot(const AppSnapshot&) = delete;  // the services point into it
  AppSnapshot& operator=(const AppSnapshot&) = delete;
};

}  // namespace cairn::app
