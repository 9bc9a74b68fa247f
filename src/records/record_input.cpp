#include "records/record_input.hpp"

#include "records/field_codec.hpp"
#include "schema/physical_model.hpp"

namespace cairn::records {
namespace {

bool IsManyToMany(const config::Field& field) {
  return field.type == config::FieldType::kRelationship &&
         field.relation_type == config::RelationType::kManyToMany;
}

// What `required` refuses: null, and for many-to-many also no links.
bool IsMissing(const config::Field& field, const db::Value& value) {
  if (const auto* json = std::get_if<db::Json>(&value); json && IsManyToMany(field)) {
    return json->text == "[]";
  }
  return std::holds_alternative<db::Null>(value);
}

}  // namespace

Result<std::optional<StoredFile>> RequestFiles::Find(std::string_view bucket,
                                                     std::string_view path) const {
  if (files_ == nullptr) return std::optional<StoredFile>();
  // Bucket names hold no NUL, so the key is unambiguous.
  std::string key;
  key.reserve(bucket.size() + 1 + path.size());
  key.append(bucket).push_back('\0');
  key.append(path);
  if (const auto found = found_.find(key); found != found_.end()) return found->second;
  CAIRN_ASSIGN_OR_RETURN(std::optional<StoredFile> file, files_->Find(bucket, path));
  found_.emplace(std::move(key), file);
  return file;
}

Result<std::string> RequestFiles::NormalizeTransform(const boost::json::object& transform,
                                                     std::string_view mime_type) const {
  if (files_ == nullptr) return AttachmentFiles::NormalizeTransform(transform, mime_type);
  return files_->NormalizeTransform(transform, mime_type);
}

void RequestFiles::AppendLinks(std::string_view bucket, std::string_view path,
                               std::string_view transform, std::string& out) const {
  if (files_ != nullptr) files_->AppendLinks(bucket, path, transform, out);
}

Result<std::vector<FieldWrite>> ParseFieldWrites(const config::Table& table,
                                                 const access::TableAccess& access,
                                                 const boost::json::value* fields,
                                                 const json::NumberTexts& numbers, WriteKind kind,
                                                 std::string_view path,
                                                 const AttachmentFiles* files) {
  if (fields == nullptr || !fields->is_object()) {
    return Error::Validation("The body needs a `fields` object",
                             {{std::string(path), "must be an object of field values"}});
  }
  std::vector<FieldError> errors;
  std::vector<FieldWrite> writes;
  auto fail = [&](std::string_view name, std::string message) {
    errors.push_back({std::string(path) + "." + std::string(name), std::move(message)});
  };
  for (const auto& [key, input] : fields->get_object()) {
    const std::string_view name = key;
    const config::Field* field = table.FindField(name);
    // A field the caller may not read is unknown to it, with the same message (D21).
    if (field == nullptr || !access.CanReadField(name)) {
      fail(name,
           name == "id" ? "is assigned by the server and cannot be written" : "unknown field");
      continue;
    }
    if (!CodecOf(*field).Writable(*field)) {
      fail(name, "is read-only");
      continue;
    }
    if (!access.CanWriteField(name)) {
      fail(name, "you may not write this field");
      continue;
    }
    auto parsed = ParseFieldValue(*field, input, numbers, files);
    if (!parsed.ok()) {
      if (parsed.error().code != ErrorCode::kValidation) return std::move(parsed).error();
      if (parsed.error().errors.empty()) {
        fail(name, parsed.error().message);
        continue;
      }
      // A value with parts of its own (an attachment's transform): each part named under the
      // field (`fields.photo.transform.width`, `fields.photos[1].transform.width`).
      for (const FieldError& part : parsed.error().errors) {
        std::string where(name);
        if (!part.field.empty() && part.field.front() != '[') where += '.';
        where += part.field;
        fail(where, part.message);
      }
      continue;
    }
    if (field->required && IsMissing(*field, parsed.value())) {
      fail(name, "is required");
      continue;
    }
    writes.push_back({field, std::move(parsed).value()});
  }
  if (kind == WriteKind::kCreate) {
    for (const config::Field& field : table.fields) {
      const bool settable = schema::ColumnNameOf(field) || IsManyToMany(field);
      if (!settable || schema::SystemColumnOf(field.type)) continue;
      const bool given = fields->get_object().contains(field.name);
      if (given) continue;
      if (!field.default_value.is_null()) {
        auto parsed = CodecOf(field).Parse(field, field.default_value);
        if (parsed.ok()) {
          writes.push_back({&field, std::move(parsed).value()});
          continue;
        }
      }
      if (field.required) fail(field.name, "is required");
    }
  }
  if (!errors.empty()) return Error::Validation("Invalid record", std::move(errors));
  return writes;
}

}  // namespace cairn::records
