#include "api/storage_api.hpp"

#include <algorithm>
#include <charconv>
#include <limits>
#include <map>
#include <stdexcept>

#include <boost/json/parse.hpp>

#include "activity/activity.hpp"
#include "api/file_response.hpp"
#include "api/session_layer.hpp"
#include "api/table_route_support.hpp"
#include "common/crypto.hpp"
#include "common/json.hpp"
#include "common/time.hpp"
#include "http/route.hpp"
#include "storage/file_path.hpp"
#include "storage/limits.hpp"
#include "storage/media_type.hpp"
#include "transform/image.hpp"
#include "transform/params.hpp"

namespace cairn::api {
namespace {

using http::Request;
using http::Response;
using storage::BucketAction;
using storage::Operation;

constexpr std::string_view kUploadedAction = "bucket.file.uploaded";
constexpr std::string_view kDeletedAction = "bucket.file.deleted";

// A download's image transform (interface.md "Storage: image transforms"): the query parameters
// as members; the ranges are checked by transform::ParseQuery so the errors match the GET's.
boost::json::value TransformSchema() {
  boost::json::array fits{"contain", "cover", "fill", "inside", "outside"};
  boost::json::array formats{"avif", "webp", "jpeg", "png", "origin"};
  return {{"type", "object"},
          {"additionalProperties", false},
          {"properties",
           {{"width", {{"type", "integer"}}},
            {"height", {{"type", "integer"}}},
            {"quality", {{"type", "integer"}}},
            {"fit", {{"enum", std::move(fits)}}},
            {"format", {{"enum", std::move(formats)}}},
            {"crop", {{"type", "string"}, {"maxLength", 32}}},
            {"preset", {{"type", "string"}, {"maxLength", 64}}}}}};
}

// The sign body (interface.md "Storage: signed URLs"); its limits come from storage/limits.hpp.
boost::json::value SignSchema() {
  return {{"type", "object"},
          {"additionalProperties", false},
          {"required", boost::json::array{"path"}},
          {"properties",
           {{"path", {{"type", "string"}, {"minLength", 1}, {"maxLength", storage::kMaxPathBytes}}},
            {"expiresIn",
             {{"type", "integer"},
              {"minimum", storage::kMinExpiresInSeconds},
              {"maximum", storage::kMaxExpiresInSeconds}}},
            {"operation", {{"enum", boost::json::array{"download", "upload"}}}},
            {"contentType",
             {{"type", "string"}, {"minLength", 1}, {"maxLength", storage::kMaxContentTypeBytes}}},
            {"maxSize", {{"type", "integer"}, {"minimum", 1}}},
            {"transform", TransformSchema()}}}};
}

boost::json::value SignBatchSchema() {
  return {{"type", "object"},
          {"additionalProperties", false},
          {"required", boost::json::array{"files"}},
          {"properties",
           {{"files",
             {{"type", "array"},
              {"maxItems", storage::kMaxBatchFiles},
              {"items",
               {{"type", "object"},
                {"additionalProperties", false},
                {"required", boost::json::array{"path"}},
                {"properties",
                 {{"path",
                   {{"type", "string"}, {"minLength", 1}, {"maxLength", storage::kMaxPathBytes}}},
                  {"expiresIn",
                   {{"type", "integer"},
                    {"minimum", storage::kMinExpiresInSeconds},
                    {"maximum", storage::kMaxExpiresInSeconds}}},
                  {"transform", TransformSchema()}}}}}}}}}};
}

const auth::Caller& SessionCaller(const Request& request) {
  const auth::Caller* caller = CallerOf(request);
  if (caller == nullptr) throw std::logic_error("storage route needs requires_session");
  return *caller;
}

std::int64_t IntegerOr(const boost::json::object& body, std::string_view key,
                       std::int64_t fallback) {
  const boost::json::value* value = body.if_contains(key);
  return value != nullptr && value->is_int64() ? value->get_int64() : fallback;
}

void AppendSigned(std::string& out, const storage::SignedUrl& signed_url) {
  out += R"("signedUrl":)";
  json::AppendString(out, signed_url.url);
  out += R"(,"expiresAt":")";
  time::AppendIso(out, signed_url.expires_at * 1000);
  out += '"';
}

// A short fingerprint of a token for the activity log: enough to tell uploads apart, useless to
// replay (the token itself is never logged).
std::string TokenFingerprint(std::string_view token) {
  return crypto::Sha256Hex(token).substr(0, 16);
}

// The transform of a sign body's `transform` object, in Normalize's form; errors name
// `transform.<member>`.
Result<std::string> SignedTransform(const boost::json::object& transform,
                                    const transform::Presets& presets,
                                    std::string_view prefix = "transform.") {
  auto params = transform::ParseObject(transform, presets);
  if (!params) {
    Error error = params.error();
    for (FieldError& field : error.errors) field.field.insert(0, prefix);
    return error;
  }
  return transform::Normalize(*params);
}

class StorageRoutes : public std::enable_shared_from_this<StorageRoutes> {
 public:
  StorageRoutes(storage::StorageService& storage, db::Database& database,
                std::function<std::int64_t()> now, transform::TransformService* transforms)
      : storage_(storage), database_(database), now_(std::move(now)), transforms_(transforms) {}

