// Media types of stored files (D47): detected from the bytes with libmagic, never taken from the
// name or the client's header; matched against the patterns of a bucket's allowedMimeTypes and
// an attachment field's allowedFileTypes; and the rules for how a browser may show them.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace cairn::storage {

// The media type of a file that starts with `head` (its first kSniffBytes, or all of it), as
// libmagic sees it: `image/png`, `text/plain`, `application/octet-stream` when unknown. Safe on
// any thread (one libmagic handle per thread).
std::string DetectMediaType(std::string_view head);

// Whether bytes detected as `detected` may be stored under a token that names `declared`: the
// same type, or a type the bytes cannot tell apart (a text file declared as text/markdown, an
// unknown binary declared as application/x-custom). Parameters (`; charset=…`) and case are
// ignored. What is stored and served is always `detected`.
bool DeclaredTypeFits(std::string_view declared, std::string_view detected);

// Whether two media types are the same, ignoring case and parameters (`; charset=…`).
bool SameMediaType(std::string_view a, std::string_view b);

// Whether `type` matches one of `patterns` (`image/png`, `image/*`, `*/*`); an empty list
// allows every type.
bool MatchesAnyPattern(std::string_view type, std::span<const std::string> patterns);

// Whether a browser would run the type (HTML, SVG, XML, JavaScript): such files are sent with
// `Content-Disposition: attachment`, everything else `inline` (D47).
bool IsActiveContent(std::string_view type);

}  // namespace cairn::storage
