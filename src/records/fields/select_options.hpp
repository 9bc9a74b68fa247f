// The option check shared by single-select and multi-select. Internal to records/fields/.
#pragma once

#include <optional>
#include <string_view>

#include "common/error.hpp"
#include "config/model.hpp"

namespace cairn::records::fields {

// Nothing when `text` is one of the field's options (exact, case-sensitive); else the error
// listing them, with a "did you mean" hint for a likely typo.
std::optional<Error> CheckOption(const config::Field& field, std::string_view text);

}  // namespace cairn::records::fields
