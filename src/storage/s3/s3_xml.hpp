// The few S3 XML answers the s3 backend reads: ListObjectsV2 (ListBucketResult) and the error
// body (<Error><Code>…</Code><Message>…</Message></Error>). A minimal reader: S3 escapes every
// '<' and '&' in text, never uses CDATA or comments there, and the elements read here have no
// attributes, so finding "<Name>" … "</Name>" and decoding the XML entities is exact.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"

namespace cairn::storage::s3 {

// Text with the five named entities and numeric references (&#NN; &#xHH;) decoded; nullopt for
// an unknown or malformed reference.
std::optional<std::string> DecodeXmlText(std::string_view text);

struct ListedObject {
  std::string key;
  std::uint64_t size = 0;
  std::string etag;  // as S3 gives it (quoted)
  std::int64_t last_modified_ms = 0;
};

struct ListResult {
  std::vector<ListedObject> objects;
  bool truncated = false;
  std::string next_continuation_token;
};

// Error::Unavailable when the body is not a ListBucketResult S3 would send.
Result<ListResult> ParseListObjectsV2(std::string_view xml);

struct S3ErrorBody {
  std::string code;  // "NoSuchKey", "AccessDenied", …; empty when the body has none
  std::string message;
};
S3ErrorBody ParseErrorBody(std::string_view xml);

}  // namespace cairn::storage::s3
