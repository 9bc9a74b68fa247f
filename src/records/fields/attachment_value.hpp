// The attachment value shared by attachment and multiple-attachments. A record stores
// `{path, filename, size, mimeType}` as JSON; with file storage configured the file must exist
// in the field's bucket and its size and type are storage's (D45); without it the client's
// object is stored as given. Internal to records/fields/.
#pragma once

#include <string>
#include <string_view>

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include "common/result.hpp"
#include "config/model.hpp"
#include "records/attachment_files.hpp"

namespace cairn::records::fields {

// The normalized attachment object for `input`: an object with a `path` (a file path as
// storage::PathProblem accepts it, D44) and optional filename, size and mimeType, or a bare path
// string. The members the server adds on reads (signedUrl, signedUrlExpiresAt, url)
// are dropped so that a read value can be written back; other members are refused.
Result<boost::json::object> ParseAttachment(const boost::json::value& input);

// ParseAttachment, then the file storage check (D45): the file at the path must exist in the
// field's bucket, its real type must be one of the field's allowedFileTypes (exact, `type/*`,
// `*/*`) and its real size at most maxFileSize. The object stored is
// `{path, filename, size, mimeType}`: the client's filename (else the path's last segment), and
// the size and type storage reports (the client's are ignored). A storage failure is returned
// as is (not a validation error).
Result<boost::json::object> ParseStoredAttachment(const config::Field& field,
                                                  const boost::json::value& input,
                                                  const AttachmentFiles& files);

// Whether `mime_type` (parameters such as `; charset=utf-8` ignored) matches `pattern`: the same
// type, `type/*` or `*/*`, case-insensitively.
bool MimeTypeMatches(std::string_view pattern, std::string_view mime_type);

// The JSON Schema of one attachment object.
boost::json::object AttachmentObjectSchema();

}  // namespace cairn::records::fields
