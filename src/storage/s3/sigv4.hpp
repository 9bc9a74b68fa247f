// AWS Signature Version 4 (D48): the canonical request, the string to sign, the signing key, the
// Authorization header and query-string presigning, as AWS documents them for S3 ("Authenticating
// Requests (AWS Signature Version 4)"). HMAC and SHA-256 come from OpenSSL (common/crypto.hpp).
//
// Paths and query parameters are given decoded and encoded here exactly once (S3 keys are not
// double-encoded; `/` stays in the path), and paths are not normalized: S3 keys are taken as they
// are. tests/unit/storage/sigv4_test.cpp checks it against AWS's published test suite.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cairn::storage::s3 {

inline constexpr std::string_view kSigV4Algorithm = "AWS4-HMAC-SHA256";
// The payload hash of a request whose body is not signed (presigned URLs).
inline constexpr std::string_view kUnsignedPayload = "UNSIGNED-PAYLOAD";
// SHA-256 of the empty string: the payload hash of a request without a body.
inline constexpr std::string_view kEmptyPayloadSha256 =
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

struct Credentials {
  std::string access_key_id;
  std::string secret_access_key;
  std::string region = "us-east-1";
  std::string service = "s3";
};

using NameValues = std::vector<std::pair<std::string, std::string>>;

// One request as it is signed.
struct SigningRequest {
  std::string method;        // GET, PUT, …
  std::string path;          // decoded, starting with '/': "/bucket/a b.txt"
  NameValues query;          // decoded names and values, any order; repeats allowed
  NameValues headers;        // as sent (any case, any order, repeats joined with ','); has Host
  std::string payload_hash;  // lowercase hex SHA-256 of the body, or kUnsignedPayload
};

// RFC 3986 percent-encoding as SigV4 wants it: unreserved bytes (A-Z a-z 0-9 - _ . ~) stay,
// every other byte is %XX with uppercase hex; `/` stays when `keep_slash` (paths).
std::string UriEncode(std::string_view text, bool keep_slash);

// Lowercase hexadecimal of raw bytes (signatures, SHA-256 digests).
std::string LowerHex(std::string_view bytes);

// "20150830T123600Z" for epoch seconds (UTC).
std::string AmzDate(std::int64_t epoch_seconds);

// "20150830/us-east-1/service/aws4_request" for an X-Amz-Date.
std::string CredentialScope(const Credentials& credentials, std::string_view amz_date);

// The canonical query string: names and values encoded, sorted by name then value.
std::string CanonicalQuery(const NameValues& query);

// The signed headers ("host;x-amz-date") and canonical headers block (each "name:value\n") of
// the request: names lowercased, values trimmed with inner runs of spaces collapsed.
struct CanonicalHeaders {
  std::string signed_headers;
  std::string block;
};
CanonicalHeaders Canonicalize(const NameValues& headers);

std::string CanonicalRequest(const SigningRequest& request);

std::string StringToSign(std::string_view amz_date, std::string_view scope,
                         std::string_view canonical_request);

// kSecret = "AWS4" + secret; HMAC over date, region, service, "aws4_request" (32 raw bytes).
std::string SigningKey(const Credentials& credentials, std::string_view date);

// Everything a header-signed request needs, with the intermediate steps (for tests and logs).
struct HeaderSignature {
  std::string canonical_request;
  std::string string_to_sign;
  std::string signed_headers;
  std::string signature;      // lowercase hex
  std::string authorization;  // the Authorization header's value
};

// Signs `request` dated `amz_date` (which must also be in its X-Amz-Date header).
HeaderSignature SignHeaders(const Credentials& credentials, const SigningRequest& request,
                            std::string_view amz_date);

// Presigns `request` (its headers: Host, and Content-Type when bound; its payload hash is
// ignored and UNSIGNED-PAYLOAD used): adds X-Amz-Algorithm, X-Amz-Credential, X-Amz-Date,
// X-Amz-Expires and X-Amz-SignedHeaders to its query and answers the full query string to put
// after '?', ending with X-Amz-Signature.
std::string PresignQuery(const Credentials& credentials, SigningRequest request,
                         std::string_view amz_date, std::int64_t expires_seconds);

}  // namespace cairn::storage::s3
