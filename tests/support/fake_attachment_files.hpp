// A file storage for attachment fields held in memory (records::AttachmentFiles): the files a
// test puts, links that name their bucket and path, and a switch that makes lookups fail as a
// storage outage would. Thread-safe, so one instance can serve an in-process application.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "common/json.hpp"
#include "records/attachment_files.hpp"

namespace cairn::test {

class FakeAttachmentFiles final : public records::AttachmentFiles {
 public:
  // Files of `public_bucket` get a direct `url`; the others a signed URL.
  explicit FakeAttachmentFiles(std::string public_bucket = "public")
      : public_bucket_(std::move(public_bucket)) {}

  void Put(std::string_view bucket, std::string_view path, std::uint64_t size,
           std::string mime_type) {
    const std::lock_guard lock(mutex_);
    files_[{std::string(bucket), std::string(path)}] = {size, std::move(mime_type)};
  }
  void Remove(std::string_view bucket, std::string_view path) {
    const std::lock_guard lock(mutex_);
    files_.erase({std::string(bucket), std::string(path)});
  }
  // While set, Find answers a 503 as storage would when it cannot be reached.
  void SetFailing(bool failing) { failing_ = failing; }
  int finds() const { return finds_; }

  Result<std::optional<records::StoredFile>> Find(std::string_view bucket,
                                                  std::string_view path) const override {
    ++finds_;
    if (failing_) return Error::Unavailable("File storage is unavailable", "fake outage");
    const std::lock_guard lock(mutex_);
    const auto found = files_.find({std::string(bucket), std::string(path)});
    if (found == files_.end()) return std::optional<records::StoredFile>();
    return std::optional<records::StoredFile>(found->second);
  }

  void AppendLinks(std::string_view bucket, std::string_view path, std::string_view /*transform*/,
                   std::string& out) const override {
    const std::string url = "https://files.test/" + std::string(bucket) + "/" + std::string(path);
    if (bucket == public_bucket_) {
      out += ",\"url\":";
      json::AppendString(out, url);
      return;
    }
    out += ",\"signedUrl\":";
    json::AppendString(out, url + "?token=t");
    out += ",\"signedUrlExpiresAt\":\"2030-01-01T01:00:00.000Z\"";
  }

 private:
  std::string public_bucket_;
  mutable std::mutex mutex_;
  std::map<std::pair<std::string, std::string>, records::StoredFile> files_;
  std::atomic<bool> failing_ = false;
  mutable std::atomic<int> finds_ = 0;
};

}  // namespace cairn::test