  Status Register(http::Router& router) {
    auto self = shared_from_this();
    CAIRN_TRY(router.Add({Spec("GET", "/api/buckets", "List the buckets you may sign in", true),
                          [self](Request& r) { return self->ListBuckets(r); }}));
    // The bucket is named before the body is read (D43: 404 before 400).
    const auto bucket_first = [self](Request& r) -> Status {
      CAIRN_TRY(self->BucketOf(r));
      return {};
    };
    http::Route sign{
        Spec("POST", "/api/buckets/{bucket}/sign", "Sign a download or upload URL", true),
        [self](Request& r) { return self->Sign(r); }};
    sign.spec.body_schema = SignSchema();
    sign.precheck = bucket_first;
    CAIRN_TRY(router.Add(std::move(sign)));
    http::Route batch{Spec("POST", "/api/buckets/{bucket}/sign/batch",
                           "Sign download URLs for up to 100 files", true),
                      [self](Request& r) { return self->SignBatch(r); }};
    batch.spec.body_schema = SignBatchSchema();
    batch.precheck = bucket_first;
    CAIRN_TRY(router.Add(std::move(batch)));
    CAIRN_TRY(router.Add({Spec("GET", "/api/buckets/{bucket}/files", "List files", true),
                          [self](Request& r) { return self->ListFiles(r); }}));
    for (const char* method : {"GET", "HEAD"}) {
      CAIRN_TRY(router.Add({Spec(method, "/api/buckets/{bucket}/files/{path...}",
                                 "Download a file with its token", false),
                            [self](Request& r) { return self->Download(r); }}));
    }
    http::Route upload{
        Spec("PUT", "/api/buckets/{bucket}/files/{path...}", "Upload a file with its token", false),
        {},
        [self](Request& r) { return self->Upload(r); }};
    CAIRN_TRY(router.Add(std::move(upload)));
    return router.Add(
        {Spec("DELETE", "/api/buckets/{bucket}/files/{path...}", "Delete a file", true),
         [self](Request& r) { return self->Delete(r); }});
  }

 private:
  static http::RouteSpec Spec(const char* method, const char* pattern, const char* summary,
                              bool session) {
    http::RouteSpec spec;
    spec.method = method;
    spec.pattern = pattern;
    spec.summary = summary;
    spec.tag = "storage";
    spec.requires_session = session;
    return spec;
  }

  Result<const config::Bucket*> BucketOf(const Request& request) const {
    const config::Bucket* bucket = storage_.FindBucket(request.PathParam("bucket"));
    if (bucket == nullptr) return Error::NotFound("Bucket not found");
    return bucket;
  }

  // The `{path...}` of a file route, checked (D44).
  static Result<std::string_view> FilePath(const Request& request) {
    const std::string_view path = request.PathParam("path");
    CAIRN_TRY(storage::CheckPath(path));
    return path;
  }

  Result<Response> ListBuckets(Request& request) {
    const std::string_view role = SessionCaller(request).user.role;
    std::string out = R"({"buckets":[)";
    bool first = true;
    for (const config::Bucket& bucket : storage_.buckets()) {
      const bool sign = storage_.Allows(bucket, BucketAction::kSign, role);
      const bool sign_upload = storage_.Allows(bucket, BucketAction::kSignUpload, role);
      if (!sign && !sign_upload) continue;
      if (!first) out += ',';
      first = false;
      out += R"({"name":)";
      json::AppendString(out, bucket.name);
      out += R"(,"public":)";
      out += bucket.is_public ? "true" : "false";
      out += R"(,"maxFileSize":)";
      out += bucket.max_file_size ? std::to_string(*bucket.max_file_size) : "null";
      out += R"(,"allowedMimeTypes":[)";
      for (std::size_t i = 0; i < bucket.allowed_mime_types.size(); ++i) {
        if (i > 0) out += ',';
        json::AppendString(out, bucket.allowed_mime_types[i]);
      }
      out += R"(],"permissions":{"sign":)";
      out += sign ? "true" : "false";
      out += R"(,"signUpload":)";
      out += sign_upload ? "true" : "false";
      out += R"(,"download":)";
      out += storage_.Allows(bucket, BucketAction::kDownload, role) ? "true" : "false";
      out += R"(,"delete":)";
      out += storage_.Allows(bucket, BucketAction::kDelete, role) ? "true" : "false";
      out += "}}";
    }
    out += "]}";
    return Response::RawJson(200, std::move(out));
  }

