// Attachments in their display form (D39): the stored object with what a person reads added,
// `displayName` (the file name, else the last segment of its path) and, when the size is known,
// `displaySize` (`1.2 MB`), and with file storage configured the file's links (D45).
#pragma once

#include <string>
#include <string_view>

#include <boost/json/object.hpp>

#include "records/attachment_files.hpp"

namespace cairn::records::display {

// `stored` is the column's JSON: one attachment object, a bare path string, or an array of
// attachment objects (multiple-attachments). `files` (null: no file storage) adds each file's
// links from `bucket`.
void AppendAttachments(std::string_view stored, std::string_view bucket,
                       const AttachmentFiles* files, std::string& out);

// Adds the members AppendAttachments adds (displayName, required; displaySize) to the JSON
// Schema of an attachment object.
void AddDisplayMembers(boost::json::object& schema);

}  // namespace cairn::records::display
