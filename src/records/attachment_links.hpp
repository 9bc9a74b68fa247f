// Attachment values as a read answers them (D45): each attachment object of a stored value with
// the links file storage adds at read time (`signedUrl` and `signedUrlExpiresAt`, or `url`) after
// its members. Shared by the attachment codecs, their display form and record history, whose
// stored before/after values never hold links.
#pragma once

#include <string>
#include <string_view>

#include <boost/json/value.hpp>

#include "records/attachment_files.hpp"

namespace cairn::records {

// `stored` is an attachment field's value as its column holds it: one attachment object, a bare
// path (a value written before objects), an array of them (multiple-attachments) or null. An
// object without a string path gets no links.
void AppendAttachmentsWithLinks(const boost::json::value& stored, std::string_view bucket,
                                const AttachmentFiles& files, std::string& out);
// The same for the column's text (JSON, or a bare path).
void AppendAttachmentsWithLinks(std::string_view stored, std::string_view bucket,
                                const AttachmentFiles& files, std::string& out);

}  // namespace cairn::records
