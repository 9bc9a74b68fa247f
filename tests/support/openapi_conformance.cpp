#include "support/openapi_conformance.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

namespace cairn::test {
namespace {

constexpr std::string_view kComponentRef = "#/components/schemas/";

std::vector<std::string> Segments(std::string_view path) {
  std::vector<std::string> out;
  std::size_t start = 1;
  while (start <= path.size()) {
    std::size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    out.emplace_back(path.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

std::string Lower(std::string_view text) {
  std::string out;
  for (char c : text) out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  return out;
}

// The document's $refs to components become $refs to $defs, which the validator resolves.
void RewriteRefs(boost::json::value& schema) {
  if (schema.is_array()) {
    for (auto& item : schema.get_array()) RewriteRefs(item);
  } else if (schema.is_object()) {
    for (auto& [key, member] : schema.get_object()) {
      if (key == "$ref" && member.is_string() &&
          std::string_view(member.get_string()).starts_with(kComponentRef)) {
        member = "#/$defs/" +
                 std::string(std::string_view(member.get_string()).substr(kComponentRef.size()));
      } else {
        RewriteRefs(member);
      }
    }
  }
}

std::string PercentDecode(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size()) {
      out.push_back(static_cast<char>(std::stoi(std::string(text.substr(i + 1, 2)), nullptr, 16)));
      i += 2;
    } else {
      out.push_back(text[i]);
    }
  }
  return out;
}

// The value of `name` in a query string ("?a=1&format=display"); empty when absent.
std::string QueryValue(std::string_view query, std::string_view name) {
  if (query.starts_with('?')) query.remove_prefix(1);
  while (!query.empty()) {
    const std::size_t amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    const std::size_t equals = pair.find('=');
    if (PercentDecode(pair.substr(0, equals)) == name) {
      return equals == std::string_view::npos ? "" : PercentDecode(pair.substr(equals + 1));
    }
    if (amp == std::string_view::npos) break;
    query.remove_prefix(amp + 1);
  }
  return {};
}

}  // namespace

OpenApiConformance::OpenApiConformance(std::vector<boost::json::value> documents)
    : documents_(std::move(documents)) {
  for (const auto& document : documents_) {
    for (const auto& [path, item] : document.at("paths").get_object()) {
      if (const auto* table = item.get_object().if_contains("x-cairn-table")) {
        const std::string slug(table->at("slug").get_string());
        table_slugs_[std::string(table->at("id").get_string())] = slug;
        table_slugs_[Lower(table->at("name").get_string())] = slug;
        table_slugs_[slug] = slug;
      }
    }
  }
}

std::optional<OpenApiConformance::Operation> OpenApiConformance::Find(
    const std::string& method, const std::string& path) const {
  // Split first, then decode, as the server does ("%2f" stays inside its segment).
  std::vector<std::string> segments = Segments(path);
  for (std::string& segment : segments) segment = PercentDecode(segment);
  if (segments.size() >= 3 && segments[0] == "api" && segments[1] == "tables") {
    const auto found = table_slugs_.find(Lower(segments[2]));
    if (found != table_slugs_.end()) {
      segments[2] = found->second;
    } else if (!table_slugs_.empty()) {
      // A table no one configured is still routed by /api/tables/{tableId}/…, which the
      // document lists once per table: any table's path documents its (error) answers.
      segments[2] = table_slugs_.begin()->second;
    }
  }
  std::optional<Operation> best;
  int best_literals = -1;
  for (std::size_t index = 0; index < documents_.size(); ++index) {
    for (const auto& [template_path, item] : documents_[index].at("paths").get_object()) {
      const std::vector<std::string> parts = Segments(template_path);
      // A last {name} of a rest-of-path route ({name...}) takes every remaining segment.
      const bool rest = item.get_object().contains("x-cairn-rest-of-path");
      if (rest ? segments.size() < parts.size() : parts.size() != segments.size()) continue;
      int literals = 0;
      bool match = true;
      for (std::size_t i = 0; i < parts.size() && match; ++i) {
        if (parts[i].starts_with('{')) {
          match = !segments[i].empty();
        } else {
          match = parts[i] == segments[i];
          ++literals;
        }
      }
      if (!match) continue;
      const auto* operation = item.get_object().if_contains(Lower(method));
      if (operation == nullptr || literals <= best_literals) continue;
      best_literals = literals;
      best = Operation{&operation->at("responses").get_object(), index, std::string(template_path)};
    }
  }
  return best;
}

const boost::json::value* OpenApiConformance::FormatBranch(std::size_t document,
                                                           const boost::json::value& schema,
                                                           const std::string& format) const {
  const auto* any_of = schema.is_object() ? schema.get_object().if_contains("anyOf") : nullptr;
  if (any_of == nullptr || !any_of->is_array()) return nullptr;
  const auto& components = documents_[document].at("components").at("schemas").get_object();
  for (const auto& branch : any_of->get_array()) {
    const auto* ref = branch.is_object() ? branch.get_object().if_contains("$ref") : nullptr;
    if (ref == nullptr || !ref->is_string()) continue;
    const std::string_view name = ref->get_string();
    if (!name.starts_with(kComponentRef)) continue;
    const auto* target = components.if_contains(name.substr(kComponentRef.size()));
    const auto* marked = target != nullptr && target->is_object()
                             ? target->get_object().if_contains("x-cairn-format")
                             : nullptr;
    if (marked != nullptr && marked->is_string() && marked->get_string() == format) return &branch;
  }
  return nullptr;
}

const json::JsonSchema* OpenApiConformance::SchemaFor(std::size_t document, const std::string& key,
                                                      const boost::json::value& schema,
                                                      std::string& error) {
  auto& slot = compiled_[key];
  if (!slot) {
    boost::json::value defs = documents_[document].at("components").at("schemas");
    boost::json::value root =
        boost::json::object{{"$defs", std::move(defs)}, {"allOf", boost::json::array{schema}}};
    RewriteRefs(root);
    auto compiled = json::JsonSchema::Compile(root);
    if (!compiled.ok()) {
      error = "the document's schema does not compile: " + compiled.error().message;
      compiled_.erase(key);
      return nullptr;
    }
    slot = std::make_unique<json::JsonSchema>(std::move(compiled).value());
  }
  return slot.get();
}

std::string OpenApiConformance::Check(const std::string& method, const std::string& target,
                                      int status, const std::string& content_type,
                                      const std::string& body) {
  const std::size_t query_at = target.find('?');
  const std::string path = target.substr(0, query_at);
  const std::string query = query_at == std::string::npos ? "" : target.substr(query_at);
  if (!path.starts_with("/api/")) return {};
  const std::string where = method + " " + target + " → " + std::to_string(status);
  const auto operation = Find(method, path);
  // 404/405 for paths no route has are the dispatcher's, not an operation's.
  if (!operation) {
    return status == 404 || status == 405 ? "" : where + ": no operation in the document";
  }
  const boost::json::object& responses = *operation->responses;
  const std::string code = std::to_string(status);
  const std::string range = code.substr(0, 1) + "XX";
  const boost::json::value* response = responses.if_contains(code);
  std::string key = code;
  if (response == nullptr) response = responses.if_contains(range), key = range;
  if (response == nullptr) response = responses.if_contains("default"), key = "default";
  if (response == nullptr) return where + ": status not in the document";
  // A shared answer: {"$ref":"#/components/responses/<name>"}.
  if (const auto* ref = response->get_object().if_contains("$ref")) {
    constexpr std::string_view kResponseRef = "#/components/responses/";
    const std::string_view name = std::string_view(ref->get_string()).substr(kResponseRef.size());
    response = documents_[operation->document]
                   .at("components")
                   .at("responses")
                   .get_object()
                   .if_contains(name);
    if (response == nullptr) return where + ": an unknown shared response";
  }
  if (body.empty() || !content_type.starts_with("application/json")) return {};
  const auto* content = response->get_object().if_contains("content");
  if (content == nullptr) return where + ": a body where the document has none";
  const auto* media = content->get_object().if_contains("application/json");
  if (media == nullptr || !media->get_object().contains("schema")) return {};
  // A read taking `format` answers the anyOf of a raw and a display shape, each marked with
  // x-cairn-format: the answer must match the one this request asked for.
  std::string format = QueryValue(query, "format");
  if (format.empty()) format = "raw";
  const boost::json::value* expected = &media->at("schema");
  if (const auto* branch = FormatBranch(operation->document, *expected, format)) {
    expected = branch;
    key += " " + format;
  }
  boost::system::error_code parse_error;
  const boost::json::value instance = boost::json::parse(body, parse_error);
  if (parse_error) return where + ": the body is not JSON";
  std::lock_guard lock(mutex_);
  std::string error;
  const json::JsonSchema* schema = SchemaFor(
      operation->document,
      std::to_string(operation->document) + " " + method + " " + operation->path + " " + key,
      *expected, error);
  if (schema == nullptr) return where + ": " + error;
  std::vector<json::SchemaIssue> issues;
  ++validated_;
  if (schema->Validate(instance, issues)) return {};
  std::string message = where + ": the body does not match the document:";
  for (const auto& issue : issues) message += " [" + issue.path + "] " + issue.message + ";";
  return message + " body " + body.substr(0, 300);
}

}  // namespace cairn::test
