#include "openapi/document_cache.hpp"

#include "common/crypto.hpp"
#include "common/gzip.hpp"
#include "common/json.hpp"
#include "openapi/generator.hpp"

namespace cairn::openapi {
namespace {

SerializedDocument Finish(const boost::json::value& document) {
  SerializedDocument out;
  json::Append(out.json, document);
  const std::string hash = crypto::Sha256Hex(out.json).substr(0, 32);
  out.etag = "\"" + hash + "\"";
  out.gzip = gzip::Compress(out.json);
  out.gzip_etag = "\"" + hash + "-gzip\"";
  return out;
}

}  // namespace

SerializedDocuments Serialize(const http::Router& router, const config::AppConfig& config) {
  const std::vector<const http::Route*> routes = router.Routes();
  Documents documents = GenerateDocuments(routes, config);
  return {router.generation(), Finish(documents.app), Finish(documents.auth)};
}

std::shared_ptr<const SerializedDocuments> DocumentCache::Get(const http::Router& router,
                                                              const config::AppConfig& config) {
  // Generation is done under the lock: concurrent first requests wait for one generation
  // instead of each doing it.
  std::lock_guard lock(mutex_);
  if (!documents_ || documents_->generation != router.generation()) {
    documents_ = std::make_shared<const SerializedDocuments>(Serialize(router, config));
  }
  return documents_;
}

}  // namespace cairn::openapi
