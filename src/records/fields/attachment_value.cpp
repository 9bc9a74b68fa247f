#include "records/fields/attachment_value.hpp"

#include <algorithm>
#include <array>

#include <boost/json/array.hpp>

#include "records/fields/codec_support.hpp"
#include "records/fields/exact_number.hpp"
#include "storage/file_path.hpp"
#include "storage/limits.hpp"

namespace cairn::records::fields {
namespace {

constexpr std::size_t kMaxFilenameChars = 255;
constexpr std::size_t kMaxMimeTypeBytes = 255;
constexpr std::string_view kAccepted =
    "an attachment object {path, filename?, size?, mimeType?} or its path";
constexpr std::array<std::string_view, 5> kMembers = {"path", "filename", "size", "mimeType",
                                                      "transform"};
// Added by the server on reads; ignored on writes so a record read can be written back.
constexpr std::array<std::string_view, 3> kServerMembers = {"signedUrl", "signedUrlExpiresAt",
                                                            "url"};

char Lower(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

bool IsMimeType(std::string_view text) {
  const auto token = [](std::string_view part) {
    return !part.empty() && std::all_of(part.begin(), part.end(), [](char c) {
      return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
             std::string_view("!#$&^_.+-").find(c) != std::string_view::npos;
    });
  };
  const std::size_t slash = text.find('/');
  return text.size() <= kMaxMimeTypeBytes && slash != std::string_view::npos &&
         token(text.substr(0, slash)) && token(text.substr(slash + 1));
}

Result<boost::json::object> ParsePath(const boost::json::value& input) {
  const std::string prefix = "path ";
  if (auto error = CheckText(input, {}, "a relative file path such as \"invoices/2024/a.pdf\"")) {
    error->message.insert(0, prefix);
    return std::move(*error);
  }
  if (auto problem = storage::PathProblem(input.get_string())) {
    return Invalid(prefix + *problem + " (such as \"invoices/2024/a.pdf\"); got " +
                   Quoted(input.get_string()));
  }
  return boost::json::object{{"path", input.get_string()}};
}

}  // namespace

Result<boost::json::object> ParseAttachment(const boost::json::value& input) {
  if (input.is_string()) return ParsePath(input);
  if (!input.is_object()) {
    return Invalid("must be " + std::string(kAccepted) + ", not " + std::string(KindName(input)));
  }
  const boost::json::object& object = input.get_object();
  for (const auto& member : object) {
    const std::string_view key = member.key();
    if (std::find(kMembers.begin(), kMembers.end(), key) == kMembers.end() &&
        std::find(kServerMembers.begin(), kServerMembers.end(), key) == kServerMembers.end()) {
      return Invalid("has unknown member " + Quoted(key) +
                     "; an attachment has path, filename, size, mimeType and transform");
    }
  }
  const boost::json::value* path = object.if_contains("path");
  if (path == nullptr) {
    return Invalid("must have a path (such as {\"path\": \"docs/a.pdf\"})");
  }
  CAIRN_ASSIGN_OR_RETURN(boost::json::object out, ParsePath(*path));

  if (const boost::json::value* filename = object.if_contains("filename");
      filename != nullptr && !filename->is_null()) {
    if (auto error =
            CheckText(*filename, {.max_chars = kMaxFilenameChars, .min_chars = 1}, "a file name")) {
      error->message.insert(0, "filename ");
      return std::move(*error);
    }
    out["filename"] = *filename;
  }
  if (const boost::json::value* size = object.if_contains("size");
      size != nullptr && !size->is_null()) {
    auto bytes = ParseWholeNumber(*size, "a size in bytes");
    if (!bytes.ok() || *bytes < 0) {
      return Invalid("size must be a whole number of bytes, at least 0");
    }
    out["size"] = *bytes;
  }
  if (const boost::json::value* mime = object.if_contains("mimeType");
      mime != nullptr && !mime->is_null()) {
    if (!mime->is_string() || !IsMimeType(mime->get_string())) {
      return Invalid("mimeType must be a media type such as \"application/pdf\"");
    }
    out["mimeType"] = *mime;
  }
  if (const boost::json::value* transform = object.if_contains("transform");
      transform != nullptr && !transform->is_null()) {
    if (!transform->is_object()) {
      return Error::Validation("Invalid attachment",
                               {{"transform", "must be an object such as {\"width\": 400}"}});
    }
    out["transform"] = *transform;
  }
  return out;
}

bool MimeTypeMatches(std::string_view pattern, std::string_view mime_type) {
  const std::size_t parameters = mime_type.find(';');
  if (parameters != std::string_view::npos) mime_type = mime_type.substr(0, parameters);
  while (!mime_type.empty() && mime_type.back() == ' ') mime_type.remove_suffix(1);
  const auto equal = [](std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(),
                                              [](char x, char y) { return Lower(x) == Lower(y); });
  };
  if (pattern == "*/*") return true;
  if (pattern.size() >= 2 && pattern.substr(pattern.size() - 2) == "/*") {
    const std::string_view type = pattern.substr(0, pattern.size() - 1);  // `image/`
    return mime_type.size() > type.size() && equal(mime_type.substr(0, type.size()), type);
  }
  return equal(pattern, mime_type);
}

Result<boost::json::object> ParseStoredAttachment(const config::Field& field,
                                                  const boost::json::value& input,
                                                  const AttachmentFiles& files) {
  CAIRN_ASSIGN_OR_RETURN(boost::json::object given, ParseAttachment(input));
  const std::string path(given.at("path").get_string());
  CAIRN_ASSIGN_OR_RETURN(const std::optional<StoredFile> file, files.Find(field.bucket, path));
  if (!file) {
    return Invalid("file " + Quoted(path) + " does not exist in bucket " + Quoted(field.bucket) +
                   "; upload it first");
  }
  if (!field.allowed_file_types.empty() &&
      std::none_of(
          field.allowed_file_types.begin(), field.allowed_file_types.end(),
          [&](const std::string& pattern) { return MimeTypeMatches(pattern, file->mime_type); })) {
    std::string allowed;
    for (const std::string& pattern : field.allowed_file_types) {
      if (!allowed.empty()) allowed += ", ";
      allowed += pattern;
    }
    return Invalid("file " + Quoted(path) + " is " +
                   (file->mime_type.empty() ? std::string("of unknown type") : file->mime_type) +
                   "; this field accepts " + allowed);
  }
  if (field.max_file_size && file->size > static_cast<std::uint64_t>(*field.max_file_size)) {
    return Invalid("file " + Quoted(path) + " is " + std::to_string(file->size) +
                   " bytes; this field accepts at most " + std::to_string(*field.max_file_size) +
                   " bytes");
  }
  boost::json::object stored;
  stored["path"] = path;
  if (const boost::json::value* filename = given.if_contains("filename")) {
    stored["filename"] = *filename;
  } else {
    const std::size_t slash = path.rfind('/');
    stored["filename"] = path.substr(slash == std::string::npos ? 0 : slash + 1);
  }
  stored["size"] = static_cast<std::int64_t>(file->size);
  stored["mimeType"] = file->mime_type;
  // An image transform the embedded signed URL serves (issue 16): checked like the sign body's,
  // for an image only; stored as given, normalized again on each read.
  if (const boost::json::value* transform = given.if_contains("transform")) {
    auto normalized = files.NormalizeTransform(transform->get_object(), file->mime_type);
    if (!normalized.ok()) {
      Error error = std::move(normalized).error();
      if (error.code != ErrorCode::kValidation) return error;
      for (FieldError& part : error.errors) {
        part.field.insert(0, part.field.empty() ? "transform" : "transform.");
      }
      error.message = "transform is not valid for file " + Quoted(path);
      return error;
    }
    stored["transform"] = *transform;
  }
  return stored;
}

boost::json::object AttachmentObjectSchema() {
  return {
      {"type", "object"},
      {"properties",
       {{"path", {{"type", "string"}, {"minLength", 1}, {"maxLength", storage::kMaxPathBytes}}},
        {"filename", {{"type", "string"}, {"maxLength", kMaxFilenameChars}}},
        {"size", {{"type", "integer"}, {"minimum", 0}}},
        {"mimeType", {{"type", "string"}}},
        {"transform",
         {{"type", "object"},
          {"description",
           "An image transform the embedded signed URL serves: width, height, fit, crop, "
           "quality, format, preset (as the sign body's transform)"}}},
        {"signedUrl", {{"type", "string"}, {"readOnly", true}}},
        {"signedUrlExpiresAt", {{"type", "string"}, {"format", "date-time"}, {"readOnly", true}}},
        {"url", {{"type", "string"}, {"readOnly", true}}}}},
      {"required", boost::json::array{"path"}}};
}

}  // namespace cairn::records::fields
