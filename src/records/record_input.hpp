// Validation of a write body's `fields` (D31) against the table and the caller's field rules
// (D21): unknown fields, `id`, read-only types and fields the caller may not write are 400s
// naming the field; every value goes through its type's codec; on create, defaults fill absent
// fields and required fields must end up non-null. Every problem is reported at once. With file
// storage configured, attachment values are checked against it (D45), so writes parse their
// input before their transaction.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <boost/json/value.hpp>

#include "access/table_access.hpp"
#include "common/json_input.hpp"
#include "common/result.hpp"
#include "config/model.hpp"
#include "db/value.hpp"
#include "records/attachment_files.hpp"

namespace cairn::records {

struct FieldWrite {
  const config::Field* field;
  db::Value value;
};

enum class WriteKind { kCreate, kUpdate };

// The file storage of one write request: each file is looked up once however many items name it
// (a batch, or an upsert, which parses its fields twice). One per request; not shared between
// threads. A failed lookup is not remembered.
class RequestFiles final : public AttachmentFiles {
 public:
  // `files`: the service's file storage, null when none is configured.
  explicit RequestFiles(const AttachmentFiles* files) : files_(files) {}
  // What ParseFieldWrites takes: this, or null without file storage.
  const AttachmentFiles* get() const { return files_ != nullptr ? this : nullptr; }

  Result<std::optional<StoredFile>> Find(std::string_view bucket,
                                         std::string_view path) const override;
  Result<std::string> NormalizeTransform(const boost::json::object& transform,
                                         std::string_view mime_type) const override;
  void AppendLinks(std::string_view bucket, std::string_view path, std::string_view transform,
                   std::string& out) const override;

 private:
  const AttachmentFiles* files_;
  mutable std::unordered_map<std::string, std::optional<StoredFile>> found_;
};

// `fields` is the body's `fields` member and `numbers` the written text of the body's numbers;
// `path` names it in errors (`fields`, `records[3].fields`). `files` (null: no file storage)
// checks attachment values (FieldCodec::ParseWithFiles); it may block, so this runs outside any
// transaction when `files` is given. A storage failure is returned as is, not as a 400.
Result<std::vector<FieldWrite>> ParseFieldWrites(const config::Table& table,
                                                 const access::TableAccess& access,
                                                 const boost::json::value* fields,
                                                 const json::NumberTexts& numbers, WriteKind kind,
                                                 std::string_view path,
                                                 const AttachmentFiles* files = nullptr);

}  // namespace cairn::records
