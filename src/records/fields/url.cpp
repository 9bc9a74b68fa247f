// url: an absolute URL with scheme http, https or ftp (with a host; query and fragment allowed),
// mailto or tel.
#include <algorithm>

#include <boost/url/parse.hpp>

#include "records/fields/codec_support.hpp"
#include "records/fields/codecs.hpp"

namespace cairn::records::fields {
namespace {

constexpr std::size_t kMaxChars = 2048;
constexpr std::string_view kAccepted =
    "an absolute URL with scheme http, https, ftp, mailto or tel (such as https://example.com)";

// config::IsValidUrl uses absolute-URI, which has no fragment; a record's URL may have one.
bool IsAcceptedUrl(std::string_view text) {
  auto url = boost::urls::parse_uri(text);
  if (!url) return false;
  const std::string_view scheme = url->scheme();
  const auto is = [&](std::string_view name) {
    return scheme.size() == name.size() &&
           std::equal(scheme.begin(), scheme.end(), name.begin(),
                      [](char a, char b) { return (a | 0x20) == b; });
  };
  if (is("http") || is("https") || is("ftp")) {
    return url->has_authority() && !url->encoded_host().empty();
  }
  return (is("mailto") || is("tel")) && !url->encoded_path().empty();
}

class UrlCodecImpl final : public TextColumnCodec {
 public:
  Result<db::Value> Parse(const config::Field& /*field*/,
                          const boost::json::value& input) const override {
    if (input.is_null()) return db::Value(db::Null{});
    if (auto error = CheckText(input, {.max_chars = kMaxChars}, kAccepted)) {
      return std::move(*error);
    }
    const std::string_view text = input.get_string();
    if (!IsAcceptedUrl(text)) {
      return Invalid("must be " + std::string(kAccepted) + "; got " + Quoted(text));
    }
    return db::Value(std::string(text));
  }

  boost::json::value JsonSchema(const config::Field& field) const override {
    return NullableSchema(field, {{"type", "string"}, {"format", "uri"}, {"maxLength", kMaxChars}});
  }
};

}  // namespace

const FieldCodec& UrlCodec() {
  static const UrlCodecImpl codec;
  return codec;
}

}  // namespace cairn::records::fields