  // D43's order: 401 (session layer), unknown bucket 404 (precheck), bad body 400 (schema, then
  // the path), not allowed 403, missing file 404.
  Result<Response> Sign(Request& request) {
    CAIRN_ASSIGN_OR_RETURN(const config::Bucket* bucket, BucketOf(request));
    const boost::json::object& body = request.json->get_object();
    const std::string_view path = body.at("path").get_string();
    CAIRN_TRY(storage::CheckPath(path));
    const bool upload = body.contains("operation") && body.at("operation") == "upload";
    const std::int64_t expires_in = IntegerOr(body, "expiresIn", storage::kDefaultExpiresInSeconds);
    std::string content_type;
    if (const auto* type = body.if_contains("contentType")) content_type = type->get_string();
    if (!upload && (body.contains("contentType") || body.contains("maxSize"))) {
      return Error::Validation("Invalid request body",
                               {{body.contains("contentType") ? "contentType" : "maxSize",
                                 "is only used with operation upload"}});
    }
    if (upload && body.contains("transform")) {
      return Error::Validation("Invalid request body",
                               {{"transform", "is only used with operation download"}});
    }
    std::string transform_text;
    if (const auto* transform = body.if_contains("transform")) {
      if (transforms_ == nullptr) {
        return Error::Validation("Invalid request body",
                                 {{"transform", "image transforms are not served"}});
      }
      CAIRN_ASSIGN_OR_RETURN(transform_text,
                             SignedTransform(transform->get_object(), transforms_->presets()));
    }
    const auth::Caller& caller = SessionCaller(request);
    const BucketAction action = upload ? BucketAction::kSignUpload : BucketAction::kSign;
    if (!storage_.Allows(*bucket, action, caller.user.role)) {
      return Error::Forbidden(upload ? "You may not sign uploads in this bucket"
                                     : "You may not sign downloads in this bucket");
    }
    const std::int64_t now = now_();
    std::string out = "{";
    if (upload) {
      const std::uint64_t max_size = static_cast<std::uint64_t>(
          IntegerOr(body, "maxSize", static_cast<std::int64_t>(storage::kDefaultMaxUploadBytes)));
      AppendSigned(out, storage_.SignUpload(bucket->name, path, expires_in, content_type, max_size,
                                            now, caller.user.id));
      out += R"(,"path":)";
      json::AppendString(out, path);
      out += R"(,"method":"PUT","headers":{)";
      if (!content_type.empty()) {
        out += R"("Content-Type":)";
        json::AppendString(out, content_type);
      }
      out += "}}";
      return Response::RawJson(200, std::move(out));
    }
    CAIRN_ASSIGN_OR_RETURN(auto info, storage_.store().Stat(bucket->name, path));
    if (!info) return Error::NotFound("File not found");
    if (!transform_text.empty() &&
        transform::SourceTypeOf(info->mime_type) == transform::SourceType::kNotImage) {
      return Error::Validation(
          "Only images can be transformed",
          {{"transform", "the file is " + info->mime_type + ", not an image"}});
    }
    AppendSigned(out, storage_.SignDownload(bucket->name, path, expires_in, now, caller.user.id,
                                            transform_text));
    out += R"(,"path":)";
    json::AppendString(out, path);
    out += '}';
    return Response::RawJson(200, std::move(out));
  }

