#include "transform/vips_library.hpp"

#include <dlfcn.h>

#include <mutex>
#include <string>

namespace cairn::transform {
namespace {

// libvips 8's ABI (Debian's libvips42).
constexpr const char* kVipsSoname = "libvips.so.42";

}  // namespace

Result<const VipsLibrary*> LoadVipsLibrary() {
  static std::once_flag once;
  static VipsLibrary library;
  static std::string failure;
  std::call_once(once, [] {
    void* handle = ::dlopen(kVipsSoname, RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      const char* why = ::dlerror();
      failure = std::string("cannot load ") + kVipsSoname + ": " + (why ? why : "unknown error");
      return;
    }
    // Never closed: libvips keeps threads and type registrations for the process's lifetime.
    // GLib's functions resolve through libvips' own dependencies.
#define CAIRN_VIPS_RESOLVE(name)                                                   \
  library.name = reinterpret_cast<decltype(library.name)>(::dlsym(handle, #name)); \
  if (library.name == nullptr && failure.empty()) failure = "libvips lacks " #name;
    CAIRN_VIPS_FUNCTIONS(CAIRN_VIPS_RESOLVE)
#undef CAIRN_VIPS_RESOLVE
  });
  if (!failure.empty()) return Error::Internal("image transforms: " + failure);
  return &library;
}

}  // namespace cairn::transform
