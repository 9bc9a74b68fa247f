#include "storage/signed_token.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include "common/crypto.hpp"
#include "common/json.hpp"
#include "storage/limits.hpp"

namespace cairn::storage {
namespace {

constexpr std::string_view kKeyLabel = "cairn storage token v1";
constexpr std::string_view kDownload = "d";
constexpr std::string_view kUpload = "u";

Error Refused() {
  return Error::Forbidden("Invalid or expired token");
}

}  // namespace

TokenSigner::TokenSigner(std::string_view secret) : key_(crypto::HmacSha256(secret, kKeyLabel)) {}

std::string TokenSigner::Sign(const TokenClaims& claims) const {
  std::string payload = R"({"b":)";
  json::AppendString(payload, claims.bucket);
  payload += R"(,"p":)";
  json::AppendString(payload, claims.path);
  payload += R"(,"o":")";
  payload += claims.operation == Operation::kUpload ? kUpload : kDownload;
  payload += R"(","e":)";
  payload += std::to_string(claims.expires_at);
  if (claims.operation == Operation::kUpload) {
    payload += R"(,"m":)";
    payload += std::to_string(claims.max_size);
    payload += R"(,"c":)";
    json::AppendString(payload, claims.content_type);
  }
  if (claims.operation == Operation::kDownload && !claims.transform.empty()) {
    payload += R"(,"t":)";
    json::AppendString(payload, claims.transform);
  }
  if (!claims.signer_id.empty()) {
    payload += R"(,"a":)";
    json::AppendString(payload, claims.signer_id);
  }
  payload += '}';
  std::string token = crypto::Base64Url(payload);
  token += '.';
  token += crypto::Base64Url(crypto::HmacSha256(key_, payload));
  return token;
}

Result<TokenClaims> TokenSigner::Verify(std::string_view token) const {
  if (token.size() > kMaxTokenBytes) return Refused();
  const std::size_t dot = token.find('.');
  if (dot == std::string_view::npos) return Refused();
  const auto payload = crypto::Base64UrlDecode(token.substr(0, dot));
  const auto signature = crypto::Base64UrlDecode(token.substr(dot + 1));
  if (!payload || !signature ||
      !crypto::ConstantTimeEquals(*signature, crypto::HmacSha256(key_, *payload))) {
    return Refused();
  }
  // Signed by us, so well formed; the checks below still refuse rather than trust.
  boost::system::error_code ec;
  const boost::json::value parsed = boost::json::parse(*payload, ec);
  const boost::json::object* object = parsed.if_object();
  if (ec || object == nullptr) return Refused();
  const auto* bucket = object->if_contains("b");
  const auto* path = object->if_contains("p");
  const auto* operation = object->if_contains("o");
  const auto* expires = object->if_contains("e");
  if (bucket == nullptr || !bucket->is_string() || path == nullptr || !path->is_string() ||
      operation == nullptr || !operation->is_string() || expires == nullptr ||
      !expires->is_int64()) {
    return Refused();
  }
  TokenClaims claims;
  claims.bucket = bucket->get_string();
  claims.path = path->get_string();
  claims.expires_at = expires->get_int64();
  if (const auto* signer = object->if_contains("a"); signer != nullptr && signer->is_string()) {
    claims.signer_id = signer->get_string();
  }
  if (operation->get_string() == kUpload) {
    claims.operation = Operation::kUpload;
    const auto* max_size = object->if_contains("m");
    const auto* content_type = object->if_contains("c");
    if (max_size == nullptr || !max_size->is_number() || content_type == nullptr ||
        !content_type->is_string()) {
      return Refused();
    }
    claims.max_size = max_size->is_uint64() ? max_size->get_uint64()
                                            : static_cast<std::uint64_t>(max_size->get_int64());
    claims.content_type = content_type->get_string();
  } else if (operation->get_string() == kDownload) {
    if (const auto* transform = object->if_contains("t")) {
      if (!transform->is_string()) return Refused();
      claims.transform = transform->get_string();
    }
  } else {
    return Refused();
  }
  return claims;
}

}  // namespace cairn::storage
