#include "openapi/scalar_bundle.hpp"

extern "C" {
extern const char cairn_scalar_bundle_start[];
extern const char cairn_scalar_bundle_end[];
extern const char cairn_scalar_bundle_gzip_start[];
extern const char cairn_scalar_bundle_gzip_end[];
}

namespace cairn::openapi {

std::string_view ScalarBundle() {
  return {cairn_scalar_bundle_start,
          static_cast<std::size_t>(cairn_scalar_bundle_end - cairn_scalar_bundle_start)};
}

std::string_view ScalarBundleGzip() {
  return {cairn_scalar_bundle_gzip_start,
          static_cast<std::size_t>(cairn_scalar_bundle_gzip_end - cairn_scalar_bundle_gzip_start)};
}

std::string_view ScalarBundleName() {
  return "standalone." CAIRN_SCALAR_SHA256_PREFIX ".js";
}

}  // namespace cairn::openapi
