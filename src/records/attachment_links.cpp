#include "records/attachment_links.hpp"

#include <boost/json/parse.hpp>

#include "common/json.hpp"

namespace cairn::records {
namespace {

void AppendOne(const boost::json::value& item, std::string_view bucket,
               const AttachmentFiles& files, std::string& out) {
  if (item.is_string()) {
    out += "{\"path\":";
    json::AppendString(out, item.get_string());
    files.AppendLinks(bucket, item.get_string(), {}, out);
    out.push_back('}');
    return;
  }
  const boost::json::value* path =
      item.is_object() ? item.get_object().if_contains("path") : nullptr;
  if (path == nullptr || !path->is_string()) {
    json::Append(out, item);
    return;
  }
  out.push_back('{');
  bool first = true;
  for (const auto& member : item.get_object()) {
    if (!first) out.push_back(',');
    first = false;
    json::AppendString(out, member.key());
    out.push_back(':');
    json::Append(out, member.value());
  }
  // A stored transform is normalized again (presets may have changed since it was written); one
  // that no longer is a transform gets no link rather than a link to something else.
  std::string transform;
  if (const auto* given = item.get_object().if_contains("transform");
      given != nullptr && given->is_object()) {
    const auto* mime = item.get_object().if_contains("mimeType");
    auto normalized = files.NormalizeTransform(
        given->get_object(), mime != nullptr && mime->is_string() ? mime->get_string() : "");
    if (!normalized.ok()) {
      out.push_back('}');
      return;
    }
    transform = std::move(normalized).value();
  }
  files.AppendLinks(bucket, path->get_string(), transform, out);
  out.push_back('}');
}

}  // namespace

void AppendAttachmentsWithLinks(const boost::json::value& stored, std::string_view bucket,
                                const AttachmentFiles& files, std::string& out) {
  if (!stored.is_array()) {
    AppendOne(stored, bucket, files, out);
    return;
  }
  out.push_back('[');
  bool first = true;
  for (const boost::json::value& item : stored.get_array()) {
    if (!first) out.push_back(',');
    first = false;
    AppendOne(item, bucket, files, out);
  }
  out.push_back(']');
}

void AppendAttachmentsWithLinks(std::string_view stored, std::string_view bucket,
                                const AttachmentFiles& files, std::string& out) {
  if (stored.empty()) {
    out += "null";
    return;
  }
  if (stored.front() != '{' && stored.front() != '[') {
    // A bare path, written before attachments were objects.
    AppendOne(boost::json::value(boost::json::string(stored)), bucket, files, out);
    return;
  }
  boost::system::error_code ec;
  const boost::json::value value = boost::json::parse(stored, ec);
  if (ec) {
    out += stored;  // not ours to repair; the column holds what the server wrote
    return;
  }
  AppendAttachmentsWithLinks(value, bucket, files, out);
}

}  // namespace cairn::records
