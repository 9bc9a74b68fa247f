// created-by, updated-by, deleted-by: the user id the server records (text), read-only.
#include "records/fields/codec_support.hpp"
#include "records/fields/codecs.hpp"

namespace cairn::records::fields {
namespace {

class AuthorshipCodecImpl final : public TextColumnCodec {
 public:
  OperandKind Comparison() const override { return OperandKind::kReference; }
  bool Searchable() const override { return false; }

  bool Writable(const config::Field& /*field*/) const override { return false; }

  Result<db::Value> Parse(const config::Field& /*field*/,
                          const boost::json::value& /*input*/) const override {
    return ReadOnly("the server sets it to the id of the user who made the change");
  }

  boost::json::value JsonSchema(const config::Field& field) const override {
    return NullableSchema(field, {{"type", "string"}, {"readOnly", true}});
  }
};

}  // namespace

const FieldCodec& AuthorshipCodec() {
  static const AuthorshipCodecImpl codec;
  return codec;
}

}  // namespace cairn::records::fields