  Result<Response> SignBatch(Request& request) {
    CAIRN_ASSIGN_OR_RETURN(const config::Bucket* bucket, BucketOf(request));
    const boost::json::array& files = request.json->get_object().at("files").get_array();
    for (std::size_t i = 0; i < files.size(); ++i) {
      CAIRN_TRY(storage::CheckPath(files[i].get_object().at("path").get_string(),
                                   "files[" + std::to_string(i) + "].path"));
    }
    // Each item's transform, checked like the sign body's (errors name
    // `files[i].transform.<member>`).
    std::vector<std::string> transform_texts(files.size());
    std::vector<FieldError> transform_errors;
    for (std::size_t i = 0; i < files.size(); ++i) {
      const auto* transform = files[i].get_object().if_contains("transform");
      if (transform == nullptr) continue;
      const std::string prefix = "files[" + std::to_string(i) + "].transform";
      if (transforms_ == nullptr) {
        transform_errors.push_back({prefix, "image transforms are not served"});
        continue;
      }
      auto text = SignedTransform(transform->get_object(), transforms_->presets(), prefix + ".");
      if (!text) {
        for (FieldError& field : text.error().errors) transform_errors.push_back(std::move(field));
        continue;
      }
      transform_texts[i] = std::move(*text);
    }
    if (!transform_errors.empty()) {
      return Error::Validation("Invalid request body", std::move(transform_errors));
    }
    const auth::Caller& caller = SessionCaller(request);
    if (!storage_.Allows(*bucket, BucketAction::kSign, caller.user.role)) {
      return Error::Forbidden("You may not sign downloads in this bucket");
    }
    const std::int64_t now = now_();
    std::string out = R"({"files":[)";
    for (std::size_t i = 0; i < files.size(); ++i) {
      const boost::json::object& file = files[i].get_object();
      const std::string_view path = file.at("path").get_string();
      if (i > 0) out += ',';
      out += R"({"path":)";
      json::AppendString(out, path);
      CAIRN_ASSIGN_OR_RETURN(auto info, storage_.store().Stat(bucket->name, path));
      if (!info) {
        out += R"(,"error":"not_found"})";
        continue;
      }
      // A transform of a file that is no image: that item alone fails, like a missing file.
      if (!transform_texts[i].empty() &&
          transform::SourceTypeOf(info->mime_type) == transform::SourceType::kNotImage) {
        out += R"(,"error":"not_an_image"})";
        continue;
      }
      out += ',';
      AppendSigned(out, storage_.SignDownload(
                            bucket->name, path,
                            IntegerOr(file, "expiresIn", storage::kDefaultExpiresInSeconds), now,
                            caller.user.id, transform_texts[i]));
      out += '}';
    }
    out += "]}";
    return Response::RawJson(200, std::move(out));
  }

  Result<Response> ListFiles(Request& request) {
    CAIRN_ASSIGN_OR_RETURN(const config::Bucket* bucket, BucketOf(request));
    const std::string_view prefix = request.Query("prefix").value_or("");
    CAIRN_TRY(storage::CheckPrefix(prefix));
    CAIRN_ASSIGN_OR_RETURN(
        const std::int64_t limit,
        QueryInteger(request, "limit", 1, storage::kMaxListLimit, storage::kDefaultListLimit));
    const std::string_view cursor = request.Query("cursor").value_or("");
    if (!storage_.Allows(*bucket, BucketAction::kDownload, SessionCaller(request).user.role)) {
      return Error::Forbidden("You may not list files in this bucket");
    }
    CAIRN_ASSIGN_OR_RETURN(
        storage::ListPage page,
        storage_.store().List(bucket->name, prefix, static_cast<int>(limit), cursor));
    std::string out = R"({"files":[)";
    for (std::size_t i = 0; i < page.objects.size(); ++i) {
      const storage::ObjectInfo& object = page.objects[i];
      if (i > 0) out += ',';
      out += R"({"path":)";
      json::AppendString(out, object.path);
      out += R"(,"size":)";
      out += std::to_string(object.size);
      out += R"(,"mimeType":)";
      json::AppendString(out, object.mime_type);
      out += R"(,"updatedAt":")";
      time::AppendIso(out, object.updated_at_ms);
      out += "\"}";
    }
    out += R"(],"nextCursor":)";
    if (page.next_cursor) {
      json::AppendString(out, *page.next_cursor);
    } else {
      out += "null";
    }
    out += '}';
    return Response::RawJson(200, std::move(out));
  }

