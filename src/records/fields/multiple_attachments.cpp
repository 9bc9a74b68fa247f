// multiple-attachments: an array of attachment objects with distinct paths, at most maxFiles,
// stored as JSON array text. With file storage configured each file must exist (D45) and reads
// add their links.
#include <optional>
#include <unordered_set>

#include <boost/json/array.hpp>

#include "common/json.hpp"
#include "records/attachment_links.hpp"
#include "records/display/attachment_display.hpp"
#include "records/fields/attachment_value.hpp"
#include "records/fields/codec_support.hpp"
#include "records/fields/codecs.hpp"

namespace cairn::records::fields {
namespace {

class MultipleAttachmentsCodecImpl final : public FieldCodec {
 public:
  std::optional<db::ColumnType> Column(const config::Field& /*field*/) const override {
    return db::ColumnType{db::ColumnKind::kJson};
  }
  OperandKind Comparison() const override { return OperandKind::kOpaque; }

  Result<db::Value> Parse(const config::Field& field,
                          const boost::json::value& input) const override {
    return ParseItems(field, input, nullptr);
  }

  Result<db::Value> ParseWithFiles(const config::Field& field, const boost::json::value& input,
                                   const AttachmentFiles& files) const override {
    return ParseItems(field, input, &files);
  }

  void AppendJson(const config::Field& /*field*/, const db::Row& row, int column,
                  std::string& out) const override {
    AppendJsonColumn(row, column, out);
  }

  void AppendReadJson(const config::Field& field, const db::Row& row, int column,
                      const AttachmentFiles& files, std::string& out) const override {
    const std::string_view text = row.IsNull(column) ? std::string_view() : row.GetText(column);
    AppendAttachmentsWithLinks(text, field.bucket, files, out);
  }

  void AppendDisplayValue(const config::Field& field, const db::Row& row, int column,
                          DisplayContext& context, std::string& out) const override {
    display::AppendAttachments(row.GetText(column), field.bucket, context.attachment_files(), out);
  }

  boost::json::value DisplayJsonSchema(const config::Field& field) const override {
    boost::json::object item = AttachmentObjectSchema();
    display::AddDisplayMembers(item);
    boost::json::object schema{{"type", "array"}, {"items", std::move(item)}};
    if (field.max_files) schema["maxItems"] = *field.max_files;
    return NullableSchema(field, std::move(schema));
  }

  boost::json::value JsonSchema(const config::Field& field) const override {
    boost::json::object schema{{"type", "array"}, {"items", AttachmentObjectSchema()}};
    if (field.max_files) schema["maxItems"] = *field.max_files;
    return NullableSchema(field, std::move(schema));
  }

 private:
  // Parse, and with `files` (file storage configured) ParseWithFiles: each item checked and
  // completed by ParseStoredAttachment once the shape and count are known.
  static Result<db::Value> ParseItems(const config::Field& field, const boost::json::value& input,
                                      const AttachmentFiles* files) {
    if (input.is_null()) return db::Value(db::Null{});
    if (!input.is_array()) {
      return WrongKind(input, "an array of attachment objects {path, filename?, size?, mimeType?}");
    }
    const boost::json::array& items = input.get_array();
    if (const auto max = field.max_files; max && items.size() > static_cast<std::size_t>(*max)) {
      return Invalid("must have at most " + std::to_string(*max) +
                     (*max == 1 ? " file" : " files") + ", got " + std::to_string(items.size()));
    }
    boost::json::array out;
    out.reserve(items.size());
    std::unordered_set<std::string> paths;
    paths.reserve(items.size());
    for (std::size_t i = 0; i < items.size(); ++i) {
      auto parsed = ParseAttachment(items[i]);
      if (!parsed.ok()) return AtItem(i, std::move(parsed).error());
      std::string path(parsed->at("path").get_string());
      if (paths.contains(path)) {
        return AtItem(i,
                      Invalid("path " + Quoted(path) + " is listed twice; files must be distinct"));
      }
      paths.insert(std::move(path));
      out.emplace_back(std::move(parsed).value());
    }
    if (files != nullptr) {
      for (std::size_t i = 0; i < items.size(); ++i) {
        auto stored = ParseStoredAttachment(field, items[i], *files);
        if (!stored.ok()) {
          Error error = std::move(stored).error();
          if (error.code != ErrorCode::kValidation) return error;
          return AtItem(i, std::move(error));
        }
        out[i] = std::move(stored).value();
      }
    }
    return db::Value(db::Json{json::Serialize(out)});
  }
};

}  // namespace

const FieldCodec& MultipleAttachmentsCodec() {
  static const MultipleAttachmentsCodecImpl codec;
  return codec;
}

}  // namespace cairn::records::fields
