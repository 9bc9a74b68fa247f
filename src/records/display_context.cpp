#include "records/display_context.hpp"

#include "config/locale_data.hpp"
#include "records/display/formatter_cache.hpp"

namespace cairn::records {

Status CheckTimeZone(std::string_view timezone) {
  if (!config::IsKnownTimeZone(timezone)) {
    return Error::Validation("Invalid query parameter",
                             {{"timezone",
                               "must be an IANA time zone such as Europe/Paris or "
                               "America/New_York"}});
  }
  return {};
}

Result<DisplayContext> DisplayContext::Make(std::string_view timezone,
                                            const AttachmentFiles* files) {
  if (!timezone.empty()) CAIRN_TRY(CheckTimeZone(timezone));
  return DisplayContext(std::string(timezone), files);
}

DisplayContext::DisplayContext(std::string timezone, const AttachmentFiles* files)
    : timezone_(std::move(timezone)),
      files_(files),
      formatters_(std::make_unique<display::FormatterCache>()) {}
DisplayContext::DisplayContext(DisplayContext&&) noexcept = default;
DisplayContext& DisplayContext::operator=(DisplayContext&&) noexcept = default;
DisplayContext::~DisplayContext() = default;

}  // namespace cairn::records
