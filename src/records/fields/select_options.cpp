#include "records/fields/select_options.hpp"

#include <algorithm>

#include "common/json_schema.hpp"
#include "records/fields/codec_support.hpp"

namespace cairn::records::fields {

std::optional<Error> CheckOption(const config::Field& field, std::string_view text) {
  if (std::find(field.options.begin(), field.options.end(), text) != field.options.end()) {
    return std::nullopt;
  }
  std::string message =
      Quoted(text) + " is not an option; must be one of: " + JoinList(field.options);
  if (auto hint = json::SuggestClosest(text, field.options)) {
    message += " (did you mean \"" + *hint + "\"?)";
  }
  return Invalid(std::move(message));
}

}  // namespace cairn::records::fields
