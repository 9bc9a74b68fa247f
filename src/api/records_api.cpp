#include "api/records_api.hpp"

#include <charconv>

#include <boost/json/parse.hpp>

#include "api/records_route_docs.hpp"
#include "api/table_route_support.hpp"
#include "http/route.hpp"
#include "records/limits.hpp"

namespace cairn::api {
namespace {

using http::Request;
using http::Response;

using records::kDefaultListLimit;  // D37
using records::kMaxListLimit;
constexpr std::int64_t kMaxOffset = 1'000'000'000;

Result<records::ListOptions> ParseListOptions(const Request& request) {
  records::ListOptions options;
  CAIRN_ASSIGN_OR_RETURN(options.limit,
                         QueryInteger(request, "limit", 1, kMaxListLimit, kDefaultListLimit));
  if (request.Query("offset") && request.Query("page")) {
    return Error::Validation("Invalid query parameter", {{"page", "use page or offset, not both"}});
  }
  CAIRN_ASSIGN_OR_RETURN(options.offset, QueryInteger(request, "offset", 0, kMaxOffset, 0));
  if (request.Query("page")) {
    CAIRN_ASSIGN_OR_RETURN(options.page,
                           QueryInteger(request, "page", 1, kMaxOffset / options.limit, 1));
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
  const auto copy = [&request](std::string_view name) -> std::optional<std::string> {
    if (auto value = request.Query(name)) return std::string(*value);
    return std::nullopt;
  };
  options.filter = copy("filter");
  options.sort = copy("sort");
  options.order = copy("order");
  options.fields = copy("fields");
  options.q = copy("q");
  options.view = copy("view");
  options.aggregate = copy("aggregate");
  options.group_by = copy("groupBy");
  CAIRN_ASSIGN_OR_RETURN(options.format, ParseReadFormat(request));
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
    CAIRN_TRY(Add(router, "GET", "/records/{recordId}/history", "A record's revision history",
                  nullptr, &RecordRoutes::History));
    CAIRN_TRY(
        Add(router, "GET", "/views", "The table's saved views", nullptr, &RecordRoutes::Views));
    CAIRN_TRY(
        Add(router, "GET", "/views/{viewId}", "One saved view", nullptr, &RecordRoutes::View));
    return Add(router, "GET", "/views/{viewId}/records",
               "Records through a saved view (request parameters layered on top)", nullptr,
               &RecordRoutes::ViewRecords);
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
    // Query parameters, answers and examples: records_route_docs.cpp.
    DescribeRecordRoute(spec, suffix);
    const bool has_record = suffix.find("{recordId}") != std::string_view::npos;
    if (spec.method == "GET" && (suffix.ends_with("/records") || suffix == "/trash")) {
      // Grouped and aggregated lists (records, a view's, the trash) scan every matching row:
      // the server's long-query lane.
      spec.long_query_params = {"groupBy", "aggregate"};
    }
    return router.Add(
        {std::move(spec),
         [self = shared_from_this(), handler, has_record](Request& request) -> Result<Response> {
           CAIRN_ASSIGN_OR_RETURN(TableTarget resolved, ResolveTableTarget(request, self->config_));
           Target target{resolved.table, std::move(resolved.actor)};
           if (has_record) {
             // A malformed id names no record; the service still answers for the table first,
             // so a hidden table and a missing one look the same.
             target.record_id = ParsePositiveId(request.PathParam("recordId")).value_or(kNoRecord);
           }
           return ((*self).*handler)(request, target);
         }});
  }

  Result<Response> Create(Request& request, const Target& target) {
    CAIRN_ASSIGN_OR_RETURN(
        std::string record,
        records_.Create(*target.table, target.actor, *request.json, request.json_numbers));
    return Response::RawJson(201, std::move(record));
  }

  Result<Response> List(Request& request, const Target& target) {
    CAIRN_ASSIGN_OR_RETURN(auto options, ParseListOptions(request));
    CAIRN_ASSIGN_OR_RETURN(std::string list, records_.List(*target.table, target.actor, options));
    return Response::RawJson(200, std::move(list));
  }

  Result<Response> Views(Request&, const Target& target) {
    CAIRN_ASSIGN_OR_RETURN(std::string views, records_.Views(*target.table, target.actor));
    return Response::RawJson(200, std::move(views));
  }

  Result<Response> View(Request& request, const Target& target) {
    CAIRN_ASSIGN_OR_RETURN(std::string view,
                           records_.View(*target.table, target.actor, request.PathParam("viewId")));
    return Response::RawJson(200, std::move(view));
  }

  Result<Response> ViewRecords(Request& request, const Target& target) {
    CAIRN_ASSIGN_OR_RETURN(auto options, ParseListOptions(request));
    if (options.view) {
      return Error::Validation("Invalid query parameter", {{"view", "the path names the view"}});
    }
    options.view = std::string(request.PathParam("viewId"));
    options.view_in_path = true;
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
    CAIRN_ASSIGN_OR_RETURN(
        std::string out,
        records_.CreateMany(*target.table, target.actor, *request.json, request.json_numbers));
    return Response::RawJson(201, std::move(out));
  }

  Result<Response> UpdateMany(Request& request, const Target& target) {
    CAIRN_ASSIGN_OR_RETURN(
        std::string out,
        records_.UpdateMany(*target.table, target.actor, *request.json, request.json_numbers));
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
    CAIRN_ASSIGN_OR_RETURN(std::string out, records_.Upsert(*target.table, target.actor,
                                                            *request.json, request.json_numbers));
    return Response::RawJson(200, std::move(out));
  }

  Result<Response> Get(Request& request, const Target& target) {
    CAIRN_ASSIGN_OR_RETURN(const records::ReadFormat format, ParseReadFormat(request));
    CAIRN_ASSIGN_OR_RETURN(std::string record,
                           records_.Get(*target.table, target.actor, target.record_id, format));
    return Response::RawJson(200, std::move(record));
  }

  Result<Response> Update(Request& request, const Target& target) {
    CAIRN_ASSIGN_OR_RETURN(std::string record,
                           records_.Update(*target.table, target.actor, target.record_id,
                                           *request.json, request.json_numbers));
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
    CAIRN_ASSIGN_OR_RETURN(options.limit,
                           QueryInteger(request, "limit", 1, kMaxListLimit, options.limit));
    CAIRN_ASSIGN_OR_RETURN(options.offset, QueryInteger(request, "offset", 0, kMaxOffset, 0));
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
