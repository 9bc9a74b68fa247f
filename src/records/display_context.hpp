// What `format=display` renders with (D39): the request's time zone and the ICU formatters built
// for the response, kept so that every row of a list reuses them. One per request; not shared
// between threads.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "common/result.hpp"

namespace cairn::records {

namespace display {
class FormatterCache;  // display/formatter_cache.hpp
}
class AttachmentFiles;  // attachment_files.hpp

// Ok when `timezone` (a `?timezone=` value) names an IANA zone, else the 400 naming `timezone`.
// A name holding NUL is refused before the lookup: cut there, it could name a real zone.
Status CheckTimeZone(std::string_view timezone);

class DisplayContext {
 public:
  // `timezone` is the request's `?timezone=` (empty: each field's own zone, else UTC). An unknown
  // zone is a 400 naming `timezone`. `files` adds the links of attachments (D45); null when file
  // storage is not configured.
  static Result<DisplayContext> Make(std::string_view timezone,
                                     const AttachmentFiles* files = nullptr);

  DisplayContext(DisplayContext&&) noexcept;
  DisplayContext& operator=(DisplayContext&&) noexcept;
  ~DisplayContext();

  // The zone that overrides every field's own; empty when the request named none.
  const std::string& timezone() const { return timezone_; }
  display::FormatterCache& formatters() { return *formatters_; }
  const AttachmentFiles* attachment_files() const { return files_; }

 private:
  DisplayContext(std::string timezone, const AttachmentFiles* files);

  std::string timezone_;
  const AttachmentFiles* files_;
  std::unique_ptr<display::FormatterCache> formatters_;
};

// How a read answers its values: raw (the stored values) unless `display` is set.
struct ReadFormat {
  bool display = false;
  std::string timezone;  // checked by DisplayContext::Make
};

}  // namespace cairn::records
