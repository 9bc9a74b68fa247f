#include "storage/media_type.hpp"

#include <magic.h>

#include <algorithm>
#include <array>
#include <memory>

namespace cairn::storage {
namespace {

constexpr std::string_view kUnknown = "application/octet-stream";

struct MagicCloser {
  void operator()(magic_set* cookie) const { magic_close(cookie); }
};

// One handle per thread: libmagic handles are not thread-safe. Compressed files are not
// unpacked (a zip bomb is just application/zip) and no external program is run.
magic_t ThreadMagic() {
  thread_local const std::unique_ptr<magic_set, MagicCloser> cookie = [] {
    std::unique_ptr<magic_set, MagicCloser> handle(
        magic_open(MAGIC_MIME_TYPE | MAGIC_NO_CHECK_COMPRESS | MAGIC_ERROR));
    if (handle && magic_load(handle.get(), nullptr) != 0) handle.reset();
    return handle;
  }();
  return cookie.get();
}

std::string Lowered(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

// `type/subtype` without parameters, lowercase.
std::string Essence(std::string_view type) {
  const std::size_t semicolon = type.find(';');
  std::string_view essence = type.substr(0, semicolon);
  while (!essence.empty() && essence.back() == ' ') essence.remove_suffix(1);
  return Lowered(essence);
}

std::string_view TopLevel(std::string_view essence) {
  return essence.substr(0, essence.find('/'));
}

// application/ types that are text a person writes (libmagic calls most of them text/plain).
bool IsTextualApplication(std::string_view essence) {
  constexpr std::array<std::string_view, 8> kTypes = {
      "application/json", "application/xml",    "application/javascript", "application/ecmascript",
      "application/yaml", "application/x-yaml", "application/sql",        "application/x-sh"};
  return std::find(kTypes.begin(), kTypes.end(), essence) != kTypes.end() ||
         essence.ends_with("+json") || essence.ends_with("+xml");
}

}  // namespace

std::string DetectMediaType(std::string_view head) {
  magic_t cookie = ThreadMagic();
  if (cookie == nullptr) return std::string(kUnknown);
  const char* type = magic_buffer(cookie, head.data(), head.size());
  if (type == nullptr) return std::string(kUnknown);
  std::string essence = Essence(type);
  // libmagic names an empty input inode/x-empty or application/x-empty.
  if (essence.empty() || essence.starts_with("inode/") || essence == "application/x-empty") {
    return std::string(kUnknown);
  }
  return essence;
}

bool DeclaredTypeFits(std::string_view declared, std::string_view detected) {
  const std::string want = Essence(declared);
  const std::string got = Essence(detected);
  if (want == got) return true;
  const std::string_view want_top = TopLevel(want);
  if (TopLevel(got) == "text") {
    // The bytes are text; any text type (or a textual application type) fits them.
    return want_top == "text" || IsTextualApplication(want);
  }
  if (got == kUnknown) {
    // Unknown binary: fits a binary application type, never a claim of image, text or media.
    return want_top == "application" || want_top == "model";
  }
  return false;
}

bool SameMediaType(std::string_view a, std::string_view b) {
  return Essence(a) == Essence(b);
}

bool MatchesAnyPattern(std::string_view type, std::span<const std::string> patterns) {
  if (patterns.empty()) return true;
  const std::string essence = Essence(type);
  return std::any_of(patterns.begin(), patterns.end(), [&](const std::string& raw) {
    const std::string pattern = Lowered(raw);
    if (pattern == "*/*") return true;
    if (pattern.ends_with("/*")) {
      return TopLevel(essence) == std::string_view(pattern).substr(0, pattern.size() - 2);
    }
    return pattern == essence;
  });
}

bool IsActiveContent(std::string_view type) {
  const std::string essence = Essence(type);
  return essence == "text/html" || essence == "application/xhtml+xml" ||
         essence == "image/svg+xml" || essence == "text/xml" || essence == "application/xml" ||
         essence.ends_with("+xml") || essence.find("javascript") != std::string::npos ||
         essence.find("ecmascript") != std::string::npos;
}

}  // namespace cairn::storage
