#include "common/json_schema.hpp"

#include <algorithm>
#include <cctype>

#include "common/json_schema_node.hpp"

namespace cairn::json {

struct JsonSchema::Compiled {
  std::vector<schema_detail::Node> nodes;  // nodes[0] is the root
};

namespace {

std::string Lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Optimal string alignment distance (Levenshtein plus adjacent transpositions).
std::size_t EditDistance(const std::string& a, const std::string& b) {
  const std::size_t n = a.size(), m = b.size();
  std::vector<std::vector<std::size_t>> d(n + 1, std::vector<std::size_t>(m + 1));
  for (std::size_t i = 0; i <= n; ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= m; ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= n; ++i) {
    for (std::size_t j = 1; j <= m; ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[n][m];
}

}  // namespace

Result<JsonSchema> JsonSchema::Compile(const boost::json::value& schema) {
  auto nodes = schema_detail::CompileNodes(schema);
  if (!nodes.ok()) return std::move(nodes).error();
  auto compiled = std::make_shared<Compiled>();
  compiled->nodes = std::move(nodes).value();
  return JsonSchema(std::move(compiled));
}

bool JsonSchema::Validate(const boost::json::value& instance, std::vector<SchemaIssue>& issues,
                          std::string_view base_path) const {
  return schema_detail::ValidateNodes(compiled_->nodes, instance, &issues, base_path);
}

bool JsonSchema::IsValid(const boost::json::value& instance) const {
  return schema_detail::ValidateNodes(compiled_->nodes, instance, nullptr, {});
}

std::optional<std::string> SuggestClosest(std::string_view word,
                                          std::span<const std::string> candidates) {
  if (word.size() < 3 || word.size() > 64) return std::nullopt;
  const std::string lowered = Lower(word);
  const std::size_t limit = word.size() <= 4 ? 1 : 2;
  std::optional<std::string> best;
  std::size_t best_distance = limit + 1;
  for (const std::string& candidate : candidates) {
    if (candidate.size() > word.size() + limit || candidate.size() + limit < word.size()) continue;
    const std::size_t distance = EditDistance(lowered, Lower(candidate));
    if (distance < best_distance) {
      best_distance = distance;
      best = candidate;
    }
  }
  return best;
}

bool JsonEquals(const boost::json::value& a, const boost::json::value& b) {
  if (a.is_number() && b.is_number()) {
    if (a.is_double() || b.is_double())
      return schema_detail::AsDouble(a) == schema_detail::AsDouble(b);
    if (a.is_int64() && b.is_int64()) return a.get_int64() == b.get_int64();
    if (a.is_uint64() && b.is_uint64()) return a.get_uint64() == b.get_uint64();
    const auto& signed_value = a.is_int64() ? a : b;
    const auto& unsigned_value = a.is_int64() ? b : a;
    return signed_value.get_int64() >= 0 &&
           static_cast<std::uint64_t>(signed_value.get_int64()) == unsigned_value.get_uint64();
  }
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case boost::json::kind::array: {
      const auto& x = a.get_array();
      const auto& y = b.get_array();
      if (x.size() != y.size()) return false;
      for (std::size_t i = 0; i < x.size(); ++i) {
        if (!JsonEquals(x[i], y[i])) return false;
      }
      return true;
    }
    case boost::json::kind::object: {
      const auto& x = a.get_object();
      const auto& y = b.get_object();
      if (x.size() != y.size()) return false;
      for (const auto& member : x) {
        const auto* other = y.if_contains(member.key());
        if (other == nullptr || !JsonEquals(member.value(), *other)) return false;
      }
      return true;
    }
    default:
      return a == b;
  }
}

std::size_t CodePointCount(std::string_view text) {
  std::size_t count = 0;
  for (char c : text) {
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++count;
  }
  return count;
}

}  // namespace cairn::json
