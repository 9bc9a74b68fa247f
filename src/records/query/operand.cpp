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

using config::FieldType;

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

OperandKind KindOf(const config::Field& field) {
  switch (field.type) {
    case FieldType::kSingleLineText:
    case FieldType::kLongText:
    case FieldType::kPhoneNumber:
    case FieldType::kEmail:
    case FieldType::kUrl:
      return OperandKind::kText;
    case FieldType::kSingleSelect:
      return OperandKind::kOption;
    case FieldType::kMultiSelect:
      return OperandKind::kOptions;
    case FieldType::kInteger:
    case FieldType::kDecimal:
    case FieldType::kCurrency:
    case FieldType::kPercentage:
    case FieldType::kDuration:
      return OperandKind::kNumber;
    case FieldType::kDate:
    case FieldType::kDatetime:
    case FieldType::kTime:
    case FieldType::kUpdatedAt:
      return OperandKind::kTemporal;
    case FieldType::kCheckbox:
      return OperandKind::kCheckbox;
    case FieldType::kRelationship:
    case FieldType::kCreatedBy:
    case FieldType::kUpdatedBy:
    case FieldType::kDeletedBy:
      return OperandKind::kReference;
    case FieldType::kAttachment:
    case FieldType::kMultipleAttachments:
    case FieldType::kJson:
      return OperandKind::kOpaque;
  }
  return OperandKind::kOpaque;
}

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
  return Operand{std::string(name), db::Identifier(*column).quoted(), KindOf(*field), field};
}

Result<db::Value> OperandValue(const Operand& operand, const boost::json::value& value) {
  // System keys and server-stamped types (created-by, updated-at, …) have no input codec.
  if (operand.field == nullptr || !CodecOf(*operand.field).Writable(*operand.field)) {
    return SystemValue(operand, value);
  }
  config::Field unbounded = *operand.field;
  unbounded.min.reset();
  unbounded.max.reset();
  unbounded.required = false;
  return CodecOf(unbounded).Parse(unbounded, value);
}

}  // namespace cairn::records::query
