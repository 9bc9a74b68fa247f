#include "api/comments_api.hpp"

#include "api/table_route_support.hpp"

#include <charconv>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <boost/json/parse.hpp>

#include "api/session_layer.hpp"
#include "http/route.hpp"
#include "records/comment_service.hpp"
#include "records/limits.hpp"

namespace cairn::api {
namespace {

using http::Request;
using http::Response;

using records::kDefaultListLimit;  // D37
using records::kMaxListLimit;
constexpr std::int64_t kMaxOffset = 1'000'000'000;

// Annotation only: content is checked by the service, after the 404 and 403 answers.
constexpr const char* kContentBody =
    R"({"type":"object","properties":{"content":{)"
    R"("description":"The comment: a string of 1 to 10000 characters"}}})";

boost::json::value IntegerSchema(std::int64_t min, std::int64_t max) {
  return {{"type", "string"},
          {"pattern", "^[0-9]+$"},
          {"description", "an integer from " + std::to_string(min) + " to " + std::to_string(max)}};
}

class CommentRoutes : public std::enable_shared_from_this<CommentRoutes> {
 public:
  CommentRoutes(const config::AppConfig& config, db::Database& database,
                const access::AccessIndex& access)
      : config_(config), comments_(database, access) {}

  Status Register(http::Router& router) {
    CAIRN_TRY(Add(router, "POST", "", "Comment on a record", kContentBody, &CommentRoutes::Create));
    CAIRN_TRY(Add(router, "GET", "", "A record's comments, oldest first", nullptr,
                  &CommentRoutes::List,
                  {{"limit", IntegerSchema(1, kMaxListLimit), "comments per page (default 100)"},
                   {"offset", IntegerSchema(0, kMaxOffset), "comments to skip"}}));
    CAIRN_TRY(Add(router, "GET", "/{commentId}", "Get a comment", nullptr, &CommentRoutes::Get));
    CAIRN_TRY(Add(router, "PATCH", "/{commentId}", "Edit a comment (its author or an admin)",
                  kContentBody, &CommentRoutes::Update));
    return Add(router, "DELETE", "/{commentId}", "Delete a comment (its author or an admin)",
               nullptr, &CommentRoutes::Delete);
  }

 private:
  struct Target {
    const config::Table* table;
    records::Actor actor;
    std::int64_t record_id = 0;
    std::int64_t comment_id = 0;  // 0 on the collection routes
  };
  using Method = Result<Response> (CommentRoutes::*)(Request&, const Target&);

  Status Add(http::Router& router, const char* method, std::string_view suffix, const char* summary,
             const char* body_schema, Method handler, std::vector<http::QueryParam> query = {}) {
    http::RouteSpec spec;
    spec.method = method;
    spec.pattern = "/api/tables/{tableId}/records/{recordId}/comments" + std::string(suffix);
    spec.summary = summary;
    spec.tag = "comments";
    spec.requires_session = true;
    spec.query = std::move(query);
    if (body_schema != nullptr) spec.body_schema = boost::json::parse(body_schema);
    const bool has_comment = !suffix.empty();
    return router.Add(
        {std::move(spec),
         [self = shared_from_this(), handler, has_comment](Request& request) -> Result<Response> {
           CAIRN_ASSIGN_OR_RETURN(TableTarget resolved, ResolveTableTarget(request, self->config_));
           Target target;
           target.table = resolved.table;
           target.actor = std::move(resolved.actor);
           // Ids are positive integers; anything else names nothing, and the service answers
           // for the table first, so a hidden table and a missing one look the same.
           target.record_id = ParsePositiveId(request.PathParam("recordId")).value_or(kNoRecord);
           if (has_comment) {
             target.comment_id =
                 ParsePositiveId(request.PathParam("commentId")).value_or(kNoRecord);
           }
           return ((*self).*handler)(request, target);
         }});
  }

  Result<Response> Create(Request& request, const Target& target) {
    CAIRN_ASSIGN_OR_RETURN(std::string comment, comments_.Create(*target.table, target.actor,
                                                                 target.record_id, *request.json));
    return Response::RawJson(201, R"({"comment":)" + comment + "}");
  }

  Result<Response> List(Request& request, const Target& target) {
    records::CommentListOptions options;
    CAIRN_ASSIGN_OR_RETURN(options.limit,
                           QueryInteger(request, "limit", 1, kMaxListLimit, kDefaultListLimit));
    CAIRN_ASSIGN_OR_RETURN(options.offset, QueryInteger(request, "offset", 0, kMaxOffset, 0));
    CAIRN_ASSIGN_OR_RETURN(std::string list,
                           comments_.List(*target.table, target.actor, target.record_id, options));
    return Response::RawJson(200, std::move(list));
  }

  Result<Response> Get(Request&, const Target& target) {
    CAIRN_ASSIGN_OR_RETURN(std::string comment, comments_.Get(*target.table, target.actor,
                                                              target.record_id, target.comment_id));
    return Response::RawJson(200, R"({"comment":)" + comment + "}");
  }

  Result<Response> Update(Request& request, const Target& target) {
    CAIRN_ASSIGN_OR_RETURN(std::string comment,
                           comments_.Update(*target.table, target.actor, target.record_id,
                                            target.comment_id, *request.json));
    return Response::RawJson(200, R"({"comment":)" + comment + "}");
  }

  Result<Response> Delete(Request&, const Target& target) {
    CAIRN_TRY(comments_.Delete(*target.table, target.actor, target.record_id, target.comment_id));
    return Response::NoContent();
  }

  const config::AppConfig& config_;
  records::CommentService comments_;
};

}  // namespace

Status AddCommentRoutes(http::Router& router, const config::AppConfig& config,
                        db::Database& database, const access::AccessIndex& access) {
  return std::make_shared<CommentRoutes>(config, database, access)->Register(router);
}

}  // namespace cairn::api
