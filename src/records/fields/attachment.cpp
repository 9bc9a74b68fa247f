// attachment: one file of the field's bucket. The column is text (Column below); it holds
// the attachment object's JSON text. A column holding a bare path (no leading `{`) is written back
// as {"path": …}. With file storage configured the file must exist (D45) and reads add its links.
#include <boost/json/array.hpp>

#include "common/json.hpp"
#include "records/attachment_links.hpp"
#include "records/display/attachment_display.hpp"
#include "records/fields/attachment_value.hpp"
#include "records/fields/codec_support.hpp"
#include "records/fields/codecs.hpp"

namespace cairn::records::fields {
namespace {

class AttachmentCodecImpl final : public FieldCodec {
 public:
  std::optional<db::ColumnType> Column(const config::Field& /*field*/) const override {
    return db::ColumnType{db::ColumnKind::kText};
  }
  OperandKind Comparison() const override { return OperandKind::kOpaque; }

  Result<db::Value> Parse(const config::Field& /*field*/,
                          const boost::json::value& input) const override {
    if (input.is_null()) return db::Value(db::Null{});
    CAIRN_ASSIGN_OR_RETURN(const boost::json::object attachment, ParseAttachment(input));
    return db::Value(json::Serialize(attachment));
  }

  Result<db::Value> ParseWithFiles(const config::Field& field, const boost::json::value& input,
                                   const AttachmentFiles& files) const override {
    if (input.is_null()) return db::Value(db::Null{});
    CAIRN_ASSIGN_OR_RETURN(const boost::json::object attachment,
                           ParseStoredAttachment(field, input, files));
    return db::Value(json::Serialize(attachment));
  }

  void AppendJson(const config::Field& /*field*/, const db::Row& row, int column,
                  std::string& out) const override {
    if (row.IsNull(column)) {
      out += "null";
      return;
    }
    const std::string_view text = row.GetText(column);
    if (!text.empty() && text.front() == '{') {
      out += text;
      return;
    }
    out += "{\"path\":";
    json::AppendString(out, text);
    out += '}';
  }

  void AppendReadJson(const config::Field& field, const db::Row& row, int column,
                      const AttachmentFiles& files, std::string& out) const override {
    if (row.IsNull(column)) {
      out += "null";
      return;
    }
    AppendAttachmentsWithLinks(row.GetText(column), field.bucket, files, out);
  }

  void AppendDisplayValue(const config::Field& field, const db::Row& row, int column,
                          DisplayContext& context, std::string& out) const override {
    display::AppendAttachments(row.GetText(column), field.bucket, context.attachment_files(), out);
  }

  boost::json::value DisplayJsonSchema(const config::Field& field) const override {
    boost::json::object schema = AttachmentObjectSchema();
    display::AddDisplayMembers(schema);
    return NullableSchema(field, std::move(schema));
  }

  boost::json::value JsonSchema(const config::Field& field) const override {
    return NullableSchema(field, AttachmentObjectSchema());
  }
};

}  // namespace

const FieldCodec& AttachmentCodec() {
  static const AttachmentCodecImpl codec;
  return codec;
}

}  // namespace cairn::records::fields
