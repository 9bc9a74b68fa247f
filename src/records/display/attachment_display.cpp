#include "records/display/attachment_display.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include "records/attachment_links.hpp"
#include "records/display/number_display.hpp"

namespace cairn::records::display {
namespace {

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
  attachment["displayName"] = name;
  if (const auto* size = attachment.if_contains("size"); size != nullptr && size->is_int64()) {
    std::string text;
    AppendByteSize(size->get_int64(), text);
    attachment["displaySize"] = boost::json::parse(text);
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

}  // namespace cairn::records::display
