// The Scalar API reference script (npm @scalar/api-reference, the version in
// third_party/scalar/VERSION), embedded at build time.
#pragma once

#include <string_view>

namespace cairn::openapi {

std::string_view ScalarBundle();
// The same script compressed (gzip -9, at build time).
std::string_view ScalarBundleGzip();
// "standalone.<first 16 hex digits of its SHA-256>.js": a new bundle gets a new name, so the
// old one may be cached for a year.
std::string_view ScalarBundleName();

}  // namespace cairn::openapi
