// multiple-attachments: an array of attachment objects with distinct paths, at most maxFiles,
// stored as JSON array text.
#include <optional>
#include <unordered_set>

#include <boost/json/array.hpp>

#include "common/json.hpp"
#include "records/display/attachment_display.hpp"
#include "records/fields/attachment_value.hpp"
#include "records/fields/codec_support.hpp"
#include "records/fields/codecs.hpp"

namespace cairn::records::fields {
namespace {

std::optional<std::int64_t> MaxFiles(const config::Field& field) {
  const boost::json::value* max = field.properties.if_contains("maxFiles");
  if (max != nullptr && max->is_int64()) return max->get_int64();
  if (max != nullptr && max->is_uint64()) return static_cast<std::int64_t>(max->get_uint64());
  return std::nullopt;
}

class MultipleAttachmentsCodecImpl final : public FieldCodec {
 public:
  std::optional<db::ColumnType> Column(const config::Field& /*field*/) const override {
    return db::ColumnType{db::ColumnKind::kJson};
  }
  OperandKind Comparison() const override { return OperandKind::kOpaque; }

  Result<db::Value> Parse(const config::Field& field,
                          const boost::json::value& input) const override {
    if (input.is_null()) return db::Value(db::Null{});
    if (!input.is_array()) {
      return WrongKind(input, "an array of attachment objects {path, filename?, size?, mimeType?}");
    }
    const boost::json::array& items = input.get_array();
    if (const auto max = MaxFiles(field); max && items.size() > static_cast<std::size_t>(*max)) {
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
      boost::json::object attachment = std::move(parsed).value();
      std::string path(attachment.at("path").get_string());
      if (paths.contains(path)) {
        return AtItem(i,
                      Invalid("path " + Quoted(path) + " is listed twice; files must be distinct"));
      }
      paths.insert(std::move(path));
      out.emplace_back(std::move(attachment));
    }
    return db::Value(db::Json{json::Serialize(out)});
  }

  void AppendJson(const config::Field& /*field*/, const db::Row& row, int column,
                  std::string& out) const override {
    AppendJsonColumn(row, column, out);
  }

  void AppendDisplayValue(const config::Field& /*field*/, const db::Row& row, int column,
                          DisplayContext& /*context*/, std::string& out) const override {
    display::AppendAttachments(row.GetText(column), out);
  }

  boost::json::value JsonSchema(const config::Field& field) const override {
    boost::json::object schema{{"type", "array"}, {"items", AttachmentObjectSchema()}};
    if (const auto max = MaxFiles(field)) schema["maxItems"] = *max;
    return NullableSchema(field, std::move(schema));
  }
};

}  // namespace

const FieldCodec& MultipleAttachmentsCodec() {
  static const MultipleAttachmentsCodecImpl codec;
  return codec;
}

}  // namespace cairn::records::fields
