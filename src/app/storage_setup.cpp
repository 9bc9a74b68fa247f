#include "app/storage_setup.hpp"

#include <algorithm>
#include <filesystem>
#include <thread>

#include "common/crypto.hpp"
#include "common/log.hpp"
#include "storage/bytea/bytea_object_store.hpp"
#include "storage/local/local_store.hpp"
#include "storage/s3/s3_store.hpp"

namespace cairn::app {
namespace {

Result<std::unique_ptr<storage::ObjectStore>> MakeStore(const Settings& settings,
                                                        db::Database& database) {
  const storage::StorageSettings& options = settings.storage;
  const storage::Provider provider = options.provider.value_or(
      database.dialect().shared_server() ? storage::Provider::kBytea : storage::Provider::kLocal);
  switch (provider) {
    case storage::Provider::kLocal: {
      const std::filesystem::path root = options.local_directory.empty()
                                             ? std::filesystem::path(settings.data_dir) / "storage"
                                             : std::filesystem::path(options.local_directory);
      return std::unique_ptr<storage::ObjectStore>(
          std::make_unique<storage::LocalObjectStore>(root));
    }
    case storage::Provider::kS3: {
      CAIRN_ASSIGN_OR_RETURN(
          auto store, storage::s3::S3ObjectStore::Create(
                          options.s3, std::filesystem::path(settings.data_dir) / "s3-staging"));
      return std::unique_ptr<storage::ObjectStore>(std::move(store));
    }
    case storage::Provider::kBytea:
      return std::unique_ptr<storage::ObjectStore>(
          std::make_unique<storage::ByteaObjectStore>(database));
  }
  return Error::Internal("unknown storage provider");
}

}  // namespace

std::filesystem::path TransformCacheDir(const Settings& settings) {
  if (!settings.storage_transform_cache_dir.empty()) return settings.storage_transform_cache_dir;
  std::error_code ec;
  const std::filesystem::path data = std::filesystem::absolute(settings.data_dir, ec);
  const std::string identity = data.string() + "\n" + settings.database_url;
  return std::filesystem::temp_directory_path(ec) /
         ("cairn-" + crypto::Sha256Hex(identity).substr(0, 16)) / "transforms";
}

Result<StorageParts> SetUpStorage(const Settings& settings, db::Database& database,
                                  std::string secret,
                                  std::function<void(std::string_view)> before_transform) {
  StorageParts parts;
  parts.secret = std::move(secret);
  CAIRN_ASSIGN_OR_RETURN(parts.store, MakeStore(settings, database));
  CAIRN_TRY(parts.store->Start());
  log::Info("file storage: " + std::string(parts.store->provider()));
  transform::TransformSettings transforms;
  transforms.cache_dir = TransformCacheDir(settings);
  transforms.cache_max_bytes =
      static_cast<std::uint64_t>(settings.storage_transform_cache_max_mb) * 1'000'000;
  transforms.limits.max_pixels = static_cast<std::uint64_t>(settings.storage_transform_max_pixels);
  transforms.threads = settings.transform_threads > 0
                           ? settings.transform_threads
                           : static_cast<int>(std::max(1U, std::thread::hardware_concurrency()));
  transforms.queue = settings.transform_queue;
  transforms.preferred =
      transform::ParseFormat(settings.eco_image_format).value_or(transform::Format::kAvif);
  if (!settings.storage_transform_presets.empty()) {
    CAIRN_ASSIGN_OR_RETURN(transforms.presets,
                           transform::ParsePresets(settings.storage_transform_presets));
  }
  transforms.before_transform = std::move(before_transform);
  CAIRN_ASSIGN_OR_RETURN(parts.transforms,
                         transform::TransformService::Start(std::move(transforms)));
  return parts;
}

std::unique_ptr<storage::StorageService> BuildStorageService(const Settings& settings,
                                                             const config::AppConfig& config,
                                                             StorageParts& parts) {
  return std::make_unique<storage::StorageService>(config, settings.storage, *parts.store,
                                                   parts.secret, settings.base_url);
}

}  // namespace cairn::app
