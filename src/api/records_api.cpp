#include "api/records_api.hpp"

#include <charconv>

#include <boost/json/parse.hpp>

#include "api/session_layer.hpp"
#include "http/route.hpp"

namespace cairn::api {
namespace {

using http::Request;
using http::Response;

constexpr int kDefaultLimit = 100;  // D37
constexpr int kMaxLimit = 1000;

Result<std::int64_t> ParseInteger(std::optional<std::string_view> text, std::string_view name,
                                  std::int64_t min, std::int64_t max) {
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), value);
  if (ec != std::errc() || end != text->data() + text->size() || value < min || value > max) {
    return Error::Validation("Invalid query parameter",
                             {{std::string(name), "must be an integer from " + std::to_string(min) +
                                                      " to " + std::to_string(max)}});
  }
  return value;
}

Result<records::ListOptions> ParseListOptions(const Request& request) {
  records::ListOptions options;
  options.limit = kDefaultLimit;
  if (auto limit = request.Query("limit")) {
    CAIRN_ASSIGN_OR_RETURN(auto value, ParseInteger(limit, "limit", 1, kMaxLimit));
    options.limit = static_cast<int>(value);
  }
  const auto offset = request.Query("offset");
  const auto page = request.Query("page");
  if (offset && page) {
    return Error::Validation("Invalid query parameter", {{"page", "use page or offset, not both"}});
  }
  if (offset) {
    CAIRN_ASSIGN_OR_RETURN(auto value, ParseInteger(offset, "offset", 0, 1'000'000'000));
    options.offset = static_cast<int>(value);
  }
  if (page) {
    CAIRN_ASSIGN_OR_RETURN(auto value,
                           ParseInteger(page, "page", 1, 1'000'000'000 / options.limit));
    options.page = static_cast<int>(value);
  }
  if (auto deleted = request.Query("includeDeleted")) {
    if (*deleted == "true") {
      options.deleted = records::DeletedRows::kInclude;
    } else if (*deleted == "only") {
      options.deleted = records::DeletedRows::kOnly;
    } else if (*deleted != "false") {
      return Error::Validation("Invalid query parameter",
                               {{"includeDeleted", "must be true, only or false"}});
    }
  }
  return options;
}

class RecordRoutes : public std::enable_shared_from_this<RecordRoutes> {
 public:
  RecordRoutes(const config::AppConfig& config, records::RecordService& records)
      : config_(config), records_(records) {}

  Status Register(http::Router& router) {
    constexpr const char* kObject = R"({"type":"object"})";
    CAIRN_TRY(Add(router, "POST", "/records", "Create a record", kObject, &RecordRoutes::Create));
    CAIRN_TRY(Add(router, "GET", "/records", "List records", nullptr, &RecordRoutes::List));
    CAIRN_TRY(
        Add(router, "GET", "/trash", "List soft-deleted records", nullptr, &RecordRoutes::Trash));
    CAIRN_TRY(Add(router, "POST", "/records/batch", "Create up to 1000 records, all or none",
                  kObject, &RecordRoutes::CreateMany));
    CAIRN_TRY(Add(router, "PATCH", "/records/batch", "Update up to 1000 records, all or none",
                  kObject, &RecordRoutes::UpdateMany));
    CAIRN_TRY(Add(router, "DELETE", "/records/batch", "Delete up to 1000 records, all or none",
                  kObject, &RecordRoutes::DeleteMany));
    CAIRN_TRY(Add(router, "POST", "/records/batch/restore",
                  "Restore up to 1000 records, all or none", kObject, &RecordRoutes::RestoreMany));
    CAIRN_TRY(Add(router, "POST", "/records/upsert", "Create or update by match fields", kObject,
                  &RecordRoutes::Upsert));
    CAIRN_TRY(
        Add(router, "GET", "/records/{recordId}", "Get a record", nullptr, &RecordRoutes::Get));
    CAIRN_TRY(Add(router, "PATCH", "/records/{recordId}", "Update a record", kObject,
                  &RecordRoutes::Update));
    CAIRN_TRY(Add(router, "DELETE", "/records/{recordId}",
                  "Soft-delete a record (permanent=true deletes it for good)", nullptr,
                  &RecordRoutes::Delete));
    CAIRN_TRY(Add(router, "POST", "/records/{recordId}/restore", "Restore a soft-deleted record",
                  nullptr, &RecordRoutes::Restore));
    return Add(router, "GET", "/records/{recordId}/history", "A record's revision history", nullptr,
               &RecordRoutes::History);
  }

 private:
  struct Target {
    const config::Table* table;
    records::Actor actor;
    std::int64_t record_id = 0;
  };
  using Method = Result<Response> (RecordRoutes::*)(Request&, const Target&);

  Status Add(http::Router& router, const char* method, std::string_view suffix, const char* summary,
             const char* body_schema, Method handler) {
    http::RouteSpec spec;
    spec.method = method;
    spec.pattern = "/api/tables/{tableId}" + std::string(suffix);
    spec.summary = summary;
    spec.tag = "records";
    spec.requires_session = true;
    if (body_schema != nullptr) spec.body_schema = boost::json::parse(body_schema);
    const bool has_record = suffix.find("{recordId}") != std::string_view::npos;
    return router.Add(
        {std::move(spec),
         [self = shared_from_this(), handler, has_record](Request& request) -> Result<Response> {
           const auth::Caller* caller = CallerOf(request);
           if (caller == nullptr) return Error::Unauthorized();
           Target target;
           target.table = self->config_.FindTable(request.PathParam("tableId"));
           if (target.table == nullptr) return Error::NotFound("Table not found");
           target.actor = {caller->user.id, caller->user.role, request.client_address,
                           std::string(request.Header("User-Agent"))};
           if (has_record) {
             // Ids are positive integers; anything else names no record.
             const std::string_view id = request.PathParam("recordId");
             const auto [end, ec] =
                 std::from_chars(id.data(), id.data() + id.size(), target.record_id);
             if (ec != std::errc() || end != id.data() + id.size() || target.record_id < 1) {
               return Error::NotFound("Record not found");
             }
           }
           return ((*self).*handler)(request, target);
         }});
  }

  Result<Response> Create(Request& request, const Target& target) {
    CAIRN_ASSIGN_OR_RETURN(std::string record,
                           records_.Create(*target.table, target.actor, *request.json));
    return Response::RawJson(201, std::move(record));
  }

  Result<Response> List(Request& request, const Target& target) {
    CAIRN_ASSIGN_OR_RETURN(auto options, ParseListOptions(request));
    CAIRN_ASSIGN_OR_RETURN(std::string list, records_.List(*target.table, target.actor, options));
    return Response::RawJson(200, std::move(list));
  }

  Result<Response> Trash(Request& request, const Target& target) {
    CAIRN_ASSIGN_OR_RETURN(auto options, ParseListOptions(request));
    options.deleted = records::DeletedRows::kOnly;
    CAIRN_ASSIGN_OR_RETURN(std::string list, records_.List(*target.table, target.actor, options));
    return Response::RawJson(200, std::move(list));
  }

  Result<Response> CreateMany(Request& request, const Target& target) {
    CAIRN_ASSIGN_OR_RETURN(std::string out,
                           records_.CreateMany(*target.table, target.actor, *request.json));
    return Response::RawJson(201, std::move(out));
  }

  Result<Response> UpdateMany(Request& request, const Target& target) {
    CAIRN_ASSIGN_OR_RETURN(std::string out,
                           records_.UpdateMany(*target.table, target.actor, *request.json));
    return Response::RawJson(200, std::move(out));
  }

  Result<Response> DeleteMany(Request& request, const Target& target) {
    CAIRN_ASSIGN_OR_RETURN(std::string out,
                           records_.DeleteMany(*target.table, target.actor, *request.json));
    return Response::RawJson(200, std::move(out));
  }

  Result<Response> RestoreMany(Request& request, const Target& target) {
    CAIRN_ASSIGN_OR_RETURN(std::string out,
                           records_.RestoreMany(*target.table, target.actor, *request.json));
    return Response::RawJson(200, std::move(out));
  }

  Result<Response> Upsert(Request& request, const Target& target) {
    CAIRN_ASSIGN_OR_RETURN(std::string out,
                           records_.Upsert(*target.table, target.actor, *request.json));
    return Response::RawJson(200, std::move(out));
  }

  Result<Response> Get(Request&, const Target& target) {
    CAIRN_ASSIGN_OR_RETURN(std::string record,
                           records_.Get(*target.table, target.actor, target.record_id));
    return Response::RawJson(200, std::move(record));
  }

  Result<Response> Update(Request& request, const Target& target) {
    CAIRN_ASSIGN_OR_RETURN(std::string record, records_.Update(*target.table, target.actor,
                                                               target.record_id, *request.json));
    return Response::RawJson(200, std::move(record));
  }

  Result<Response> Delete(Request& request, const Target& target) {
    const auto permanent = request.Query("permanent");
    if (permanent && *permanent != "true" && *permanent != "false") {
      return Error::Validation("Invalid query parameter", {{"permanent", "must be true or false"}});
    }
    CAIRN_TRY(records_.Delete(*target.table, target.actor, target.record_id,
                              permanent && *permanent == "true"));
    return Response::NoContent();
  }

  Result<Response> Restore(Request&, const Target& target) {
    CAIRN_ASSIGN_OR_RETURN(std::string record,
                           records_.Restore(*target.table, target.actor, target.record_id));
    return Response::RawJson(200, std::move(record));
  }

  Result<Response> History(Request& request, const Target& target) {
    records::HistoryOptions options;
    if (auto limit = request.Query("limit")) {
      CAIRN_ASSIGN_OR_RETURN(auto value, ParseInteger(limit, "limit", 1, kMaxLimit));
      options.limit = static_cast<int>(value);
    }
    if (auto offset = request.Query("offset")) {
      CAIRN_ASSIGN_OR_RETURN(auto value, ParseInteger(offset, "offset", 0, 1'000'000'000));
      options.offset = static_cast<int>(value);
    }
    CAIRN_ASSIGN_OR_RETURN(std::string history, records_.History(*target.table, target.actor,
                                                                 target.record_id, options));
    return Response::RawJson(200, std::move(history));
  }

  const config::AppConfig& config_;
  records::RecordService& records_;
};

}  // namespace

Status AddRecordRoutes(http::Router& router, const config::AppConfig& config,
                       records::RecordService& records) {
  return std::make_shared<RecordRoutes>(config, records)->Register(router);
}

}  // namespace cairn::api
