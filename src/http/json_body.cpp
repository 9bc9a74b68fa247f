#include "http/json_body.hpp"

#include <cctype>
#include <string>

#include "common/json_input.hpp"
#include "http/limits.hpp"

namespace cairn::http {
namespace {

std::string Lowered(std::string_view text) {
  std::string lowered(text);
  for (char& c : lowered) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lowered;
}

// application/json or a +json type, with no charset parameter other than UTF-8 (RFC 8259: JSON
// is UTF-8; a body declared as another charset is not read as if it were UTF-8).
bool IsJsonContentType(std::string_view content_type) {
  const std::size_t semicolon = content_type.find(';');
  std::string_view media = content_type.substr(0, semicolon);
  while (!media.empty() && media.back() == ' ') media.remove_suffix(1);
  const std::string type = Lowered(media);
  if (type != "application/json" && !type.ends_with("+json")) return false;
  if (semicolon == std::string_view::npos) return true;
  const std::string parameters = Lowered(content_type.substr(semicolon));
  const std::size_t charset = parameters.find("charset=");
  if (charset == std::string::npos) return true;
  std::string_view value = std::string_view(parameters).substr(charset + 8);
  value = value.substr(0, value.find(';'));
  while (!value.empty() && value.back() == ' ') value.remove_suffix(1);
  return value == "utf-8" || value == "\"utf-8\"" || value == "utf8";
}

}  // namespace

std::optional<Error> ParseJsonBody(const BeastRequest& raw, const CompiledRoute& route,
                                   Request& request) {
  const std::string& body = raw.body();
  if (body.empty()) return Error::Validation("Request body must be a JSON document");
  if (!IsJsonContentType(request.Header("Content-Type"))) {
    return Error::Validation("Content-Type must be application/json (in UTF-8)");
  }
  auto parsed = json::ParseInput(body, kMaxJsonDepth, "JSON body");
  if (!parsed.ok()) return parsed.error();
  return AcceptJsonBody(route, std::move(parsed).value(), request);
}

std::optional<Error> AcceptJsonBody(const CompiledRoute& route, json::InputDocument document,
                                    Request& request) {
  if (route.body_schema) {
    std::vector<json::SchemaIssue> issues;
    if (!route.body_schema->Validate(document.value, issues)) {
      std::vector<FieldError> errors;
      errors.reserve(issues.size());
      for (auto& issue : issues) {
        errors.push_back({std::move(issue.path), std::move(issue.message)});
      }
      return Error::Validation("Request body is invalid", std::move(errors));
    }
  }
  // Moving the root keeps the nodes the number texts refer to.
  request.json = std::move(document.value);
  request.json_numbers = std::move(document.numbers);
  return std::nullopt;
}

}  // namespace cairn::http
