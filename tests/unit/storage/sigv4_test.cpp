// The SigV4 signer against AWS's published test suite (tests/fixtures/sigv4, see its README) and
// the S3 examples of AWS's documentation.
#include "storage/s3/sigv4.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

#include "common/crypto.hpp"

namespace cairn::storage::s3 {
namespace {

const std::filesystem::path kSuite = CAIRN_SOURCE_DIR "/tests/fixtures/sigv4";
constexpr std::string_view kSuiteDate = "20150830T123600Z";

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

Credentials SuiteCredentials() {
  return {"AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", "us-east-1", "service"};
}

// A .req file: "METHOD URI HTTP/1.1", "Name:value" lines, an empty line and the body. The URI's
// path and query are raw (unencoded), as the suite writes them.
SigningRequest ParseReq(const std::string& text) {
  SigningRequest request;
  std::size_t at = text.find('\n');
  const std::string line = text.substr(0, at);
  const std::size_t space1 = line.find(' ');
  const std::size_t space2 = line.rfind(' ');
  request.method = line.substr(0, space1);
  const std::string uri = line.substr(space1 + 1, space2 - space1 - 1);
  const std::size_t question = uri.find('?');
  request.path = uri.substr(0, question);
  if (question != std::string::npos) {
    std::stringstream query(uri.substr(question + 1));
    std::string pair;
    while (std::getline(query, pair, '&')) {
      const std::size_t equals = pair.find('=');
      if (equals == std::string::npos) {
        request.query.emplace_back(pair, "");
      } else {
        request.query.emplace_back(pair.substr(0, equals), pair.substr(equals + 1));
      }
    }
  }
  std::string body;
  while (at != std::string::npos) {
    const std::size_t next = text.find('\n', at + 1);
    const std::string header =
        text.substr(at + 1, next == std::string::npos ? next : next - at - 1);
    at = next;
    if (header.empty()) {
      if (at != std::string::npos) body = text.substr(at + 1);
      break;
    }
    const std::size_t colon = header.find(':');
    request.headers.emplace_back(header.substr(0, colon), header.substr(colon + 1));
  }
  request.payload_hash = crypto::Sha256Hex(body);
  return request;
}

// Two vectors of the published suite contradict themselves: their .creq lists content-length
// (the .req sends it), but their .sts and .authz were computed from an older canonical request
// without it (and, for -parameters, with "charset=utf8" for the .req's "charset=utf-8"): the
// SHA-256 in the .sts is that of the older text. Their canonical request is still checked.
bool OnlyCanonicalRequestHolds(std::string_view name) {
  return name == "post-x-www-form-urlencoded" || name == "post-x-www-form-urlencoded-parameters";
}

class SigV4SuiteTest : public testing::TestWithParam<std::string> {};

TEST_P(SigV4SuiteTest, CanonicalRequestStringToSignAndAuthorization) {
  const std::string name = GetParam();
  const std::filesystem::path dir = kSuite / name;
  const std::string req = ReadFile(dir / (name + ".req"));
  ASSERT_FALSE(req.empty()) << dir;
  const SigningRequest request = ParseReq(req);
  const HeaderSignature signature = SignHeaders(SuiteCredentials(), request, kSuiteDate);
  EXPECT_EQ(signature.canonical_request, ReadFile(dir / (name + ".creq")));
  if (OnlyCanonicalRequestHolds(name)) return;
  EXPECT_EQ(signature.string_to_sign, ReadFile(dir / (name + ".sts")));
  EXPECT_EQ(signature.authorization, ReadFile(dir / (name + ".authz")));
}

// Every vector under tests/fixtures/sigv4 (a folder each), so a vector added there is tested.
std::vector<std::string> SuiteNames() {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(kSuite)) {
    if (entry.is_directory()) names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

INSTANTIATE_TEST_SUITE_P(Aws, SigV4SuiteTest, testing::ValuesIn(SuiteNames()),
                         [](const testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param;
                           for (char& c : name) {
                             if (c == '-') c = '_';
                           }
                           return name;
                         });

TEST(SigV4Suite, HasTheNamedVectors) {
  const auto names = SuiteNames();
  for (const char* wanted : {"get-vanilla", "get-vanilla-query-order-key-case",
                             "post-header-key-sort", "get-header-value-trim", "get-space",
                             "get-utf8", "get-vanilla-utf8-query", "get-header-key-duplicate"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), wanted), names.end()) << wanted;
  }
}

// AWS's S3 examples ("Signature Calculations for the Authorization Header: Transferring Payload
// in a Single Chunk" and "Authenticating Requests: Using Query Parameters").
Credentials ExampleS3Credentials() {
  return {"AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "us-east-1", "s3"};
}

TEST(SigV4S3Example, GetObjectWithRange) {
  SigningRequest request;
  request.method = "GET";
  request.path = "/test.txt";
  request.headers = {{"Host", "examplebucket.s3.amazonaws.com"},
                     {"Range", "bytes=0-9"},
                     {"x-amz-content-sha256", std::string(kEmptyPayloadSha256)},
                     {"x-amz-date", "20130524T000000Z"}};
  request.payload_hash = std::string(kEmptyPayloadSha256);
  const HeaderSignature signature =
      SignHeaders(ExampleS3Credentials(), request, "20130524T000000Z");
  EXPECT_EQ(signature.canonical_request,
            "GET\n/test.txt\n\nhost:examplebucket.s3.amazonaws.com\nrange:bytes=0-9\n"
            "x-amz-content-sha256:"
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\n"
            "x-amz-date:20130524T000000Z\n\nhost;range;x-amz-content-sha256;x-amz-date\n"
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(signature.string_to_sign,
            "AWS4-HMAC-SHA256\n20130524T000000Z\n20130524/us-east-1/s3/aws4_request\n"
            "7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972");
  EXPECT_EQ(signature.signature,
            "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
}

TEST(SigV4S3Example, PresignedGet) {
  SigningRequest request;
  request.method = "GET";
  request.path = "/test.txt";
  request.headers = {{"Host", "examplebucket.s3.amazonaws.com"}};
  const std::string query =
      PresignQuery(ExampleS3Credentials(), request, AmzDate(1369353600), 86400);
  EXPECT_EQ(query,
            "X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%"
            "2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-"
            "Amz-SignedHeaders=host&X-Amz-Signature="
            "aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404");
}

TEST(SigV4, PresignedUploadSignsTheContentType) {
  SigningRequest request;
  request.method = "PUT";
  request.path = "/b/x.png";
  request.headers = {{"Host", "h"}, {"Content-Type", "image/png"}};
  const std::string query = PresignQuery(ExampleS3Credentials(), request, "20130524T000000Z", 60);
  EXPECT_NE(query.find("X-Amz-SignedHeaders=content-type%3Bhost&"), std::string::npos) << query;
  request.headers[1].second = "image/jpeg";
  EXPECT_NE(PresignQuery(ExampleS3Credentials(), request, "20130524T000000Z", 60), query);
}

TEST(SigV4, UriEncode) {
  EXPECT_EQ(UriEncode("a b/c+d~e_f.g-h", true), "a%20b/c%2Bd~e_f.g-h");
  EXPECT_EQ(UriEncode("a b/c", false), "a%20b%2Fc");
  EXPECT_EQ(UriEncode("\xE1\x88\xB4%", true), "%E1%88%B4%25");
  // Keys are encoded once: an already encoded-looking key keeps its '%' as data.
  EXPECT_EQ(UriEncode("/a%20b", true), "/a%2520b");
}

TEST(SigV4, AmzDate) {
  EXPECT_EQ(AmzDate(0), "19700101T000000Z");
  EXPECT_EQ(AmzDate(1440938160), "20150830T123600Z");
}

}  // namespace
}  // namespace cairn::storage::s3
