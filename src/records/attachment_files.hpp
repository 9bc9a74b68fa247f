// What the records module asks of file storage for attachment fields (D45): whether a file
// exists in a bucket (with its real size and type), and the links a read embeds. Implemented by
// the storage module and handed to RecordService by the composition root; records does not
// depend on storage.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <boost/json/object.hpp>

#include "common/result.hpp"

namespace cairn::records {

struct StoredFile {
  std::uint64_t size = 0;
  std::string mime_type;  // detected from the bytes at upload
};

class AttachmentFiles {
 public:
  virtual ~AttachmentFiles() = default;
  // The file at `path` in `bucket`, or nullopt when there is none. Blocking (disk, database or
  // network); called inside no transaction.
  virtual Result<std::optional<StoredFile>> Find(std::string_view bucket,
                                                 std::string_view path) const = 0;
  // An attachment value's image transform (`{"width": 400, "format": "webp"}`, the sign body's
  // `transform`) for a file of type `mime_type`, checked and written in the one normalized form
  // the storage module signs (opaque here). A Validation error whose FieldErrors name the member
  // (`width`) when it is not a transform, or (`transform` itself, field "") when the file is no
  // image or transforms are not served. The default serves no transforms.
  virtual Result<std::string> NormalizeTransform(const boost::json::object& transform,
                                                 std::string_view mime_type) const;
  // Appends the members a read adds to the attachment object of `path`, each after a comma:
  // `,"signedUrl":"…","signedUrlExpiresAt":"…"` for a private file (kAttachmentUrlSeconds), or
  // `,"url":"…"` for a public one. Pure CPU (HMAC or a presigned URL); no I/O. `transform`
  // (NormalizeTransform's text, or empty) is signed into the URL: it serves that transform.
  virtual void AppendLinks(std::string_view bucket, std::string_view path,
                           std::string_view transform, std::string& out) const = 0;
};

inline Result<std::string> AttachmentFiles::NormalizeTransform(
    const boost::json::object& /*transform*/, std::string_view /*mime_type*/) const {
  return Error::Validation("Invalid transform", {{"", "image transforms are not served"}});
}

}  // namespace cairn::records
