#include "support/s3_server.hpp"

#include <cstdlib>
#include <stdexcept>
#include <vector>

namespace cairn::test {
namespace {

constexpr int kStartTimeoutMs = 20'000;

}  // namespace

std::string S3Server::MissingNode() {
  if (!NodeProcess::NodeInstalled()) {
    return "node is not installed, so the S3-compatible test server (tests/node) cannot run "
           "(scripts/install-deps installs it)";
  }
  return {};
}

S3Server::S3Server(std::string bucket, std::filesystem::path tls_key,
                   std::filesystem::path tls_cert)
    : bucket_(std::move(bucket)), tls_(!tls_key.empty()) {
  if (!NodeProcess::NodeInstalled()) throw std::runtime_error(MissingNode());
  if (const std::string missing = NodeProcess::Missing("@20minutes/s3rver"); !missing.empty()) {
    throw std::runtime_error(missing);
  }
  std::string pattern = (std::filesystem::temp_directory_path() / "cairn-s3-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  dir_ = pattern;
  data_dir_ = dir_ / "data";
  std::filesystem::create_directories(data_dir_);

  std::vector<std::string> args = {data_dir_.string(), bucket_};
  if (tls_) {
    args.push_back(tls_key.string());
    args.push_back(tls_cert.string());
  }
  int port = 0;
  try {
    // s3rver's continuation tokens are DES-encrypted, which OpenSSL 3 keeps in its legacy
    // provider: without it every second page of a listing is a 500.
    process_ = std::make_unique<NodeProcess>("s3_server.js", args,
                                             std::vector<std::string>{"--openssl-legacy-provider"});
    port = std::atoi(process_->ReadLine(kStartTimeoutMs).c_str());
  } catch (const std::runtime_error&) {
    port = 0;
  }
  if (port <= 0 || port > 65535) {
    Stop();
    throw std::runtime_error("the S3 test server (tests/node/s3_server.js) did not start");
  }
  port_ = static_cast<std::uint16_t>(port);
}

S3Server::~S3Server() {
  Stop();
}

std::string S3Server::endpoint() const {
  return std::string(tls_ ? "https" : "http") + "://127.0.0.1:" + std::to_string(port_);
}

void S3Server::Stop() {
  process_.reset();  // closes its stdin: the server exits
  std::error_code ignored;
  if (!dir_.empty()) std::filesystem::remove_all(dir_, ignored);
  dir_.clear();
}

}  // namespace cairn::test
