#include "records/query/operand.hpp"

#include <array>
#include <charconv>
#include <utility>

#include "common/time.hpp"
#include "db/dialect.hpp"
#include "records/field_codec.hpp"
#include "schema/physical_model.hpp"

namespace cairn::records::query {
namespace {

struct SystemKey {
  std::string_view name;
  std::string_view column;
  OperandKind kind;
};
constexpr std::array<SystemKey, 5> kSystemKeys{{
    {"id", "id", OperandKind::kNumber},
    {"createdAt", "created_at", OperandKind::kTemporal},
    {"updatedAt", "updated_at", OperandKind::kTemporal},
    {"createdBy", "created_by", OperandKind::kReference},
    {"updatedBy", "updated_by", OperandKind::kReference},
}};

Error Unknown(std::string_view name, std::string_view parameter) {
  return Error::Validation(
      "Invalid query parameter",
      {{std::string(parameter), "unknown field \"" + std::string(name) + "\""}});
}

Result<db::Value> SystemValue(const Operand& operand, const boost::json::value& value) {
  if (operand.name == "id") {
    if (value.is_int64()) return db::Value(value.get_int64());
    if (value.is_string()) {
      std::int64_t id = 0;
      const auto& text = value.get_string();
      const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), id);
      if (ec == std::errc() && end == text.data() + text.size()) return db::Value(id);
    }
    return Error::Validation("must be a record id such as \"7\"");
  }
  if (operand.kind == OperandKind::kTemporal) {
    const auto millis = value.is_string() ? time::ParseIso(value.get_string()) : std::nullopt;
    if (!millis) return Error::Validation("must be an ISO 8601 timestamp");
    return db::Value(db::Timestamp{*millis});
  }
  if (!value.is_string()) return Error::Validation("must be a user id (a string)");
  return db::Value(std::string(value.get_string()));
}

}  // namespace

Result<Operand> ResolveOperand(const config::Table& table, const access::TableAccess& access,
                               std::string_view name, std::string_view parameter) {
  for (const SystemKey& key : kSystemKeys) {
    if (key.name == name) {
      return Operand{std::string(name), db::Identifier(key.column).quoted(), key.kind, nullptr};
    }
  }
  const config::Field* field = table.FindField(name);
  if (field == nullptr || !access.CanReadField(*field)) return Unknown(name, parameter);
  const auto column = schema::ColumnNameOf(*field);
  if (!column) return Unknown(name, parameter);  // one-to-many and many-to-many
  return Operand{std::string(name), db::Identifier(*column).quoted(), CodecOf(*field).Comparison(),
                 field};
}

Result<db::Value> OperandValue(const Operand& operand, const boost::json::value& value,
                               const json::NumberTexts& numbers) {
  // System keys and server-stamped types (created-by, updated-at, …) have no input codec.
  if (operand.field == nullptr || !CodecOf(*operand.field).Writable(*operand.field)) {
    return SystemValue(operand, value);
  }
  config::Field unbounded = *operand.field;
  unbounded.min.reset();
  unbounded.max.reset();
  unbounded.required = false;
  return ParseFieldValue(unbounded, value, numbers);
}

}  // namespace cairn::records::query
