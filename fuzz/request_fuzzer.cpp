// Fuzz target: raw bytes through the HTTP request parser and the dispatcher (target parsing,
// routing, JSON body parsing and schema validation). Every answer must be a response; a 5xx
// means bad input reached an unexpected failure, which aborts the run.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include <boost/beast/http.hpp>
#include <boost/json/parse.hpp>

#include "http/dispatcher.hpp"
#include "http/framing.hpp"

namespace {

cairn::http::Dispatcher MakeDispatcher() {
  cairn::http::Router router;
  cairn::http::RouteSpec spec;
  spec.method = "POST";
  spec.pattern = "/api/tables/{tableId}/records";
  spec.body_schema = boost::json::parse(R"({"type":"object","required":["fields"],
      "properties":{"fields":{"type":"object","additionalProperties":{"type":["string","number",
      "boolean","null","array"]}}},"additionalProperties":false})");
  (void)router.Add({spec, [](cairn::http::Request&) -> cairn::Result<cairn::http::Response> {
                      return cairn::http::Response::NoContent();
                    }});
  cairn::http::RouteSpec files;
  files.method = "GET";
  files.pattern = "/api/buckets/{bucket}/files/{path...}";
  (void)router.Add({files, [](cairn::http::Request&) -> cairn::Result<cairn::http::Response> {
                      return cairn::http::Response::NoContent();
                    }});
  return cairn::http::Dispatcher(std::move(router), {});
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const cairn::http::Dispatcher dispatcher = MakeDispatcher();
  namespace bhttp = boost::beast::http;
  bhttp::request_parser<bhttp::string_body> parser;
  parser.eager(true);
  parser.header_limit(16 * 1024);
  parser.body_limit(1024 * 1024);
  boost::beast::error_code ec;
  parser.put(boost::asio::buffer(data, size), ec);
  if (ec || !parser.is_done()) return 0;
  if (cairn::http::CheckFraming(parser.get())) return 0;  // answered 400 and closed by the server
  cairn::http::Request request;
  cairn::http::Response response = dispatcher.Handle(parser.get(), request);
  if (response.status >= 500) std::abort();
  return 0;
}
