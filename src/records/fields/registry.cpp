#include "records/fields/registry.hpp"

#include <stdexcept>
#include <string>

#include "records/fields/codecs.hpp"

namespace cairn::records {
namespace fields {

const FieldCodec* FindCodec(config::FieldType type) {
  using config::FieldType;
  // No default: a new FieldType without a line here fails the build (-Wswitch -Werror).
  switch (type) {
    case FieldType::kSingleLineText:
      return &SingleLineTextCodec();
    case FieldType::kLongText:
      return &LongTextCodec();
    case FieldType::kPhoneNumber:
      return &PhoneNumberCodec();
    case FieldType::kEmail:
      return &EmailCodec();
    case FieldType::kUrl:
      return &UrlCodec();
    case FieldType::kInteger:
      return &IntegerCodec();
    case FieldType::kDecimal:
    case FieldType::kCurrency:
    case FieldType::kPercentage:
      return &DecimalCodec();
    case FieldType::kDate:
      return &DateCodec();
    case FieldType::kDatetime:
      return &DatetimeCodec();
    case FieldType::kTime:
      return &TimeCodec();
    case FieldType::kCheckbox:
      return &CheckboxCodec();
    case FieldType::kSingleSelect:
      return &SingleSelectCodec();
    case FieldType::kMultiSelect:
      return &MultiSelectCodec();
    case FieldType::kRelationship:
      return &RelationshipCodec();
    case FieldType::kCreatedBy:
    case FieldType::kUpdatedBy:
    case FieldType::kDeletedBy:
      return &AuthorshipCodec();
    case FieldType::kUpdatedAt:
      return &UpdatedAtCodec();
    case FieldType::kAttachment:
      return &AttachmentCodec();
    case FieldType::kMultipleAttachments:
      return &MultipleAttachmentsCodec();
    case FieldType::kDuration:
      return &DurationCodec();
    case FieldType::kJson:
      return &JsonCodec();
  }
  return nullptr;
}

}  // namespace fields

const FieldCodec& CodecOf(config::FieldType type) {
  const FieldCodec* codec = fields::FindCodec(type);
  if (codec == nullptr) {
    throw std::logic_error("no codec for field type " + std::to_string(static_cast<int>(type)));
  }
  return *codec;
}

}  // namespace cairn::records
