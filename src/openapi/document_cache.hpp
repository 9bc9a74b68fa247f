// The generated documents of one route table, serialized once with their ETags. The route table
// changes when a schema is published (a new Router, a new generation), so the cache is keyed by
// the generation of the router a request was routed by: the first request after a publish
// generates the new documents, every later one is a lookup.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "config/model.hpp"
#include "http/router.hpp"

namespace cairn::openapi {

struct SerializedDocument {
  std::string json;
  std::string etag;  // a strong ETag: "sha256 prefix of json"
  // The same JSON gzip-compressed, for clients that accept it (a 1.5 MB document is ~90 KB),
  // under its own strong ETag: another representation, other bytes.
  std::string gzip;
  std::string gzip_etag;
};

struct SerializedDocuments {
  std::uint64_t generation = 0;
  SerializedDocument app;
  SerializedDocument auth;
};

class DocumentCache {
 public:
  std::shared_ptr<const SerializedDocuments> Get(const http::Router& router,
                                                 const config::AppConfig& config);

 private:
  std::mutex mutex_;
  std::shared_ptr<const SerializedDocuments> documents_;
};

// Generates and serializes both documents (what the cache stores; the bench times it).
SerializedDocuments Serialize(const http::Router& router, const config::AppConfig& config);

}  // namespace cairn::openapi
