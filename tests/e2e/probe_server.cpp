// `cairn serve` plus one probe route, POST /test/write {"value": "…"}, which inserts a row into
// the `notes` table and answers 201 once it is committed. The shutdown test drives it.
#include <boost/json.hpp>

#include "app/serve.hpp"
#include "common/time.hpp"

namespace {

cairn::Status AddWriteRoute(cairn::http::Router& router, cairn::db::Database& database) {
  cairn::http::RouteSpec spec;
  spec.method = "POST";
  spec.pattern = "/test/write";
  spec.body_schema = boost::json::parse(
      R"({"type":"object","required":["value"],"properties":{"value":{"type":"string"}}})");
  return router.Add(
      {spec, [&database](cairn::http::Request& request) -> cairn::Result<cairn::http::Response> {
         const std::string value(request.json->at("value").as_string());
         const cairn::db::Timestamp now{cairn::time::NowMillis()};
         CAIRN_TRY(database.Transaction(
             cairn::db::Access::kWrite, [&](cairn::db::Connection& connection) -> cairn::Status {
               auto inserted = connection.Execute(
                   R"(INSERT INTO "notes" ("title", "created_at", "updated_at") VALUES (?, ?, ?))",
                   {value, now, now});
               if (!inserted.ok()) return std::move(inserted).error();
               return {};
             }));
         return cairn::http::Response::Json(201, boost::json::object{{"value", value}});
       }});
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) return cairn::app::kExitUsage;
  return cairn::app::Serve(argv[1], {}, AddWriteRoute);
}