  // Token first (403 for any private file without a valid one, existing or not, so nothing is
  // learned without a token), then the file.
  Result<Response> Download(Request& request) {
    CAIRN_ASSIGN_OR_RETURN(const config::Bucket* bucket, BucketOf(request));
    CAIRN_ASSIGN_OR_RETURN(const std::string_view path, FilePath(request));
    const auto token = request.Query("token");
    const bool is_public = storage_.IsPublic(*bucket, path);
    std::string signed_transform;
    if (token) {
      CAIRN_ASSIGN_OR_RETURN(
          storage::TokenClaims claims,
          storage_.CheckToken(bucket->name, path, *token, Operation::kDownload, now_()));
      signed_transform = std::move(claims.transform);
    } else if (!is_public) {
      return Error::Forbidden("This file needs a signed URL");
    }
    const transform::QueryLookup query = [&request](std::string_view name) {
      return request.Query(name);
    };
    const bool url_transform = transforms_ != nullptr && transform::HasTransformQuery(query);
    if (!signed_transform.empty() && url_transform) {
      // The token fixes the transform it was signed for; the URL cannot change it.
      return Error::Forbidden("This signed URL serves the transform it was signed for");
    }
    if (transforms_ == nullptr || (signed_transform.empty() && !url_transform)) {
      CAIRN_ASSIGN_OR_RETURN(auto info, storage_.store().Stat(bucket->name, path));
      if (!info) return Error::NotFound("File not found");
      return FileResponse(request, storage_.store(), bucket->name, *info, is_public);
    }
    return Transform(request, *bucket, path, is_public, signed_transform, query);
  }

  // A GET with transform parameters (in the URL, or signed into the token).
  Result<Response> Transform(const Request& request, const config::Bucket& bucket,
                             std::string_view path, bool is_public,
                             std::string_view signed_transform,
                             const transform::QueryLookup& query) {
    transform::Params params;
    if (signed_transform.empty()) {
      CAIRN_ASSIGN_OR_RETURN(params, transform::ParseQuery(query, transforms_->presets()));
    } else {
      CAIRN_ASSIGN_OR_RETURN(params, transform::ParseNormalized(signed_transform));
    }
    CAIRN_ASSIGN_OR_RETURN(auto info, storage_.store().Stat(bucket.name, path));
    if (!info) return Error::NotFound("File not found");
    const bool negotiated = !params.format.has_value();
    if (negotiated) {
      params.format = transform::Negotiate(request.Header("Accept"), transforms_->preferred());
    }
    const std::string key = transform::TransformService::Key(bucket.name, path, params, info->etag);
    // The client holds this transform of this version of the file already.
    if (auto match = request.Header("If-None-Match");
        !match.empty() && IfNoneMatchHits(match, TransformEtag(key))) {
      return TransformNotModified(key, negotiated);
    }
    CAIRN_ASSIGN_OR_RETURN(auto served,
                           transforms_->Get(storage_.store(), bucket.name, *info, params, key));
    if (served.pass_through) {
      return FileResponse(request, storage_.store(), bucket.name, *info, is_public);
    }
    return TransformResponse(request, path, key, negotiated, std::move(served));
  }

  Result<std::unique_ptr<http::BodySink>> Upload(Request& request) {
    CAIRN_ASSIGN_OR_RETURN(const config::Bucket* bucket, BucketOf(request));
    CAIRN_ASSIGN_OR_RETURN(const std::string_view path, FilePath(request));
    const auto token = request.Query("token");
    if (!token) return Error::Forbidden("Uploads need a signed URL");
    CAIRN_ASSIGN_OR_RETURN(
        storage::TokenClaims claims,
        storage_.CheckToken(bucket->name, path, *token, Operation::kUpload, now_()));
    const std::string_view sent_type = request.Header("Content-Type");
    if (!claims.content_type.empty() && !sent_type.empty() &&
        !storage::SameMediaType(sent_type, claims.content_type)) {
      return Error::Validation("The Content-Type does not match the signed content type",
                               {{"contentType", "must be " + claims.content_type}});
    }
    std::uint64_t max_bytes = claims.max_size;
    if (bucket->max_file_size) {
      max_bytes = std::min(max_bytes, static_cast<std::uint64_t>(*bucket->max_file_size));
    }
    CAIRN_ASSIGN_OR_RETURN(auto upload, storage_.BeginUpload(*bucket, path, claims.content_type));
    activity::ActivityEntry entry;
    entry.action = kUploadedAction;
    if (!claims.signer_id.empty()) entry.user_id = claims.signer_id;
    entry.ip_address = request.client_address;
    if (auto agent = request.Header("User-Agent"); !agent.empty()) entry.user_agent = agent;
    return std::unique_ptr<http::BodySink>(std::make_unique<UploadSink>(
        shared_from_this(), std::move(upload), max_bytes, bucket->name, std::string(path),
        TokenFingerprint(*token), std::move(entry)));
  }

