// The field-type registry: every config::FieldType maps to exactly one codec.
#pragma once

#include "config/model.hpp"
#include "records/field_codec.hpp"

namespace cairn::records::fields {

// The codec of `type`, or nullptr for a type without one (CodecOf treats that as a broken
// invariant; the registry test checks that it never happens).
const FieldCodec* FindCodec(config::FieldType type);

}  // namespace cairn::records::fields
