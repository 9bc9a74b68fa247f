#include "http/response.hpp"

#include "common/json.hpp"

namespace cairn::http {

Response Response::Json(int status, const boost::json::value& value) {
  Response response;
  response.status = status;
  json::Append(response.body, value);
  return response;
}

Response Response::RawJson(int status, std::string body) {
  Response response;
  response.status = status;
  response.body = std::move(body);
  return response;
}

Response Response::NoContent() {
  Response response;
  response.status = 204;
  response.content_type.clear();
  return response;
}

Response Response::FromError(const Error& error) {
  Response response;
  response.status = error.http_status != 0 ? error.http_status : HttpStatus(error.code);
  std::string& out = response.body;
  out.append(R"({"success":false,"message":)");
  json::AppendString(out, error.message);
  out.append(R"(,"code":)");
  json::AppendString(out, CodeName(error.code));
  if (!error.reason.empty()) {
    out.append(R"(,"error":)");
    json::AppendString(out, error.reason);
  }
  if (!error.errors.empty()) {
    out.append(R"(,"errors":[)");
    bool first = true;
    for (const auto& field_error : error.errors) {
      if (!first) out.push_back(',');
      first = false;
      out.append(R"({"field":)");
      json::AppendString(out, field_error.field);
      out.append(R"(,"message":)");
      json::AppendString(out, field_error.message);
      out.push_back('}');
    }
    out.push_back(']');
  }
  out.push_back('}');
  if (error.retry_after_seconds > 0) {
    response.SetHeader("Retry-After", std::to_string(error.retry_after_seconds));
  }
  return response;
}

void Response::SetHeader(std::string name, std::string value) {
  for (auto& [key, existing] : headers) {
    if (key == name) {
      existing = std::move(value);
      return;
    }
  }
  headers.emplace_back(std::move(name), std::move(value));
}

void Response::AddHeader(std::string name, std::string value) {
  headers.emplace_back(std::move(name), std::move(value));
}

}  // namespace cairn::http
