// Signed URL tokens of the local and bytea backends (D42): base64url(payload) "." base64url(
// HMAC-SHA256(key, payload)). The payload binds the bucket, the path, the operation, the expiry
// and, for uploads, the content type and the size limit, for downloads an image transform; changing
// any byte breaks the signature, which is compared in constant time. The key is derived from
// AUTH_SECRET for this use alone, so a token can never pass for a session cookie signature or the
// other way round.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/result.hpp"

namespace cairn::storage {

enum class Operation { kDownload, kUpload };

struct TokenClaims {
  std::string bucket;
  std::string path;
  Operation operation = Operation::kDownload;
  std::int64_t expires_at = 0;  // epoch seconds
  // Uploads only.
  std::uint64_t max_size = 0;
  std::string content_type;  // empty: any type
  std::string signer_id;     // the user who signed it, for the activity log; may be empty
  // Downloads only: the image transform the token serves, in transform::Normalize's form
  // (`w=400;fit=cover;…`); empty: the original, or any transform the URL asks for. Opaque here.
  std::string transform;
};

class TokenSigner {
 public:
  explicit TokenSigner(std::string_view secret);

  std::string Sign(const TokenClaims& claims) const;
  // The claims of `token` when it is well formed and its signature is right, else a 403 (a
  // tampered token and a made-up one answer alike). Expiry and operation are the caller's.
  Result<TokenClaims> Verify(std::string_view token) const;

 private:
  std::string key_;
};

}  // namespace cairn::storage
