// A real S3-compatible server for one test: runs tests/node/s3_server.js (@20minutes/s3rver,
// installed in tests/node by scripts/install-deps) on a free 127.0.0.1 port with its own
// temporary data directory and one bucket, over http or, given a key and certificate, https.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

#include "support/node_process.hpp"

namespace cairn::test {

class S3Server {
 public:
  // s3rver's one account.
  static constexpr const char* kAccessKeyId = "S3RVER";
  static constexpr const char* kSecretAccessKey = "S3RVER";

  // Empty when the server can be started; otherwise why not. Only a missing `node` is a reason
  // to skip (CI has it); missing packages are a failure that says to run scripts/install-deps.
  static std::string MissingNode();

  // Throws std::runtime_error when the server does not start.
  explicit S3Server(std::string bucket = "cairn-test", std::filesystem::path tls_key = {},
                    std::filesystem::path tls_cert = {});
  // Closes the server's stdin, which makes it exit, and removes its directory.
  ~S3Server();
  S3Server(const S3Server&) = delete;
  S3Server& operator=(const S3Server&) = delete;

  std::uint16_t port() const { return port_; }
  const std::string& bucket() const { return bucket_; }
  // "http://127.0.0.1:<port>" (https with TLS).
  std::string endpoint() const;
  // Where s3rver keeps the objects (<dir>/<bucket>/…).
  const std::filesystem::path& data_dir() const { return data_dir_; }

 private:
  void Stop();

  std::string bucket_;
  bool tls_ = false;
  std::filesystem::path dir_;
  std::filesystem::path data_dir_;
  std::unique_ptr<NodeProcess> process_;
  std::uint16_t port_ = 0;
};

}  // namespace cairn::test
