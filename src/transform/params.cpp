#include "transform/params.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <vector>

#include <boost/json/parse.hpp>

namespace cairn::transform {
namespace {

constexpr std::string_view kPresetsSetting = "STORAGE_TRANSFORM_PRESETS";
constexpr std::array<std::string_view, 7> kQueryNames = {"width",   "height", "fit",   "format",
                                                         "quality", "crop",   "preset"};

std::optional<int> ParseInt(std::string_view text, int min, int max) {
  int value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || value < min ||
      value > max) {
    return std::nullopt;
  }
  return value;
}

std::optional<Fit> ParseFit(std::string_view name) {
  if (name == "contain") return Fit::kContain;
  if (name == "cover") return Fit::kCover;
  if (name == "fill") return Fit::kFill;
  if (name == "inside") return Fit::kInside;
  if (name == "outside") return Fit::kOutside;
  return std::nullopt;
}

std::string_view FitName(Fit fit) {
  switch (fit) {
    case Fit::kContain:
      return "contain";
    case Fit::kCover:
      return "cover";
    case Fit::kFill:
      return "fill";
    case Fit::kInside:
      return "inside";
    case Fit::kOutside:
      return "outside";
  }
  return "contain";
}

std::optional<Crop> ParseCrop(std::string_view text) {
  if (text == "center" || text == "centre") return Crop{CropKind::kCenter};
  if (text == "entropy") return Crop{CropKind::kEntropy};
  if (text == "attention") return Crop{CropKind::kAttention};
  const std::size_t comma = text.find(',');
  if (comma == std::string_view::npos) return std::nullopt;
  const auto x = ParseInt(text.substr(0, comma), 0, 100);
  const auto y = ParseInt(text.substr(comma + 1), 0, 100);
  if (!x || !y) return std::nullopt;
  return Crop{CropKind::kFocal, *x, *y};
}

std::string CropText(const Crop& crop) {
  switch (crop.kind) {
    case CropKind::kCenter:
      return "center";
    case CropKind::kEntropy:
      return "entropy";
    case CropKind::kAttention:
      return "attention";
    case CropKind::kFocal:
      return std::to_string(crop.x) + "," + std::to_string(crop.y);
  }
  return "center";
}

constexpr const char* kDimensionRule = "must be an integer from 1 to 2500";
constexpr const char* kQualityRule = "must be an integer from 1 to 100";
constexpr const char* kFitRule = "must be one of contain, cover, fill, inside, outside";
constexpr const char* kCropRule =
    "must be center, entropy, attention, or x,y with percentages from 0 to 100";
constexpr const char* kFormatRule = "must be one of avif, webp, jpeg, png, origin";

// One parameter from its text into `params`; false (and the rule in `rule`) when it is bad.
bool Apply(std::string_view name, std::string_view text, Params& params, const char*& rule) {
  if (name == "width" || name == "height") {
    const auto value = ParseInt(text, 1, kMaxDimension);
    rule = kDimensionRule;
    if (!value) return false;
    (name == "width" ? params.width : params.height) = *value;
  } else if (name == "quality") {
    const auto value = ParseInt(text, 1, 100);
    rule = kQualityRule;
    if (!value) return false;
    params.quality = *value;
  } else if (name == "fit") {
    const auto value = ParseFit(text);
    rule = kFitRule;
    if (!value) return false;
    params.fit = *value;
  } else if (name == "crop") {
    const auto value = ParseCrop(text);
    rule = kCropRule;
    if (!value) return false;
    params.crop = *value;
  } else if (name == "format") {
    rule = kFormatRule;
    if (text == "origin") {
      params.format = Format::kOrigin;
    } else if (const auto value = ParseFormat(text)) {
      params.format = *value;
    } else {
      return false;
    }
  } else {
    rule = "is not a transform parameter (width, height, fit, quality, crop, format)";
    return false;
  }
  return true;
}

bool ValidPresetName(std::string_view name) {
  if (name.empty() || name.size() > 64) return false;
  for (char c : name) {
    const bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (!alnum && c != '-') return false;
  }
  return true;
}

// `over`'s members replace `base`'s.
Params Merge(Params base, const Params& over) {
  if (over.width) base.width = over.width;
  if (over.height) base.height = over.height;
  if (over.fit) base.fit = over.fit;
  if (over.quality) base.quality = over.quality;
  if (over.crop) base.crop = over.crop;
  if (over.format) base.format = over.format;
  return base;
}

}  // namespace

