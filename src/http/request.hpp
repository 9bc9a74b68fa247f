// The request as handlers see it: parsed path and query, path parameters, optional JSON body.
#pragma once

#include <any>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/json/value.hpp>

#include "common/json_input.hpp"

namespace cairn::http {

using BeastRequest = boost::beast::http::request<boost::beast::http::string_body>;
using Params = std::vector<std::pair<std::string, std::string>>;

class Router;

struct Request {
  const BeastRequest* raw = nullptr;
  // The route table this request was routed by (generated documents and internal calls read it;
  // the dispatcher keeps it alive until the request is answered).
  const Router* router = nullptr;
  std::string_view method;
  std::string path;                        // percent-decoded
  Params path_params;                      // {name} segments of the route
  Params query;                            // percent-decoded, in order
  std::optional<boost::json::value> json;  // parsed when the route declares a body schema
  json::NumberTexts json_numbers;          // the written text of json's non-integer numbers
  std::string request_id;
  std::string client_address;  // the socket peer; the rate-limit layer resolves proxies
  // Who is calling, set by the session layer for routes that use a session (api/session_layer).
  std::any caller;

  std::string_view Header(std::string_view name) const;
  // The first query value for `name`, if present.
  std::optional<std::string_view> Query(std::string_view name) const;
  std::string_view PathParam(std::string_view name) const;
  // The value of cookie `name` from the Cookie header(s), as sent (not decoded).
  std::optional<std::string_view> Cookie(std::string_view name) const;
};

}  // namespace cairn::http
