#include "records/field_codec.hpp"

namespace cairn::records {

bool FieldCodec::Writable(const config::Field& /*field*/) const {
  return true;
}

void FieldCodec::AppendDisplay(const config::Field& field, const db::Row& row, int column,
                               DisplayContext& context, std::string& out) const {
  if (row.IsNull(column)) {
    out += "null";
    return;
  }
  AppendDisplayValue(field, row, column, context, out);
}

void FieldCodec::AppendDisplayValue(const config::Field& field, const db::Row& row, int column,
                                    DisplayContext& /*context*/, std::string& out) const {
  AppendJson(field, row, column, out);
}

}  // namespace cairn::records
