// An application with buckets for the storage tests, on the storage provider of the test
// parameter (local, bytea) and the database backend of the run: an admin, users of any role with
// Bearer tokens, a steppable token clock, and helpers to sign, upload and download.
#pragma once

#include <atomic>
#include <memory>
#include <string>

#include "e2e/records_support.hpp"

namespace cairn::test {

// Buckets for the tests: `docs` (sign: authenticated, signUpload: member and editor, download:
// authenticated, delete: admin and member), `locked` (no permissions block: admin only),
// `pictures` (images only, 64 KiB at most), `open` (public) and the implicit `default`.
// Role `editor` may sign uploads but not downloads (permissions.storage.sign false).
extern const char* const kStorageConfig;

struct StorageAppOptions {
  std::string provider = "local";  // STORAGE_PROVIDER
  std::string config = kStorageConfig;
  std::string default_access;  // STORAGE_DEFAULT_ACCESS when not empty
  std::vector<std::string> public_paths;
  // More operator settings (image transforms' cache, pool, presets).
  std::function<void(app::Settings&)> tune_settings;
  // The image transforms' test hook (ApplicationOptions::before_transform).
  std::function<void(std::string_view key)> before_transform;
  // Runs on another app's database and data directory (a restart; TestAppOptions).
  const TestApp* share_database_with = nullptr;
};

class StorageApp {
 public:
  explicit StorageApp(StorageAppOptions options);

  RecordsApp& records() { return *records_; }
  TestApp& app() { return records_->app(); }
  const Caller& admin() const { return records_->admin(); }
  Caller NewUser(const std::string& role) { return records_->NewUser(role); }
  HttpResult Send(const Caller& caller, const std::string& method, const std::string& target,
                  const std::string& body = {}) {
    return records_->Send(caller, method, target, body);
  }

  // Seconds the token clock runs ahead of the system clock.
  void AdvanceClock(std::int64_t seconds) { clock_offset_->fetch_add(seconds); }

  // POST /api/buckets/{bucket}/sign with `body`.
  HttpResult Sign(const Caller& caller, const std::string& bucket, const std::string& body);
  // The target (path and query) of a signed URL for `path`; fails the test when signing fails.
  std::string SignedTarget(const std::string& bucket, const std::string& path,
                           const std::string& operation = "download",
                           const std::string& extra = "");
  // Signs an upload as admin and PUTs `bytes`; returns the PUT's answer.
  HttpResult Upload(const std::string& bucket, const std::string& path, const std::string& bytes,
                    const std::string& content_type = "", const Headers& headers = {});
  HttpResult Download(const std::string& bucket, const std::string& path,
                      const Headers& headers = {});

 private:
  std::shared_ptr<std::atomic<std::int64_t>> clock_offset_;
  std::unique_ptr<RecordsApp> records_;
};

// A PNG image of 1×1 pixel, and a PDF of a few bytes, as real files of those types.
std::string TinyPng();
std::string TinyPdf();

}  // namespace cairn::test
