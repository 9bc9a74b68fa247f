// What the records module asks of file storage for attachment fields (D45): whether a file
// exists in a bucket (with its real size and type), and the links a read embeds. Implemented by
// the storage module and handed to RecordService by the composition root; records does not
// depend on storage.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

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
  // Appends the members a read adds to the attachment object of `path`, each after a comma:
  // `,"signedUrl":"…","signedUrlExpiresAt":"…"` for a private file (kAttachmentUrlSeconds), or
  // `,"url":"…"` for a public one. Pure CPU (HMAC or a presigned URL); no I/O.
  virtual void AppendLinks(std::string_view bucket, std::string_view path,
                           std::string& out) const = 0;
};

}  // namespace cairn::records
