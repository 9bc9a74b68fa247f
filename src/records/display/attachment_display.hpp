// Attachments in their display form (D39): the stored object with what a person reads added,
// `displayName` (the file name, else the last segment of its path) and, when the size is known,
// `displaySize` (`1.2 MB`). Signed URLs join the object when the storage layer serves them.
#pragma once

#include <string>
#include <string_view>

namespace cairn::records::display {

// `stored` is the column's JSON: one attachment object, a bare path string, or an array of
// attachment objects (multiple-attachments).
void AppendAttachments(std::string_view stored, std::string& out);

}  // namespace cairn::records::display
