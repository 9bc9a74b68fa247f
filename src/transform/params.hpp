// Image transform parameters (interface.md "Storage: image transforms", D46), without libvips:
// the query parameters of a file GET and the presets of STORAGE_TRANSFORM_PRESETS parsed and
// checked (every bad value is a 400 naming its parameter), merged (URL parameters win), written
// in one normalized form (the cache key and the signed-token claim), and the output format
// negotiated from `Accept`.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include <boost/json/object.hpp>

#include "common/result.hpp"

namespace cairn::transform {

enum class Fit { kContain, kCover, kFill, kInside, kOutside };
enum class Format { kAvif, kWebp, kJpeg, kPng, kOrigin };
enum class CropKind { kCenter, kEntropy, kAttention, kFocal };

struct Crop {
  CropKind kind = CropKind::kCenter;
  int x = 50;  // focal point, percent of the width (kFocal)
  int y = 50;  // percent of the height

  bool operator==(const Crop&) const = default;
};

// What a request asks for; every member optional (absent: the default, or negotiation for
// `format`).
struct Params {
  std::optional<int> width;
  std::optional<int> height;
  std::optional<Fit> fit;
  std::optional<int> quality;
  std::optional<Crop> crop;
  std::optional<Format> format;

  bool operator==(const Params&) const = default;
};

// Limits of the spec (interface.md "Limits").
inline constexpr int kMaxDimension = 2500;
inline constexpr int kDefaultQuality = 80;

// The named presets of STORAGE_TRANSFORM_PRESETS: name (alphanumeric and `-`) → width, height,
// fit, quality, crop (format too, as a cairn extension).
using Presets = std::map<std::string, Params, std::less<>>;

// The presets of the setting's JSON text; every bad name or member is one FieldError whose field
// is `STORAGE_TRANSFORM_PRESETS` and whose message names the preset and member.
Result<Presets> ParsePresets(std::string_view json_text);

// Reads a query parameter by name (nullopt when absent).
using QueryLookup = std::function<std::optional<std::string_view>(std::string_view)>;

// Whether the query names any transform parameter (width, height, fit, format, quality, crop,
// preset), valid or not.
bool HasTransformQuery(const QueryLookup& query);

// The transform of a query: the preset's values overridden by the URL's. Each bad value (out of
// range, unknown word, unknown preset, a preset while none are configured) is a FieldError naming
// the parameter; all of them are reported at once.
Result<Params> ParseQuery(const QueryLookup& query, const Presets& presets);

// The transform of a JSON object with the query parameters as members (the sign body's and an
// attachment value's `transform`): width, height and quality integers, the others strings,
// checked like ParseQuery. Errors name the member (`width`); an unknown member or a value of the
// wrong kind is one too.
Result<Params> ParseObject(const boost::json::object& object, const Presets& presets);

// The one text of a transform (`w=400;h=300;fit=cover;crop=entropy;q=80;f=webp`): defaults
// written out, crop only with cover, absent members omitted. Used as the signed-token claim and
// inside the cache key, so two spellings of one transform share a cache entry.
std::string Normalize(const Params& params);
// The transform of a Normalize text (a token's claim); Error::Validation when it is not one.
Result<Params> ParseNormalized(std::string_view text);

std::string_view FormatName(Format format);
// The output format for an `Accept` header: `preferred` (ECO_IMAGE_FORMAT) when the client takes
// it, else the first of avif, webp, then jpeg that it takes explicitly (image/avif, image/webp);
// jpeg when the header names neither (every browser shows JPEG). Never kOrigin.
Format Negotiate(std::string_view accept, Format preferred);
// avif, webp, jpeg, png → the format; anything else nullopt.
std::optional<Format> ParseFormat(std::string_view name);

}  // namespace cairn::transform
