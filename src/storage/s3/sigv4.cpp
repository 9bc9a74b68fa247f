#include "storage/s3/sigv4.hpp"

#include <algorithm>
#include <ctime>

#include "common/crypto.hpp"
#include "common/text.hpp"

namespace cairn::storage::s3 {
namespace {

std::string Lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

bool IsBlank(char c) {
  return c == ' ' || c == '\t';
}

// Trims the value and turns each run of blanks inside it into one space.
std::string TrimAll(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  bool blank = false;
  for (const char c : value) {
    if (IsBlank(c)) {
      blank = true;
      continue;
    }
    if (blank && !out.empty()) out.push_back(' ');
    blank = false;
    out.push_back(c);
  }
  return out;
}

}  // namespace

std::string LowerHex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (const char byte : bytes) {
    const auto c = static_cast<unsigned char>(byte);
    out.push_back(kDigits[c >> 4]);
    out.push_back(kDigits[c & 0x0F]);
  }
  return out;
}

std::string UriEncode(std::string_view text, bool keep_slash) {
  std::string out;
  out.reserve(text.size() + text.size() / 2);
  text::AppendPercentEncoded(text, out, keep_slash);
  return out;
}

std::string AmzDate(std::int64_t epoch_seconds) {
  const auto seconds = static_cast<std::time_t>(epoch_seconds);
  std::tm parts{};
  gmtime_r(&seconds, &parts);
  char text[32];
  const std::size_t length = std::strftime(text, sizeof text, "%Y%m%dT%H%M%SZ", &parts);
  return std::string(text, length);
}

std::string CredentialScope(const Credentials& credentials, std::string_view amz_date) {
  std::string scope(amz_date.substr(0, 8));
  scope += '/';
  scope += credentials.region;
  scope += '/';
  scope += credentials.service;
  scope += "/aws4_request";
  return scope;
}

std::string CanonicalQuery(const NameValues& query) {
  std::vector<std::pair<std::string, std::string>> encoded;
  encoded.reserve(query.size());
  for (const auto& [name, value] : query) {
    encoded.emplace_back(UriEncode(name, false), UriEncode(value, false));
  }
  std::sort(encoded.begin(), encoded.end());
  std::string out;
  for (const auto& [name, value] : encoded) {
    if (!out.empty()) out += '&';
    out += name;
    out += '=';
    out += value;
  }
  return out;
}

CanonicalHeaders Canonicalize(const NameValues& headers) {
  std::vector<std::pair<std::string, std::string>> lowered;
  lowered.reserve(headers.size());
  for (const auto& [name, value] : headers) lowered.emplace_back(Lower(name), TrimAll(value));
  // Stable: the values of a repeated header keep their order when joined.
  std::stable_sort(lowered.begin(), lowered.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  CanonicalHeaders out;
  for (std::size_t i = 0; i < lowered.size(); ++i) {
    const bool repeat = i > 0 && lowered[i].first == lowered[i - 1].first;
    if (repeat) {
      out.block.pop_back();  // the previous value's '\n'
      out.block += ',';
    } else {
      if (!out.signed_headers.empty()) out.signed_headers += ';';
      out.signed_headers += lowered[i].first;
      out.block += lowered[i].first;
      out.block += ':';
    }
    out.block += lowered[i].second;
    out.block += '\n';
  }
  return out;
}

std::string CanonicalRequest(const SigningRequest& request) {
  const CanonicalHeaders headers = Canonicalize(request.headers);
  std::string out = request.method;
  out += '\n';
  out += UriEncode(request.path.empty() ? std::string_view("/") : request.path, true);
  out += '\n';
  out += CanonicalQuery(request.query);
  out += '\n';
  out += headers.block;
  out += '\n';
  out += headers.signed_headers;
  out += '\n';
  out += request.payload_hash;
  return out;
}

std::string StringToSign(std::string_view amz_date, std::string_view scope,
                         std::string_view canonical_request) {
  std::string out(kSigV4Algorithm);
  out += '\n';
  out += amz_date;
  out += '\n';
  out += scope;
  out += '\n';
  out += crypto::Sha256Hex(canonical_request);
  return out;
}

std::string SigningKey(const Credentials& credentials, std::string_view date) {
  const std::string secret = "AWS4" + credentials.secret_access_key;
  const std::string date_key = crypto::HmacSha256(secret, date);
  const std::string region_key = crypto::HmacSha256(date_key, credentials.region);
  const std::string service_key = crypto::HmacSha256(region_key, credentials.service);
  return crypto::HmacSha256(service_key, "aws4_request");
}

HeaderSignature SignHeaders(const Credentials& credentials, const SigningRequest& request,
                            std::string_view amz_date) {
  HeaderSignature out;
  const std::string scope = CredentialScope(credentials, amz_date);
  out.canonical_request = CanonicalRequest(request);
  out.signed_headers = Canonicalize(request.headers).signed_headers;
  out.string_to_sign = StringToSign(amz_date, scope, out.canonical_request);
  out.signature = LowerHex(
      crypto::HmacSha256(SigningKey(credentials, amz_date.substr(0, 8)), out.string_to_sign));
  out.authorization = std::string(kSigV4Algorithm) + " Credential=" + credentials.access_key_id +
                      "/" + scope + ", SignedHeaders=" + out.signed_headers +
                      ", Signature=" + out.signature;
  return out;
}

std::string PresignQuery(const Credentials& credentials, SigningRequest request,
                         std::string_view amz_date, std::int64_t expires_seconds) {
  const std::string scope = CredentialScope(credentials, amz_date);
  request.query.emplace_back("X-Amz-Algorithm", std::string(kSigV4Algorithm));
  request.query.emplace_back("X-Amz-Credential", credentials.access_key_id + "/" + scope);
  request.query.emplace_back("X-Amz-Date", std::string(amz_date));
  request.query.emplace_back("X-Amz-Expires", std::to_string(expires_seconds));
  request.query.emplace_back("X-Amz-SignedHeaders", Canonicalize(request.headers).signed_headers);
  request.payload_hash = std::string(kUnsignedPayload);
  const std::string canonical = CanonicalRequest(request);
  const std::string signature = LowerHex(crypto::HmacSha256(
      SigningKey(credentials, amz_date.substr(0, 8)), StringToSign(amz_date, scope, canonical)));
  std::string out = CanonicalQuery(request.query);
  out += "&X-Amz-Signature=";
  out += signature;
  return out;
}

}  // namespace cairn::storage::s3
