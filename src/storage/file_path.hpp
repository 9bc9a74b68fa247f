// File paths inside a bucket (D44). A path comes from a URL (already percent-decoded once by the
// HTTP layer) or a JSON body; CheckPath accepts it only when it cannot name anything outside its
// bucket on any backend: relative, `/` between segments, no `.`/`..` segment written plainly or
// percent-encoded once more, no backslash, NUL, control character or malformed UTF-8 (overlong
// forms included), at most kMaxPathBytes.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "common/result.hpp"

namespace cairn::storage {

// What is wrong with `path`, or nullopt when it is a valid file path.
std::optional<std::string> PathProblem(std::string_view path);

// Ok, or a 400 whose `errors` name `field` (`path`, `files[3].path`).
Status CheckPath(std::string_view path, std::string_view field = "path");

// Ok, or a 400 naming `field`: like CheckPath, but for a list prefix, which may be empty and may
// end with `/`.
Status CheckPrefix(std::string_view prefix, std::string_view field = "prefix");

}  // namespace cairn::storage
