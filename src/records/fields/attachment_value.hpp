// The attachment value shared by attachment and multiple-attachments. For now a record stores
// `{path, filename?, size?, mimeType?}` as JSON; the storage work checks the file itself (D45).
// Internal to records/fields/.
#pragma once

#include <string>
#include <string_view>

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include "common/result.hpp"

namespace cairn::records::fields {

// The normalized attachment object for `input`: an object with a `path` (relative, no `.` or
// `..` segments, no leading `/`, no backslash) and optional filename, size and mimeType, or a
// bare path string. The members the server adds on reads (signedUrl, signedUrlExpiresAt, url)
// are dropped so that a read value can be written back; other members are refused.
Result<boost::json::object> ParseAttachment(const boost::json::value& input);

// The JSON Schema of one attachment object.
boost::json::object AttachmentObjectSchema();

}  // namespace cairn::records::fields