  Result<Response> Delete(Request& request) {
    CAIRN_ASSIGN_OR_RETURN(const config::Bucket* bucket, BucketOf(request));
    CAIRN_ASSIGN_OR_RETURN(const std::string_view path, FilePath(request));
    const auth::Caller& caller = SessionCaller(request);
    if (!storage_.Allows(*bucket, BucketAction::kDelete, caller.user.role)) {
      return Error::Forbidden("You may not delete files in this bucket");
    }
    CAIRN_ASSIGN_OR_RETURN(auto info, storage_.store().Stat(bucket->name, path));
    CAIRN_ASSIGN_OR_RETURN(const bool removed, storage_.store().Remove(bucket->name, path));
    if (!removed || !info) return Error::NotFound("File not found");
    activity::ActivityEntry entry;
    entry.action = kDeletedAction;
    entry.user_id = caller.user.id;
    entry.ip_address = request.client_address;
    if (auto agent = request.Header("User-Agent"); !agent.empty()) entry.user_agent = agent;
    CAIRN_TRY(RecordFileActivity(entry, bucket->name, path, info->size, info->mime_type, {}));
    std::string out = R"({"deleted":true,"path":)";
    json::AppendString(out, path);
    out += '}';
    return Response::RawJson(200, std::move(out));
  }

  // The file changed already (a backend is not the database), so a failure here is logged as
  // the 500 it is, not undone.
  Status RecordFileActivity(activity::ActivityEntry entry, std::string_view bucket,
                            std::string_view path, std::uint64_t size, std::string_view mime_type,
                            std::string_view token_fingerprint) {
    std::string metadata = R"({"bucket":)";
    json::AppendString(metadata, bucket);
    metadata += R"(,"path":)";
    json::AppendString(metadata, path);
    metadata += R"(,"size":)";
    metadata += std::to_string(size);
    metadata += R"(,"mimeType":)";
    json::AppendString(metadata, mime_type);
    if (!token_fingerprint.empty()) {
      metadata += R"(,"token":)";
      json::AppendString(metadata, token_fingerprint);
    }
    metadata += '}';
    entry.metadata_json = std::move(metadata);
    return database_.Transaction(db::Access::kWrite, [&](db::Connection& connection) {
      return activity::RecordActivity(connection, entry);
    });
  }

  // Streams an upload into its staged writer; Finish commits it and logs it.
  class UploadSink final : public http::BodySink {
   public:
    UploadSink(std::shared_ptr<StorageRoutes> routes, std::unique_ptr<storage::Upload> upload,
               std::uint64_t max_bytes, std::string bucket, std::string path,
               std::string token_fingerprint, activity::ActivityEntry entry)
        : routes_(std::move(routes)),
          upload_(std::move(upload)),
          max_bytes_(max_bytes),
          bucket_(std::move(bucket)),
          path_(std::move(path)),
          token_fingerprint_(std::move(token_fingerprint)),
          entry_(std::move(entry)) {}

    std::uint64_t max_bytes() const override { return max_bytes_; }
    Status Write(std::string_view chunk) override { return upload_->Write(chunk); }
    Result<Response> Finish() override {
      CAIRN_ASSIGN_OR_RETURN(storage::ObjectInfo info, upload_->Finish());
      CAIRN_TRY(routes_->RecordFileActivity(std::move(entry_), bucket_, path_, info.size,
                                            info.mime_type, token_fingerprint_));
      std::string out = R"({"path":)";
      json::AppendString(out, path_);
      out += R"(,"size":)";
      out += std::to_string(info.size);
      out += R"(,"mimeType":)";
      json::AppendString(out, info.mime_type);
      out += '}';
      return Response::RawJson(201, std::move(out));
    }
    void Abort() override { upload_->Abort(); }

   private:
    std::shared_ptr<StorageRoutes> routes_;
    std::unique_ptr<storage::Upload> upload_;
    std::uint64_t max_bytes_;
    std::string bucket_;
    std::string path_;
    std::string token_fingerprint_;
    activity::ActivityEntry entry_;
  };

  storage::StorageService& storage_;
  db::Database& database_;
  std::function<std::int64_t()> now_;
  transform::TransformService* transforms_;
};

}  // namespace

Status AddStorageRoutes(http::Router& router, storage::StorageService& storage,
                        db::Database& database, std::function<std::int64_t()> now_seconds,
                        transform::TransformService* transforms) {
  return std::make_shared<StorageRoutes>(storage, database, std::move(now_seconds), transforms)
      ->Register(router);
}

}  // namespace cairn::api
