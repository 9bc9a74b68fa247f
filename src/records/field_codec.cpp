#include "records/field_codec.hpp"

namespace cairn::records {

bool FieldCodec::Writable(const config::Field& /*field*/) const {
  return true;
}

}  // namespace cairn::records