std::optional<Format> ParseFormat(std::string_view name) {
  if (name == "avif") return Format::kAvif;
  if (name == "webp") return Format::kWebp;
  if (name == "jpeg" || name == "jpg") return Format::kJpeg;
  if (name == "png") return Format::kPng;
  return std::nullopt;
}

std::string_view FormatName(Format format) {
  switch (format) {
    case Format::kAvif:
      return "avif";
    case Format::kWebp:
      return "webp";
    case Format::kJpeg:
      return "jpeg";
    case Format::kPng:
      return "png";
    case Format::kOrigin:
      return "origin";
  }
  return "origin";
}

Result<Presets> ParsePresets(std::string_view json_text) {
  boost::system::error_code ec;
  const boost::json::value value = boost::json::parse(json_text, ec);
  if (ec || !value.is_object()) {
    return Error::Validation("Invalid transform presets",
                             {{std::string(kPresetsSetting),
                               "must be a JSON object of preset name → transform object"}});
  }
  std::vector<FieldError> errors;
  const auto fail = [&errors](std::string message) {
    errors.push_back({std::string(kPresetsSetting), std::move(message)});
  };
  Presets presets;
  for (const auto& preset : value.get_object()) {
    const std::string name(preset.key());
    if (!ValidPresetName(name)) {
      fail("preset name \"" + name + "\" must be 1 to 64 letters, digits and hyphens");
    }
    if (!preset.value().is_object()) {
      fail("preset \"" + name + "\" must be an object of width, height, fit, quality, crop");
      continue;
    }
    Params params;
    for (const auto& member : preset.value().get_object()) {
      const std::string_view key = member.key();
      std::string text;
      if (member.value().is_int64()) {
        text = std::to_string(member.value().get_int64());
      } else if (member.value().is_string()) {
        text = member.value().get_string();
      } else {
        text = "?";  // neither a number nor a word: refused below
      }
      // Numbers as numbers, words as strings.
      const bool numeric = key == "width" || key == "height" || key == "quality";
      const char* rule = nullptr;
      if ((numeric && !member.value().is_int64()) || (!numeric && !member.value().is_string()) ||
          !Apply(key, text, params, rule)) {
        if (rule == nullptr) rule = numeric ? kDimensionRule : "must be a string";
        fail("preset \"" + name + "\": " + std::string(key) + " " + rule);
      }
    }
    presets.emplace(name, params);
  }
  if (!errors.empty()) return Error::Validation("Invalid transform presets", std::move(errors));
  return presets;
}

bool HasTransformQuery(const QueryLookup& query) {
  for (std::string_view name : kQueryNames) {
    if (query(name)) return true;
  }
  return false;
}

Result<Params> ParseQuery(const QueryLookup& query, const Presets& presets) {
  std::vector<FieldError> errors;
  Params base;
  if (const auto preset = query("preset")) {
    if (presets.empty()) {
      errors.push_back({"preset", "no presets are configured (STORAGE_TRANSFORM_PRESETS)"});
    } else if (const auto it = presets.find(*preset); it == presets.end()) {
      errors.push_back({"preset", "is not a configured preset"});
    } else {
      base = it->second;
    }
  }
  Params given;
  for (std::string_view name : kQueryNames) {
    if (name == "preset") continue;
    const auto text = query(name);
    if (!text) continue;
    const char* rule = nullptr;
    if (!Apply(name, *text, given, rule)) errors.push_back({std::string(name), rule});
  }
  if (!errors.empty()) return Error::Validation("Invalid transform parameters", std::move(errors));
  return Merge(base, given);
}

