#include "records/display/attachment_display.hpp"

#include <boost/json/array.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include "records/attachment_links.hpp"
#include "records/display/number_display.hpp"

namespace cairn::records::display {
namespace {

constexpr std::string_view kDisplayName = "displayName";
constexpr std::string_view kDisplaySize = "displaySize";

boost::json::value WithDisplay(boost::json::value item) {
  if (item.is_string()) item = boost::json::object{{"path", item.get_string()}};
  if (!item.is_object()) return item;
  boost::json::object& attachment = item.get_object();
  // Owned: inserting into the object below may rehash and free the strings a view would see.
  std::string name;
  if (const auto* filename = attachment.if_contains("filename");
      filename != nullptr && filename->is_string() && !filename->get_string().empty()) {
    name = filename->get_string();
  } else if (const auto* path = attachment.if_contains("path");
             path != nullptr && path->is_string()) {
    const std::string_view full = path->get_string();
    const std::size_t slash = full.rfind('/');
    name = full.substr(slash == std::string_view::npos ? 0 : slash + 1);
  }
  attachment[kDisplayName] = name;
  if (const auto* size = attachment.if_contains("size"); size != nullptr && size->is_int64()) {
    std::string text;
    AppendByteSize(size->get_int64(), text);
    attachment[kDisplaySize] = boost::json::parse(text);
  }
  return item;
}

}  // namespace

void AppendAttachments(std::string_view stored, std::string_view bucket,
                       const AttachmentFiles* files, std::string& out) {
  boost::system::error_code ec;
  boost::json::value value = boost::json::parse(stored, ec);
  if (ec) value = boost::json::string(stored);  // a bare path written before objects
  if (value.is_array()) {
    for (boost::json::value& item : value.get_array()) item = WithDisplay(std::move(item));
  } else {
    value = WithDisplay(std::move(value));
  }
  if (files != nullptr) {
    AppendAttachmentsWithLinks(value, bucket, *files, out);
  } else {
    out += boost::json::serialize(value);
  }
}

void AddDisplayMembers(boost::json::object& schema) {
  boost::json::value& properties = schema["properties"];
  if (!properties.is_object()) properties = boost::json::object{};
  properties.get_object()[kDisplayName] =
      boost::json::object{{"type", "string"},
                          {"description", "the file name, else the last segment of its path"},
                          {"examples", boost::json::array{"q3.pdf"}}};
  properties.get_object()[kDisplaySize] =
      boost::json::object{{"type", "string"},
                          {"description", "the size, when known"},
                          {"examples", boost::json::array{"1.2 MB"}}};
  boost::json::value& required = schema["required"];
  if (!required.is_array()) required = boost::json::array{};
  required.get_array().emplace_back(kDisplayName);
}

}  // namespace cairn::records::display
