#include "transform/image.hpp"

#include "transform/vips_library.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <mutex>

namespace cairn::transform {
namespace {

// Set once by InitImageLibrary, which every entry point calls first.
const VipsLibrary* lib = nullptr;

// The loader class names of the source types (every Buffer/Source/File variant is a subclass),
// and the savers of the outputs.
constexpr const char* kLoaders[] = {"VipsForeignLoadJpeg",  "VipsForeignLoadPng",
                                    "VipsForeignLoadWebp",  "VipsForeignLoadHeif",
                                    "VipsForeignLoadNsgif", "VipsForeignLoadTiff"};
constexpr const char* kSavers[] = {"VipsForeignSaveJpeg", "VipsForeignSavePng",
                                   "VipsForeignSaveWebp", "VipsForeignSaveHeif",
                                   "VipsForeignSaveCgif", "VipsForeignSaveTiff"};
// An "unbounded" side for a one-sided thumbnail (libvips' own VIPS_MAX_COORD).
constexpr int kUnbounded = 10'000'000;
// AVIF encodes at this effort (0 fastest … 9 smallest): aom's default of 4 takes seconds at
// 2500 px on one core.
constexpr int kAvifEffort = 2;

struct Unref {
  void operator()(VipsImage* image) const {
    if (image != nullptr) lib->g_object_unref(image);
  }
};
using Image = std::unique_ptr<VipsImage, Unref>;

Error Refused(std::string reason) {
  lib->vips_error_clear();
  return Error::Validation("The file cannot be transformed", {{"file", std::move(reason)}});
}

const char* ExpectedLoader(SourceType type) {
  switch (type) {
    case SourceType::kJpeg:
      return "VipsForeignLoadJpeg";
    case SourceType::kPng:
      return "VipsForeignLoadPng";
    case SourceType::kWebp:
      return "VipsForeignLoadWebp";
    case SourceType::kAvif:
      return "VipsForeignLoadHeif";
    case SourceType::kGif:
      return "VipsForeignLoadNsgif";
    case SourceType::kTiff:
      return "VipsForeignLoadTiff";
    case SourceType::kSvg:
    case SourceType::kNotImage:
      break;
  }
  return nullptr;
}

struct Deadline {
  std::chrono::steady_clock::time_point at;
  bool passed = false;
};

// GLib's g_signal_connect (a macro over g_signal_connect_data).
void Connect(void* instance, const char* signal, GCallback handler, void* data) {
  lib->g_signal_connect_data(instance, signal, handler, data, nullptr,
                             static_cast<GConnectFlags>(0));
}

// Runs on libvips' worker threads as the pipeline computes; past the deadline it kills the
// image, so the save fails instead of running on.
void OnEval(VipsImage* image, VipsProgress* /*progress*/, void* user) {
  auto* deadline = static_cast<Deadline*>(user);
  if (std::chrono::steady_clock::now() > deadline->at) {
    deadline->passed = true;
    lib->vips_image_set_kill(image, TRUE);
  }
}

Result<Image> ToSrgb(Image image) {
  const VipsInterpretation interpretation = lib->vips_image_guess_interpretation(image.get());
  if (interpretation == VIPS_INTERPRETATION_sRGB &&
      lib->vips_image_get_format(image.get()) == VIPS_FORMAT_UCHAR) {
    return image;
  }
  VipsImage* out = nullptr;
  if (lib->vips_colourspace(image.get(), &out, VIPS_INTERPRETATION_sRGB, nullptr) != 0) {
    return Refused("its colours cannot be converted to sRGB");
  }
  Image converted(out);
  if (lib->vips_image_get_format(converted.get()) != VIPS_FORMAT_UCHAR) {
    if (lib->vips_cast_uchar(converted.get(), &out, nullptr) != 0) {
      return Refused("its pixels cannot be converted to 8 bits");
    }
    converted.reset(out);
  }
  return converted;
}

// A copy of `image` without any metadata item (EXIF with its GPS block, XMP, IPTC, ICC, the
// orientation, comments): the savers' `strip` misses some in libvips 8.14 (webpsave keeps EXIF),
// so nothing is left for them to write.
Result<Image> WithoutMetadata(Image image) {
  VipsImage* out = nullptr;
  if (lib->vips_copy(image.get(), &out, nullptr) != 0) return Refused("cannot be copied");
  Image copy(out);
  gchar** names = lib->vips_image_get_fields(copy.get());
  for (gchar** name = names; name != nullptr && *name != nullptr; ++name) {
    lib->vips_image_remove(copy.get(), *name);
  }
  lib->g_strfreev(names);
  return copy;
}

bool KeepsAlpha(Output output) {
  return output != Output::kJpeg;
}

// Pads `image` to width × height, centred: transparent where the output keeps alpha, white
// otherwise (contain's letterbox).
Result<Image> Letterbox(Image image, int width, int height, Output output) {
  if (lib->vips_image_get_width(image.get()) == width &&
      lib->vips_image_get_height(image.get()) == height) {
    return image;
  }
  VipsImage* out = nullptr;
  const bool alpha = KeepsAlpha(output);
  if (alpha && !lib->vips_image_hasalpha(image.get())) {
    if (lib->vips_addalpha(image.get(), &out, nullptr) != 0)
      return Refused("cannot add transparency");
    image.reset(out);
  }
  const int bands = lib->vips_image_get_bands(image.get());
  std::vector<double> fill(static_cast<std::size_t>(bands), alpha ? 0.0 : 255.0);
  VipsArrayDouble* background = lib->vips_array_double_new(fill.data(), bands);
  const int left = (width - lib->vips_image_get_width(image.get())) / 2;
  const int top = (height - lib->vips_image_get_height(image.get())) / 2;
  const int failed = lib->vips_embed(image.get(), &out, left, top, width, height, "extend",
                                     VIPS_EXTEND_BACKGROUND, "background", background, nullptr);
  lib->vips_area_unref(VIPS_AREA(background));
  if (failed != 0) return Refused("cannot be padded");
  return Image(out);
}

Result<std::string> Save(VipsImage* image, Output output, int quality) {
  void* buffer = nullptr;
  std::size_t length = 0;
  int failed = 0;
  switch (output) {
    case Output::kJpeg:
      failed = lib->vips_jpegsave_buffer(image, &buffer, &length, "Q", quality, "strip", TRUE,
                                         "optimize_coding", TRUE, nullptr);
      break;
    case Output::kWebp:
      failed =
          lib->vips_webpsave_buffer(image, &buffer, &length, "Q", quality, "strip", TRUE, nullptr);
      break;
    case Output::kAvif:
      failed = lib->vips_heifsave_buffer(image, &buffer, &length, "Q", quality, "compression",
                                         VIPS_FOREIGN_HEIF_COMPRESSION_AV1, "effort", kAvifEffort,
                                         "strip", TRUE, nullptr);
      break;
    case Output::kPng:
      failed = lib->vips_pngsave_buffer(image, &buffer, &length, "strip", TRUE, "compression", 6,
                                        nullptr);
      break;
    case Output::kGif:
      failed = lib->vips_gifsave_buffer(image, &buffer, &length, "strip", TRUE, nullptr);
      break;
    case Output::kTiff:
      failed = lib->vips_tiffsave_buffer(image, &buffer, &length, "strip", TRUE, "compression",
                                         VIPS_FOREIGN_TIFF_COMPRESSION_DEFLATE, nullptr);
      break;
  }
  if (failed != 0) {
    lib->g_free(buffer);
    return Refused("it could not be decoded whole");
  }
  std::string bytes(static_cast<const char*>(buffer), length);
  lib->g_free(buffer);
  return bytes;
}

// The box a transform aims at: both sides given, or the missing one from the aspect ratio of
// the (upright) source, or the source's own size when neither is given.
struct Box {
  double width = 0;
  double height = 0;
};

Box BoxOf(const Params& params, int source_width, int source_height) {
  const double w = source_width;
  const double h = source_height;
  if (params.width && params.height) return {double(*params.width), double(*params.height)};
  if (params.width)
    return {double(*params.width), std::max(1.0, std::round(h * *params.width / w))};
  if (params.height) {
    return {std::max(1.0, std::round(w * *params.height / h)), double(*params.height)};
  }
  return {w, h};
}

}  // namespace

SourceType SourceTypeOf(std::string_view media_type) {
  if (media_type == "image/jpeg") return SourceType::kJpeg;
  if (media_type == "image/png") return SourceType::kPng;
  if (media_type == "image/webp") return SourceType::kWebp;
  if (media_type == "image/avif") return SourceType::kAvif;
  if (media_type == "image/gif") return SourceType::kGif;
  if (media_type == "image/tiff") return SourceType::kTiff;
  if (media_type == "image/svg+xml") return SourceType::kSvg;
  return SourceType::kNotImage;
}

std::string_view MediaTypeOf(Output output) {
  switch (output) {
    case Output::kAvif:
      return "image/avif";
    case Output::kWebp:
      return "image/webp";
    case Output::kJpeg:
      return "image/jpeg";
    case Output::kPng:
      return "image/png";
    case Output::kGif:
      return "image/gif";
    case Output::kTiff:
      return "image/tiff";
  }
  return "application/octet-stream";
}

std::string_view ExtensionOf(Output output) {
  switch (output) {
    case Output::kAvif:
      return "avif";
    case Output::kWebp:
      return "webp";
    case Output::kJpeg:
      return "jpeg";
    case Output::kPng:
      return "png";
    case Output::kGif:
      return "gif";
    case Output::kTiff:
      return "tiff";
  }
  return "bin";
}

std::optional<Output> OutputOfExtension(std::string_view extension) {
  for (Output output :
       {Output::kAvif, Output::kWebp, Output::kJpeg, Output::kPng, Output::kGif, Output::kTiff}) {
    if (ExtensionOf(output) == extension) return output;
  }
  return std::nullopt;
}

Output OutputFor(Format format, SourceType source) {
  switch (format) {
    case Format::kAvif:
      return Output::kAvif;
    case Format::kWebp:
      return Output::kWebp;
    case Format::kJpeg:
      return Output::kJpeg;
    case Format::kPng:
      return Output::kPng;
    case Format::kOrigin:
      break;
  }
  switch (source) {
    case SourceType::kAvif:
      return Output::kAvif;
    case SourceType::kWebp:
      return Output::kWebp;
    case SourceType::kPng:
      return Output::kPng;
    case SourceType::kGif:
      return Output::kGif;
    case SourceType::kTiff:
      return Output::kTiff;
    case SourceType::kJpeg:
    case SourceType::kSvg:
    case SourceType::kNotImage:
      break;
  }
  return Output::kJpeg;
}

Status InitImageLibrary() {
  static std::once_flag once;
  static bool started = false;
  static std::optional<Error> failure;
  std::call_once(once, [] {
    auto loaded = LoadVipsLibrary();
    if (!loaded) {
      failure = loaded.error();
      return;
    }
    lib = *loaded;
    if (lib->vips_init("cairn") != 0) return;
    // Nothing cached between requests (memory stays bounded by the transforms running), and
    // one thread per transform: the transform pool runs several side by side.
    lib->vips_cache_set_max(0);
    lib->vips_concurrency_set(1);
    lib->vips_block_untrusted_set(TRUE);
    lib->vips_operation_block_set("VipsForeignLoad", TRUE);
    lib->vips_operation_block_set("VipsForeignSave", TRUE);
    for (const char* name : kLoaders) lib->vips_operation_block_set(name, FALSE);
    for (const char* name : kSavers) lib->vips_operation_block_set(name, FALSE);
    started = true;
  });
  if (failure) return *failure;
  if (!started) return Error::Internal("libvips failed to start");
  return {};
}

namespace {

struct UnrefSource {
  void operator()(VipsSource* source) const {
    if (source != nullptr) lib->g_object_unref(source);
  }
};
using Source = std::unique_ptr<VipsSource, UnrefSource>;

gint64 OnSourceRead(VipsSourceCustom* /*custom*/, void* buffer, gint64 length, void* user) {
  return static_cast<ImageInput*>(user)->Read(buffer, length);
}

gint64 OnSourceSeek(VipsSourceCustom* /*custom*/, gint64 offset, int whence, void* user) {
  return static_cast<ImageInput*>(user)->Seek(offset, whence);
}

// The transform proper, from a source libvips reads (and rewinds) as it needs.
Result<EncodedImage> TransformSource(VipsSource* source, SourceType type, const Params& params,
                                     Output output, const ImageLimits& limits) {
  const char* expected = ExpectedLoader(type);
  if (expected == nullptr) return Refused("is not a raster image");
  // libvips picks its own loader from the bytes; it must be the one of the detected type, so a
  // file that is two things at once is refused rather than read as the other.
  const char* loader = lib->vips_foreign_find_load_source(source);
  if (loader == nullptr || !std::string_view(loader).starts_with(expected)) {
    return Refused("its bytes are not a readable " + std::string(expected + 15) + " image");
  }
  // The header alone (nothing is decoded yet): refuse pixel bombs before any decoding.
  Image header(lib->vips_image_new_from_source(source, "", "access", VIPS_ACCESS_SEQUENTIAL,
                                               "fail_on", VIPS_FAIL_ON_ERROR, nullptr));
  if (!header) return Refused("its header cannot be read");
  int width = lib->vips_image_get_width(header.get());
  int height = lib->vips_image_get_height(header.get());
  if (width <= 0 || height <= 0 ||
      static_cast<std::uint64_t>(width) * static_cast<std::uint64_t>(height) > limits.max_pixels) {
    return Refused("has more than " + std::to_string(limits.max_pixels) + " pixels");
  }
  if (lib->vips_image_get_orientation_swap(header.get())) std::swap(width, height);
  header.reset();

  const Fit fit = params.fit.value_or(Fit::kContain);
  const Box box = BoxOf(params, width, height);
  if (box.width > kUnbounded || box.height > kUnbounded ||
      box.width * box.height > static_cast<double>(limits.max_pixels)) {
    return Refused("the transformed image would have more than " +
                   std::to_string(limits.max_pixels) + " pixels");
  }
  const int box_w = static_cast<int>(box.width);
  const int box_h = static_cast<int>(box.height);

  // Resize (shrinking on load) to what the fit needs; `crop_to` is the window cut afterwards.
  int thumb_w = box_w;
  int thumb_h = box_h;
  VipsSize size = VIPS_SIZE_BOTH;
  VipsInteresting interesting = VIPS_INTERESTING_NONE;
  bool cut = false;
  Crop crop = params.crop.value_or(Crop{});
  switch (fit) {
    case Fit::kContain:
      break;
    case Fit::kInside:
      size = VIPS_SIZE_DOWN;
      break;
    case Fit::kFill:
      size = VIPS_SIZE_FORCE;
      break;
    case Fit::kCover:
      if (crop.kind == CropKind::kCenter) interesting = VIPS_INTERESTING_CENTRE;
      if (crop.kind == CropKind::kEntropy) interesting = VIPS_INTERESTING_ENTROPY;
      if (crop.kind == CropKind::kAttention) interesting = VIPS_INTERESTING_ATTENTION;
      if (crop.kind != CropKind::kFocal) break;
      [[fallthrough]];
    case Fit::kOutside: {
      if (fit == Fit::kOutside) crop = Crop{};  // crop applies with cover alone
      double scale = std::max(box.width / width, box.height / height);
      if (fit == Fit::kOutside) scale = std::max(scale, 1.0);
      const double scaled_w = std::max(box.width, std::round(width * scale));
      const double scaled_h = std::max(box.height, std::round(height * scale));
      if (scaled_w * scaled_h > static_cast<double>(limits.max_pixels)) {
        return Refused("the transformed image would have more than " +
                       std::to_string(limits.max_pixels) + " pixels");
      }
      thumb_w = static_cast<int>(scaled_w);
      thumb_h = static_cast<int>(scaled_h);
      size = VIPS_SIZE_FORCE;
      cut = true;
      break;
    }
  }

  VipsImage* out = nullptr;
  if (lib->vips_thumbnail_source(source, &out, thumb_w, "height", thumb_h, "size", size, "crop",
                                 interesting,
                                 // libvips 8.14 hands thumbnail's own fail_on to no loader; the
                                 // option string reaches it (a truncated file then fails the save).
                                 "option_string", "fail_on=error", nullptr) != 0) {
    return Refused("it cannot be decoded");
  }
  Image image(out);
  if (cut) {
    const int w = lib->vips_image_get_width(image.get());
    const int h = lib->vips_image_get_height(image.get());
    const int cut_w = std::min(box_w, w);
    const int cut_h = std::min(box_h, h);
    const int left =
        std::clamp(static_cast<int>(std::lround(w * crop.x / 100.0 - cut_w / 2.0)), 0, w - cut_w);
    const int top =
        std::clamp(static_cast<int>(std::lround(h * crop.y / 100.0 - cut_h / 2.0)), 0, h - cut_h);
    if (lib->vips_extract_area(image.get(), &out, left, top, cut_w, cut_h, nullptr) != 0) {
      return Refused("cannot be cropped");
    }
    image.reset(out);
  }
  CAIRN_ASSIGN_OR_RETURN(image, ToSrgb(std::move(image)));
  if (fit == Fit::kContain) {
    CAIRN_ASSIGN_OR_RETURN(image, Letterbox(std::move(image), box_w, box_h, output));
  }
  if (!KeepsAlpha(output) && lib->vips_image_hasalpha(image.get())) {
    VipsArrayDouble* white = lib->vips_array_double_newv(3, 255.0, 255.0, 255.0);
    const int failed = lib->vips_flatten(image.get(), &out, "background", white, nullptr);
    lib->vips_area_unref(VIPS_AREA(white));
    if (failed != 0) return Refused("cannot be flattened");
    image.reset(out);
  }

  CAIRN_ASSIGN_OR_RETURN(image, WithoutMetadata(std::move(image)));

  Deadline deadline{std::chrono::steady_clock::now() + limits.time_limit};
  lib->vips_image_set_progress(image.get(), TRUE);
  Connect(image.get(), "eval", G_CALLBACK(OnEval), &deadline);
  const int quality = params.quality.value_or(kDefaultQuality);
  auto bytes = Save(image.get(), output, quality);
  if (deadline.passed) {
    return Refused("transforming it took longer than " + std::to_string(limits.time_limit.count()) +
                   " ms");
  }
  if (!bytes) return bytes.error();
  EncodedImage encoded;
  encoded.width = lib->vips_image_get_width(image.get());
  encoded.height = lib->vips_image_get_height(image.get());
  encoded.bytes = std::move(*bytes);
  encoded.output = output;
  return encoded;
}

}  // namespace

Result<EncodedImage> TransformImage(ImageInput& input, SourceType type, const Params& params,
                                    Output output, const ImageLimits& limits) {
  CAIRN_TRY(InitImageLibrary());
  VipsSourceCustom* custom = lib->vips_source_custom_new();
  if (custom == nullptr) return Error::Internal("libvips cannot make a source");
  Connect(custom, "read", G_CALLBACK(OnSourceRead), &input);
  Connect(custom, "seek", G_CALLBACK(OnSourceSeek), &input);
  const Source source(&custom->parent_object);
  return TransformSource(source.get(), type, params, output, limits);
}

Result<EncodedImage> TransformImage(std::string_view bytes, SourceType type, const Params& params,
                                    Output output, const ImageLimits& limits) {
  CAIRN_TRY(InitImageLibrary());
  const Source source(lib->vips_source_new_from_memory(bytes.data(), bytes.size()));
  if (!source) return Refused("cannot be read");
  return TransformSource(source.get(), type, params, output, limits);
}

Result<ImageFacts> InspectImage(std::string_view bytes) {
  CAIRN_TRY(InitImageLibrary());
  const char* loader = lib->vips_foreign_find_load_buffer(bytes.data(), bytes.size());
  if (loader == nullptr) return Refused("no loader reads it");
  Image image(lib->vips_image_new_from_buffer(bytes.data(), bytes.size(), "", nullptr));
  if (!image) return Refused("its header cannot be read");
  ImageFacts facts;
  facts.loader = loader;
  facts.width = lib->vips_image_get_width(image.get());
  facts.height = lib->vips_image_get_height(image.get());
  facts.bands = lib->vips_image_get_bands(image.get());
  facts.has_exif = lib->vips_image_get_typeof(image.get(), VIPS_META_EXIF_NAME) != 0;
  facts.has_icc = lib->vips_image_get_typeof(image.get(), VIPS_META_ICC_NAME) != 0;
  facts.orientation = lib->vips_image_get_orientation(image.get());
  gchar** names = lib->vips_image_get_fields(image.get());
  for (gchar** name = names; name != nullptr && *name != nullptr; ++name) {
    if (std::string_view(*name).starts_with("exif-ifd3-")) facts.has_gps = true;
  }
  lib->g_strfreev(names);
  return facts;
}

Result<std::string> SampleImage(int width, int height, Output output, bool noise, int orientation) {
  CAIRN_TRY(InitImageLibrary());
  VipsImage* out = nullptr;
  Image image;
  if (noise) {
    VipsImage* bands[3] = {nullptr, nullptr, nullptr};
    for (auto& band : bands) {
      if (lib->vips_gaussnoise(&band, width, height, "mean", 128.0, "sigma", 60.0, nullptr) != 0) {
        return Error::Internal("gaussnoise failed");
      }
    }
    const int failed = lib->vips_bandjoin(bands, &out, 3, nullptr);
    for (auto* band : bands) lib->g_object_unref(band);
    if (failed != 0) return Error::Internal("bandjoin failed");
  } else {
    VipsImage* xy = nullptr;
    if (lib->vips_xyz(&xy, width, height, nullptr) != 0) return Error::Internal("xyz failed");
    Image coordinates(xy);
    double scale[] = {255.0 / width, 255.0 / height};
    double offset[] = {0.0, 0.0};
    if (lib->vips_linear(coordinates.get(), &out, scale, offset, 2, nullptr) != 0) {
      return Error::Internal("linear failed");
    }
    Image scaled(out);
    if (lib->vips_bandjoin_const1(scaled.get(), &out, 128.0, nullptr) != 0) {
      return Error::Internal("bandjoin failed");
    }
  }
  image.reset(out);
  if (lib->vips_cast_uchar(image.get(), &out, nullptr) != 0) return Error::Internal("cast failed");
  image.reset(out);
  if (lib->vips_copy(image.get(), &out, "interpretation", VIPS_INTERPRETATION_sRGB, nullptr) != 0) {
    return Error::Internal("copy failed");
  }
  image.reset(out);
  if (orientation != 1) lib->vips_image_set_int(image.get(), VIPS_META_ORIENTATION, orientation);
  void* buffer = nullptr;
  std::size_t length = 0;
  int failed = 0;
  switch (output) {
    case Output::kJpeg:
      failed = lib->vips_jpegsave_buffer(image.get(), &buffer, &length, "Q", 90, nullptr);
      break;
    case Output::kPng:
      failed = lib->vips_pngsave_buffer(image.get(), &buffer, &length, nullptr);
      break;
    case Output::kWebp:
      failed = lib->vips_webpsave_buffer(image.get(), &buffer, &length, nullptr);
      break;
    case Output::kAvif:
      failed = lib->vips_heifsave_buffer(image.get(), &buffer, &length, "compression",
                                         VIPS_FOREIGN_HEIF_COMPRESSION_AV1, "effort", kAvifEffort,
                                         nullptr);
      break;
    case Output::kGif:
      failed = lib->vips_gifsave_buffer(image.get(), &buffer, &length, nullptr);
      break;
    case Output::kTiff:
      failed = lib->vips_tiffsave_buffer(image.get(), &buffer, &length, nullptr);
      break;
  }
  if (failed != 0) {
    lib->g_free(buffer);
    return Error::Internal(std::string("save failed: ") + lib->vips_error_buffer());
  }
  std::string bytes(static_cast<const char*>(buffer), length);
  lib->g_free(buffer);
  if (orientation == 1 || output != Output::kJpeg) return bytes;
  // A camera's JPEG: its EXIF gets a GPS position too (written back by a second save).
  Image saved(lib->vips_image_new_from_buffer(bytes.data(), bytes.size(), "", nullptr));
  if (!saved || lib->vips_copy(saved.get(), &out, nullptr) != 0)
    return Error::Internal("reload failed");
  Image located(out);
  lib->vips_image_set_string(located.get(), "exif-ifd3-GPSLatitudeRef", "N");
  lib->vips_image_set_string(located.get(), "exif-ifd3-GPSLatitude", "51/1 30/1 0/1");
  if (lib->vips_jpegsave_buffer(located.get(), &buffer, &length, "Q", 90, nullptr) != 0) {
    return Error::Internal("save failed");
  }
  bytes.assign(static_cast<const char*>(buffer), length);
  lib->g_free(buffer);
  return bytes;
}

}  // namespace cairn::transform