Result<Params> ParseObject(const boost::json::object& object, const Presets& presets) {
  std::vector<FieldError> errors;
  std::map<std::string, std::string, std::less<>> members;
  for (const auto& member : object) {
    const std::string_view name = member.key();
    const boost::json::value& value = member.value();
    if (std::find(kQueryNames.begin(), kQueryNames.end(), name) == kQueryNames.end()) {
      errors.push_back({std::string(name),
                        "is not a transform parameter (width, height, fit, crop, quality, "
                        "format, preset)"});
    } else if (name == "width" || name == "height" || name == "quality") {
      if (value.is_int64()) {
        members.emplace(name, std::to_string(value.get_int64()));
      } else {
        errors.push_back({std::string(name), "must be an integer"});
      }
    } else if (value.is_string()) {
      members.emplace(name, std::string(value.get_string()));
    } else {
      errors.push_back({std::string(name), "must be a string"});
    }
  }
  if (!errors.empty()) return Error::Validation("Invalid transform parameters", std::move(errors));
  return ParseQuery(
      [&members](std::string_view name) -> std::optional<std::string_view> {
        const auto it = members.find(name);
        if (it == members.end()) return std::nullopt;
        return std::string_view(it->second);
      },
      presets);
}

std::string Normalize(const Params& params) {
  std::string out;
  const auto add = [&out](std::string_view key, std::string_view value) {
    if (!out.empty()) out += ';';
    out += key;
    out += '=';
    out += value;
  };
  if (params.width) add("w", std::to_string(*params.width));
  if (params.height) add("h", std::to_string(*params.height));
  const Fit fit = params.fit.value_or(Fit::kContain);
  add("fit", FitName(fit));
  if (fit == Fit::kCover) add("crop", CropText(params.crop.value_or(Crop{})));
  add("q", std::to_string(params.quality.value_or(kDefaultQuality)));
  if (params.format) add("f", FormatName(*params.format));
  return out;
}

Result<Params> ParseNormalized(std::string_view text) {
  Params params;
  while (!text.empty()) {
    const std::size_t end = text.find(';');
    const std::string_view pair = text.substr(0, end);
    const std::size_t eq = pair.find('=');
    if (eq == std::string_view::npos) return Error::Validation("Invalid signed transform");
    std::string_view key = pair.substr(0, eq);
    if (key == "w") key = "width";
    if (key == "h") key = "height";
    if (key == "q") key = "quality";
    if (key == "f") key = "format";
    const char* rule = nullptr;
    if (!Apply(key, pair.substr(eq + 1), params, rule)) {
      return Error::Validation("Invalid signed transform");
    }
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return params;
}

namespace {

// Whether `accept` names `type` (`image/webp`) with a non-zero q.
bool Accepts(std::string_view accept, std::string_view type) {
  while (!accept.empty()) {
    const std::size_t comma = accept.find(',');
    std::string_view item = accept.substr(0, comma);
    while (!item.empty() && (item.front() == ' ' || item.front() == '\t')) item.remove_prefix(1);
    const std::size_t semi = item.find(';');
    std::string_view name = item.substr(0, semi);
    while (!name.empty() && (name.back() == ' ' || name.back() == '\t')) name.remove_suffix(1);
    if (name.size() == type.size() &&
        std::equal(name.begin(), name.end(), type.begin(), [](char a, char b) {
          return (a >= 'A' && a <= 'Z' ? a - 'A' + 'a' : a) == b;
        })) {
      const std::string_view rest = semi == std::string_view::npos ? "" : item.substr(semi);
      const std::size_t q = rest.find("q=");
      if (q == std::string_view::npos) return true;
      std::string_view value = rest.substr(q + 2);
      value = value.substr(0, value.find(';'));
      while (!value.empty() && value.back() == ' ') value.remove_suffix(1);
      // "0", "0.0" and "0.000" refuse the type; any other digit takes it.
      return value.find_first_not_of("0.") != std::string_view::npos;
    }
    if (comma == std::string_view::npos) break;
    accept.remove_prefix(comma + 1);
  }
  return false;
}

std::string_view MediaTypeOf(Format format) {
  switch (format) {
    case Format::kAvif:
      return "image/avif";
    case Format::kWebp:
      return "image/webp";
    case Format::kJpeg:
      return "image/jpeg";
    case Format::kPng:
      return "image/png";
    case Format::kOrigin:
      break;
  }
  return "";
}

}  // namespace

Format Negotiate(std::string_view accept, Format preferred) {
  if (preferred != Format::kOrigin && Accepts(accept, MediaTypeOf(preferred))) return preferred;
  for (Format format : {Format::kAvif, Format::kWebp}) {
    if (Accepts(accept, MediaTypeOf(format))) return format;
  }
  // JPEG and PNG every browser shows.
  if (preferred == Format::kJpeg || preferred == Format::kPng) return preferred;
  return Format::kJpeg;
}

}  // namespace cairn::transform
