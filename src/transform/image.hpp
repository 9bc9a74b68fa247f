// The one place cairn calls libvips (D46): only the loaders of JPEG, PNG, WebP, AVIF (HEIF), GIF
// and TIFF and the matching savers are enabled, every other load and save class is blocked, as
// is everything libvips marks untrusted. A transform shrinks on load (a large JPEG is never
// decoded at full size), applies the EXIF orientation, converts to sRGB, strips every piece of
// metadata (EXIF, GPS, XMP, IPTC, ICC) from the output, and stops at a time limit.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "common/result.hpp"
#include "transform/params.hpp"

namespace cairn::transform {

enum class SourceType { kJpeg, kPng, kWebp, kAvif, kGif, kTiff, kSvg, kNotImage };
// What a file is, from the media type libmagic detected in its bytes.
SourceType SourceTypeOf(std::string_view media_type);

// What a transform writes.
enum class Output { kAvif, kWebp, kJpeg, kPng, kGif, kTiff };
std::string_view MediaTypeOf(Output output);
std::string_view ExtensionOf(Output output);  // "webp"; also names cache files
std::optional<Output> OutputOfExtension(std::string_view extension);
// The output for a resolved format (never a negotiation left open) and a raster source:
// kOrigin keeps the source's own format.
Output OutputFor(Format format, SourceType source);

struct ImageLimits {
  std::uint64_t max_pixels = 100'000'000;  // STORAGE_TRANSFORM_MAX_PIXELS
  std::chrono::milliseconds time_limit{30'000};
};

struct EncodedImage {
  std::string bytes;
  Output output = Output::kJpeg;
  int width = 0;
  int height = 0;
};

// Starts libvips once per process with the loaders above alone; later calls return the first
// answer. TransformImage, InspectImage and SampleImage call it first, so libvips (and the
// libraries of its format modules) load with the first transform, not at startup.
Status InitImageLibrary();

// A source that libvips reads as it decodes, so a transform never holds the whole file: reads in
// order, and the seeks some formats make (a header read, then a rewind to decode).
class ImageInput {
 public:
  virtual ~ImageInput() = default;
  // Up to `length` bytes into `buffer`: the count, 0 at the end, -1 on an error.
  virtual std::int64_t Read(void* buffer, std::int64_t length) = 0;
  // To `offset` from SEEK_SET, SEEK_CUR or SEEK_END: the new position, or -1.
  virtual std::int64_t Seek(std::int64_t offset, int whence) = 0;
};

// `input` (raster, of type `type` as its bytes were detected) transformed by `params` into
// `output`. Whatever the bytes, a failure is Error::Validation naming `file` (a 400): a header
// above `max_pixels`, a loader that disagrees with the detected type (a polyglot), a truncated or
// corrupt file, a transform that ran past the time limit. (An input whose own reads fail also
// ends in that 400; the caller that knows why answers with its reason instead.)
Result<EncodedImage> TransformImage(ImageInput& input, SourceType type, const Params& params,
                                    Output output, const ImageLimits& limits);
// The same from bytes in memory (tests, and the benchmark's in-process baseline).
Result<EncodedImage> TransformImage(std::string_view bytes, SourceType type, const Params& params,
                                    Output output, const ImageLimits& limits);

// What libvips reads in `bytes` (tests and the benchmark read outputs back with it).
struct ImageFacts {
  std::string loader;  // "VipsForeignLoadWebpBuffer"
  int width = 0;
  int height = 0;
  int bands = 0;
  bool has_exif = false;
  bool has_icc = false;
  bool has_gps = false;  // any EXIF GPS field
  int orientation = 1;   // the EXIF orientation (1: upright)
};
Result<ImageFacts> InspectImage(std::string_view bytes);

// A synthetic source for tests and the benchmark: a colour gradient (or, with `noise`, random
// pixels that do not compress) of width × height saved as `output` with its metadata; a JPEG
// with `orientation` other than 1 carries that EXIF orientation.
Result<std::string> SampleImage(int width, int height, Output output, bool noise = false,
                                int orientation = 1);

}  // namespace cairn::transform
