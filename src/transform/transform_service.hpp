// Image transforms of stored files (interface.md "Storage: image transforms", D46): the cache
// first; on a miss one request per key transforms (single flight: identical concurrent requests
// wait for it and share its answer) on a bounded pool (`threads` at once, `queue` waiting,
// beyond that a 503 with Retry-After), reading the source through the ObjectStore, so every
// backend is served alike. Blocking: runs on the HTTP worker pool, never on an I/O thread.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "common/result.hpp"
#include "storage/object_store.hpp"
#include "transform/disk_cache.hpp"
#include "transform/image.hpp"
#include "transform/object_input.hpp"
#include "transform/params.hpp"

namespace cairn::transform {

struct TransformSettings {
  std::filesystem::path cache_dir;               // STORAGE_TRANSFORM_CACHE_DIR
  std::uint64_t cache_max_bytes = 500ULL << 20;  // STORAGE_TRANSFORM_CACHE_MAX_SIZE
  ImageLimits limits;                            // STORAGE_TRANSFORM_MAX_PIXELS, the time limit
  int threads = 2;                               // transforms at once
  int queue = 32;                                // transforms waiting for a thread; beyond: 503
  Format preferred = Format::kAvif;              // ECO_IMAGE_FORMAT
  Presets presets;                               // STORAGE_TRANSFORM_PRESETS
  // Tests: called by the one request that transforms a key, before it does (count transforms,
  // or hold one up to fill the queue). Empty in production.
  std::function<void(std::string_view key)> before_transform;
};

// Sources larger than this are not read for a transform (a 400).
inline constexpr std::uint64_t kMaxSourceBytes = 256ULL << 20;

class TransformService {
 public:
  static Result<std::unique_ptr<TransformService>> Start(TransformSettings settings);

  const Presets& presets() const { return settings_.presets; }
  Format preferred() const { return settings_.preferred; }

  // The cache key of a transform of one version of a file: sha256 of `bucket/path`, the
  // normalized parameters (format resolved: negotiated, or `origin`) and the source's ETag, so a
  // replaced original never serves an old transform. Also the response's ETag.
  static std::string Key(std::string_view bucket, std::string_view path, const Params& resolved,
                         std::string_view source_etag);

  struct Served {
    bool pass_through = false;  // SVG: serve the original bytes untransformed
    Output output = Output::kJpeg;
    std::uint64_t size = 0;
    FileHandle file;                            // the cache entry, when there is one
    std::shared_ptr<const std::string> memory;  // else the bytes (an entry the cache can't hold)
  };
  // The transform `key` of `info` (format already resolved in `params`).
  Result<Served> Get(storage::ObjectStore& store, std::string_view bucket,
                     const storage::ObjectInfo& info, const Params& params, const std::string& key);

  // Transforms run since start (tests, logs).
  std::uint64_t transforms_run() const { return transforms_run_.load(); }
  DiskCache& cache() { return cache_; }

 private:
  explicit TransformService(TransformSettings settings);

  struct Flight {
    bool done = false;
    std::optional<Error> error;
    bool pass_through = false;
    Output output = Output::kJpeg;
    std::shared_ptr<const std::string> bytes;
  };
  // The leader's work: read, detect, transform, store.
  void Produce(storage::ObjectStore& store, std::string_view bucket,
               const storage::ObjectInfo& info, const Params& params, const std::string& key,
               Flight& flight);
  // The source, its type detected from its first bytes (`type`), ready for libvips to read.
  Result<std::unique_ptr<ObjectInput>> OpenSource(storage::ObjectStore& store,
                                                  std::string_view bucket,
                                                  const storage::ObjectInfo& info,
                                                  SourceType& type);
  // Waits for a transform slot; a 503 when `queue` requests wait already.
  Status Enter();
  void Leave();

  TransformSettings settings_;
  DiskCache cache_;
  std::atomic<std::uint64_t> transforms_run_{0};

  std::mutex flights_mutex_;
  std::condition_variable flights_done_;
  std::map<std::string, std::shared_ptr<Flight>, std::less<>> flights_;

  std::mutex slots_mutex_;
  std::condition_variable slot_free_;
  int running_ = 0;
  int waiting_ = 0;
};

}  // namespace cairn::transform
