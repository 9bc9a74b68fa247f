#include "e2e/storage_support.hpp"

#include <chrono>
#include <stdexcept>

#include "e2e/auth_test_support.hpp"

namespace cairn::test {

const char* const kStorageConfig = R"(tables:
  - id: 1
    name: notes
    fields:
      - { id: 1, name: title, type: single-line-text }
buckets:
  - name: docs
    permissions:
      sign: authenticated
      signUpload: [member, editor]
      download: authenticated
      delete: [admin, member]
  - name: locked
  - name: pictures
    allowedMimeTypes: [image/*]
    maxFileSize: 65536
    permissions:
      sign: all
      signUpload: all
  - name: open
    public: true
    permissions:
      signUpload: [admin]
)";

namespace {

constexpr const char* kEditorRole = R"(  roles:
    - name: editor
      permissions:
        storage: { sign: false, signUpload: true }
)";

std::int64_t SystemSeconds() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string ErrorText(const HttpResult& result) {
  return std::to_string(result.status) + " " + result.body;
}

}  // namespace

StorageApp::StorageApp(StorageAppOptions options)
    : clock_offset_(std::make_shared<std::atomic<std::int64_t>>(0)) {
  records_ = std::make_unique<RecordsApp>(
      options.config, kEditorRole, [&options, offset = clock_offset_](TestAppOptions& app) {
        auto base = app.tune_settings;
        app.tune_settings = [base, options](app::Settings& settings) {
          if (base) base(settings);
          settings.storage.provider = options.provider == "bytea" ? storage::Provider::kBytea
                                      : options.provider == "s3"  ? storage::Provider::kS3
                                                                  : storage::Provider::kLocal;
          settings.storage.default_public = options.default_access == "public";
          settings.storage.public_paths = options.public_paths;
          if (options.tune_settings) options.tune_settings(settings);
        };
        app.before_transform = options.before_transform;
        app.share_database_with = options.share_database_with;
        app.storage_now_seconds = [offset] { return SystemSeconds() + offset->load(); };
      });
}

HttpResult StorageApp::Sign(const Caller& caller, const std::string& bucket,
                            const std::string& body) {
  return Send(caller, "POST", "/api/buckets/" + bucket + "/sign", body);
}

std::string StorageApp::SignedTarget(const std::string& bucket, const std::string& path,
                                     const std::string& operation, const std::string& extra) {
  const auto signed_url =
      Sign(admin(), bucket,
           R"({"path":")" + path + R"(","operation":")" + operation + "\"" + extra + "}");
  if (signed_url.status != 200) throw std::runtime_error("sign failed: " + ErrorText(signed_url));
  return TargetOf(std::string(signed_url.Json().at("signedUrl").as_string()));
}

HttpResult StorageApp::Upload(const std::string& bucket, const std::string& path,
                              const std::string& bytes, const std::string& content_type,
                              const Headers& headers) {
  const std::string extra = content_type.empty() ? "" : R"(,"contentType":")" + content_type + "\"";
  const std::string target = SignedTarget(bucket, path, "upload", extra);
  Headers sent = headers;
  if (!content_type.empty()) sent.emplace_back("Content-Type", content_type);
  return app().Client().Request("PUT", target, bytes, sent);
}

HttpResult StorageApp::Download(const std::string& bucket, const std::string& path,
                                const Headers& headers) {
  return app().Client().Request("GET", SignedTarget(bucket, path), {}, headers);
}

std::string TinyPng() {
  // 1×1 transparent PNG.
  static const unsigned char kBytes[] = {
      0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48,
      0x44, 0x52, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00,
      0x00, 0x1f, 0x15, 0xc4, 0x89, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x44, 0x41, 0x54, 0x78,
      0x9c, 0x63, 0x00, 0x01, 0x00, 0x00, 0x05, 0x00, 0x01, 0x0d, 0x0a, 0x2d, 0xb4, 0x00,
      0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82};
  return {reinterpret_cast<const char*>(kBytes), sizeof(kBytes)};
}

std::string TinyPdf() {
  return "%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n"
         "2 0 obj << /Type /Pages /Kids [] /Count 0 >> endobj\n"
         "trailer << /Root 1 0 R >>\n%%EOF\n";
}

}  // namespace cairn::test
