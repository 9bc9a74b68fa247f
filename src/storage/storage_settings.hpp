// The storage operator settings (D41, interface.md "Operator settings"), read and validated by
// app/settings.cpp; every bad value is a startup error that names its setting.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace cairn::storage {

enum class Provider { kLocal, kBytea, kS3 };

// STORAGE_S3_*: where objects go with STORAGE_PROVIDER=s3 (D48).
struct S3Settings {
  std::string endpoint;  // http(s)://host[:port]; empty → https://s3.<region>.amazonaws.com
  std::string bucket;
  std::string region = "us-east-1";
  std::string access_key_id;
  std::string secret_access_key;
  bool force_path_style = false;  // https://endpoint/bucket/key instead of bucket.endpoint/key
};

struct StorageSettings {
  // Unset: local with SQLite, bytea with PostgreSQL (D41).
  std::optional<Provider> provider;
  std::string local_directory;  // empty → <data-dir>/storage
  S3Settings s3;
  bool default_public = false;            // STORAGE_DEFAULT_ACCESS=public
  std::vector<std::string> public_paths;  // STORAGE_PUBLIC_PATHS, checked prefixes
};

}  // namespace cairn::storage
