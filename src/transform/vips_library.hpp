// libvips, loaded with the first transform rather than linked: linking it maps libvips and the
// libraries its formats need (librsvg, OpenEXR, HDF5, GnuTLS, …) at startup, and relocating them
// costs an idle server ~8 MB of memory it may never use. The binary still needs libvips
// installed; it is dlopen'ed by its soname, and every function cairn calls is resolved here, by
// the exact type vips.h declares (a missing one fails the load, not a call).
#pragma once

#include <vips/vips.h>

#include "common/result.hpp"

namespace cairn::transform {

// Every libvips (and GLib) function image.cpp calls.
#define CAIRN_VIPS_FUNCTIONS(X)      \
  X(vips_init)                       \
  X(vips_cache_set_max)              \
  X(vips_concurrency_set)            \
  X(vips_block_untrusted_set)        \
  X(vips_operation_block_set)        \
  X(vips_error_buffer)               \
  X(vips_error_clear)                \
  X(vips_source_custom_new)          \
  X(vips_source_new_from_memory)     \
  X(vips_foreign_find_load_buffer)   \
  X(vips_foreign_find_load_source)   \
  X(vips_image_new_from_buffer)      \
  X(vips_image_new_from_source)      \
  X(vips_thumbnail_source)           \
  X(vips_image_get_width)            \
  X(vips_image_get_height)           \
  X(vips_image_get_bands)            \
  X(vips_image_get_format)           \
  X(vips_image_get_orientation)      \
  X(vips_image_get_orientation_swap) \
  X(vips_image_get_typeof)           \
  X(vips_image_get_fields)           \
  X(vips_image_guess_interpretation) \
  X(vips_image_hasalpha)             \
  X(vips_image_remove)               \
  X(vips_image_set_int)              \
  X(vips_image_set_string)           \
  X(vips_image_set_kill)             \
  X(vips_image_set_progress)         \
  X(vips_colourspace)                \
  X(vips_cast_uchar)                 \
  X(vips_copy)                       \
  X(vips_addalpha)                   \
  X(vips_embed)                      \
  X(vips_extract_area)               \
  X(vips_flatten)                    \
  X(vips_array_double_new)           \
  X(vips_array_double_newv)          \
  X(vips_area_unref)                 \
  X(vips_jpegsave_buffer)            \
  X(vips_webpsave_buffer)            \
  X(vips_heifsave_buffer)            \
  X(vips_pngsave_buffer)             \
  X(vips_gifsave_buffer)             \
  X(vips_tiffsave_buffer)            \
  X(vips_gaussnoise)                 \
  X(vips_bandjoin)                   \
  X(vips_bandjoin_const1)            \
  X(vips_xyz)                        \
  X(vips_linear)                     \
  X(g_free)                          \
  X(g_strfreev)                      \
  X(g_object_unref)                  \
  X(g_signal_connect_data)

struct VipsLibrary {
#define CAIRN_VIPS_MEMBER(name) decltype(&::name) name = nullptr;
  CAIRN_VIPS_FUNCTIONS(CAIRN_VIPS_MEMBER)
#undef CAIRN_VIPS_MEMBER
};

// The library, loaded and resolved on the first call (thread-safe); later calls return the
// first answer. libvips itself is not started here (image.cpp does that).
Result<const VipsLibrary*> LoadVipsLibrary();

}  // namespace cairn::transform
