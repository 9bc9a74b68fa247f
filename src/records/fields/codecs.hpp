// The codec of each field type, one per file in records/fields/; registry.cpp maps the types.
#pragma once

#include "records/field_codec.hpp"

namespace cairn::records::fields {

const FieldCodec& SingleLineTextCodec();
const FieldCodec& LongTextCodec();
const FieldCodec& PhoneNumberCodec();
const FieldCodec& EmailCodec();
const FieldCodec& UrlCodec();
const FieldCodec& IntegerCodec();
const FieldCodec& DecimalCodec();  // decimal, currency and percentage
const FieldCodec& DateCodec();
const FieldCodec& DatetimeCodec();
const FieldCodec& TimeCodec();
const FieldCodec& CheckboxCodec();
const FieldCodec& SingleSelectCodec();
const FieldCodec& MultiSelectCodec();
const FieldCodec& RelationshipCodec();
const FieldCodec& AuthorshipCodec();  // created-by, updated-by, deleted-by
const FieldCodec& UpdatedAtCodec();
const FieldCodec& AttachmentCodec();
const FieldCodec& MultipleAttachmentsCodec();
const FieldCodec& DurationCodec();
const FieldCodec& JsonCodec();

}  // namespace cairn::records::fields
