#include "app/storage_setup.hpp"

#include <filesystem>

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

Result<StorageParts> SetUpStorage(const Settings& settings, const config::AppConfig& config,
                                  db::Database& database, std::string_view secret) {
  StorageParts parts;
  CAIRN_ASSIGN_OR_RETURN(parts.store, MakeStore(settings, database));
  CAIRN_TRY(parts.store->Start());
  log::Info("file storage: " + std::string(parts.store->provider()) + ", " +
            std::to_string(config.buckets.size()) + " bucket(s)");
  parts.service = std::make_unique<storage::StorageService>(config, settings.storage, *parts.store,
                                                            secret, settings.base_url);
  return parts;
}

}  // namespace cairn::app
