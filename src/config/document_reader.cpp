#include "config/document_reader.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <optional>
#include <regex>
#include <sstream>

#include <yaml-cpp/yaml.h>
#include <boost/json/parser.hpp>

#include "common/json.hpp"
#include "config/json_lines.hpp"

namespace cairn::config {
namespace {

constexpr int kMaxIncludeDepth = 16;
constexpr std::uintmax_t kMaxFileSize = 16u * 1024 * 1024;

// Where one file's content sits: its display name, its directory (for includes) and the chain of
// files that included it (for cycle detection).
struct FileContext {
  std::string display;                       // as shown in issues
  std::filesystem::path dir;                 // includes resolve against this
  std::filesystem::path display_dir;         // display names of includes are built from this
  std::vector<std::filesystem::path> chain;  // canonical paths, outermost first
  std::vector<std::string> chain_display;
};

bool IsYamlPath(const std::filesystem::path& path) {
  const std::string ext = path.extension().string();
  return ext == ".yaml" || ext == ".yml";
}

bool IsJsonPath(const std::filesystem::path& path) {
  return path.extension().string() == ".json";
}

std::optional<std::string> ReadWholeFile(const std::filesystem::path& path, std::string& error) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    error = std::filesystem::exists(path, ec) ? "not a regular file" : "file not found";
    return std::nullopt;
  }
  if (std::filesystem::file_size(path, ec) > kMaxFileSize) {
    error = "file is larger than 16 MB";
    return std::nullopt;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = "cannot open file";
    return std::nullopt;
  }
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string_view StripBom(std::string_view text) {
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  return text;
}

// ---------------------------------------------------------------------------------------------
// YAML scalars, YAML 1.2 core schema.

enum class ScalarKind { kNull, kBool, kInt, kFloat, kString };

ScalarKind ClassifyPlain(const std::string& text) {
  static const std::regex kInt(R"(^[-+]?[0-9]+$)");
  static const std::regex kOctal(R"(^0o[0-7]+$)");
  static const std::regex kHex(R"(^0x[0-9a-fA-F]+$)");
  static const std::regex kFloat(R"(^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$)");
  static const std::regex kSpecial(R"(^([-+]?\.(inf|Inf|INF)|\.(nan|NaN|NAN))$)");
  if (text.empty() || text == "~" || text == "null" || text == "Null" || text == "NULL") {
    return ScalarKind::kNull;
  }
  if (text == "true" || text == "True" || text == "TRUE" || text == "false" || text == "False" ||
      text == "FALSE") {
    return ScalarKind::kBool;
  }
  const char first = text[0];
  const bool numeric_start =
      (first >= '0' && first <= '9') || first == '-' || first == '+' || first == '.';
  if (!numeric_start) return ScalarKind::kString;
  if (std::regex_match(text, kInt) || std::regex_match(text, kOctal) ||
      std::regex_match(text, kHex)) {
    return ScalarKind::kInt;
  }
  if (std::regex_match(text, kFloat) || std::regex_match(text, kSpecial)) return ScalarKind::kFloat;
  return ScalarKind::kString;
}

std::optional<boost::json::value> ParseYamlInt(const std::string& text) {
  int base = 10;
  std::string_view digits = text;
  bool negative = false;
  if (digits.starts_with("0o")) {
    base = 8;
    digits.remove_prefix(2);
  } else if (digits.starts_with("0x")) {
    base = 16;
    digits.remove_prefix(2);
  } else if (!digits.empty() && (digits[0] == '-' || digits[0] == '+')) {
    negative = digits[0] == '-';
    digits.remove_prefix(1);
  }
  std::uint64_t magnitude = 0;
  const char* end = digits.data() + digits.size();
  auto [ptr, ec] = std::from_chars(digits.data(), end, magnitude, base);
  if (ptr != end) return std::nullopt;
  if (ec == std::errc::result_out_of_range) return boost::json::value(std::stod(text));
  if (negative) {
    if (magnitude <= static_cast<std::uint64_t>(INT64_MAX)) {
      return boost::json::value(-static_cast<std::int64_t>(magnitude));
    }
    if (magnitude == static_cast<std::uint64_t>(INT64_MAX) + 1) {
      return boost::json::value(INT64_MIN);
    }
    return boost::json::value(-static_cast<double>(magnitude));
  }
  if (magnitude <= static_cast<std::uint64_t>(INT64_MAX)) {
    return boost::json::value(static_cast<std::int64_t>(magnitude));
  }
  return boost::json::value(magnitude);
}

std::optional<boost::json::value> ParseYamlFloat(const std::string& text) {
  if (text.find("inf") != std::string::npos || text.find("Inf") != std::string::npos ||
      text.find("INF") != std::string::npos || text.find("nan") != std::string::npos ||
      text.find("NaN") != std::string::npos || text.find("NAN") != std::string::npos) {
    return std::nullopt;
  }
  std::string_view digits = text;
  if (digits.starts_with('+')) digits.remove_prefix(1);
  double number = 0;
  auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), number);
  if (ec != std::errc() || ptr != digits.data() + digits.size() || !std::isfinite(number)) {
    return std::nullopt;
  }
  return boost::json::value(number);
}

// ---------------------------------------------------------------------------------------------

class Reader {
 public:
  ReadResult Read(std::string_view text, bool yaml, FileContext file) {
    result_.yaml = yaml;
    if (auto document = Parse(text, yaml, file, "")) {
      result_.document = std::move(*document);
      if (result_.document.is_null() && !result_.fatal) {
        Issue("", "the config is empty", file.display, 1, true);
      }
      ResolveIncludes(result_.document, "", file);
    }
    return std::move(result_);
  }

  void Issue(std::string path, std::string message, std::string file, int line, bool fatal) {
    result_.issues.push_back({std::move(path), std::move(message), std::move(file), line});
    if (fatal) result_.fatal = true;
  }

 private:
  std::optional<boost::json::value> Parse(std::string_view text, bool yaml, const FileContext& file,
                                          const std::string& path) {
    text = StripBom(text);
    return yaml ? ParseYaml(text, file, path) : ParseJson(text, file, path);
  }

  std::optional<boost::json::value> ParseJson(std::string_view text, const FileContext& file,
                                              const std::string& path) {
    boost::json::parser parser;
    boost::json::error_code ec;
    const std::size_t consumed = parser.write(text.data(), text.size(), ec);
    if (ec) {
      const auto [line, column] = LineColumn(text, consumed);
      Issue(path, "JSON syntax error at column " + std::to_string(column) + ": " + ec.message(),
            file.display, line, true);
      return std::nullopt;
    }
    MapJsonLines(text, path, file.display, result_.locations, result_.issues);
    return parser.release();
  }

  std::optional<boost::json::value> ParseYaml(std::string_view text, const FileContext& file,
                                              const std::string& path) {
    YAML::Node root;
    try {
      root = YAML::Load(std::string(text));
    } catch (const YAML::Exception& e) {
      const int line = e.mark.is_null() ? 0 : e.mark.line + 1;
      std::string message = "YAML syntax error";
      if (!e.mark.is_null()) message += " at column " + std::to_string(e.mark.column + 1);
      Issue(path, message + ": " + e.msg, file.display, line, true);
      return std::nullopt;
    }
    const int line = root.Mark().is_null() || root.Mark().line < 0 ? 1 : root.Mark().line + 1;
    result_.locations.Set(path, {file.display, line});
    return FromYaml(root, path, file, 0);
  }

  boost::json::value FromYaml(const YAML::Node& node, const std::string& path,
                              const FileContext& file, int depth) {
    const int line = node.Mark().is_null() ? 0 : node.Mark().line + 1;
    if (depth > 256) {
      Issue(path, "nested too deeply", file.display, line, true);
      return nullptr;
    }
    switch (node.Type()) {
      case YAML::NodeType::Sequence: {
        boost::json::array array;
        std::size_t index = 0;
        for (auto it = node.begin(); it != node.end(); ++it) {
          const YAML::Node item = *it;
          const std::string child = json::PathIndex(path, index++);
          result_.locations.Set(child, {file.display, item.Mark().line + 1});
          array.push_back(FromYaml(item, child, file, depth + 1));
        }
        return array;
      }
      case YAML::NodeType::Map: {
        boost::json::object object;
        for (auto it = node.begin(); it != node.end(); ++it) {
          const YAML::Node key = it->first;
          const YAML::Node item = it->second;
          const int key_line = key.Mark().line + 1;
          if (!key.IsScalar()) {
            Issue(path, "keys must be plain strings", file.display, key_line, false);
            continue;
          }
          const std::string& name = key.Scalar();
          const std::string child = json::PathKey(path, name);
          if (object.contains(name)) {
            Issue(child, "duplicate key '" + name + "'", file.display, key_line, false);
          }
          result_.locations.Set(child, {file.display, key_line});
          object[name] = FromYaml(item, child, file, depth + 1);
        }
        return object;
      }
      case YAML::NodeType::Scalar:
        return Scalar(node, path, file, line);
      default:
        return nullptr;  // null and undefined
    }
  }

  boost::json::value Scalar(const YAML::Node& node, const std::string& path,
                            const FileContext& file, int line) {
    const std::string& tag = node.Tag();
    const std::string& text = node.Scalar();
    ScalarKind kind;
    if (tag == "!") {
      kind = ScalarKind::kString;  // quoted or block scalar
    } else if (tag == "?" || tag.empty()) {
      kind = ClassifyPlain(text);
    } else if (tag == "tag:yaml.org,2002:str") {
      kind = ScalarKind::kString;
    } else if (tag == "tag:yaml.org,2002:int") {
      kind = ScalarKind::kInt;
    } else if (tag == "tag:yaml.org,2002:float") {
      kind = ScalarKind::kFloat;
    } else if (tag == "tag:yaml.org,2002:bool") {
      kind = ScalarKind::kBool;
    } else if (tag == "tag:yaml.org,2002:null") {
      kind = ScalarKind::kNull;
    } else {
      Issue(path, "unsupported YAML tag '" + tag + "'", file.display, line, false);
      return boost::json::string(text);
    }
    switch (kind) {
      case ScalarKind::kNull:
        return nullptr;
      case ScalarKind::kBool:
        if (text == "true" || text == "True" || text == "TRUE") return true;
        if (text == "false" || text == "False" || text == "FALSE") return false;
        break;
      case ScalarKind::kInt:
        if (auto number = ParseYamlInt(text)) return *number;
        break;
      case ScalarKind::kFloat:
        if (auto number = ParseYamlFloat(text)) return *number;
        Issue(path, "'" + text + "': infinite and NaN numbers are not supported", file.display,
              line, false);
        return nullptr;
      case ScalarKind::kString:
        return boost::json::string(text);
    }
    Issue(path, "'" + text + "' does not match its tag " + tag, file.display, line, false);
    return boost::json::string(text);
  }

  // An include is an object that is exactly {"$ref": "<file>"}; `#…` refs are JSON pointers (for
  // example inside a json field's schema) and are left alone.
  static bool IsInclude(const boost::json::value& value) {
    if (!value.is_object() || value.get_object().size() != 1) return false;
    const auto* ref = value.get_object().if_contains("$ref");
    return ref != nullptr && ref->is_string() && !ref->get_string().starts_with("#");
  }

  void ResolveIncludes(boost::json::value& value, const std::string& path,
                       const FileContext& file) {
    if (IsInclude(value)) {
      Include(value, path, file);
      return;
    }
    if (value.is_object()) {
      for (auto& member : value.get_object()) {
        ResolveIncludes(member.value(), json::PathKey(path, member.key()), file);
      }
    } else if (value.is_array()) {
      auto& array = value.get_array();
      for (std::size_t i = 0; i < array.size(); ++i) {
        ResolveIncludes(array[i], json::PathIndex(path, i), file);
      }
    }
  }

  void Include(boost::json::value& value, const std::string& path, const FileContext& file) {
    const std::string ref_path = json::PathKey(path, "$ref");
    const int line = result_.locations.Find(ref_path).line;
    const std::string ref(value.get_object().at("$ref").get_string());
    auto fail = [&](const std::string& message) {
      Issue(ref_path, message, file.display, line, true);
    };
    const std::filesystem::path relative(ref);
    if (ref.empty() || relative.is_absolute() || ref.find("://") != std::string::npos) {
      fail("'" + ref + "': an include must be a relative file path");
      return;
    }
    if (!IsYamlPath(relative) && !IsJsonPath(relative)) {
      fail("'" + ref + "': an included file must end in .yaml, .yml or .json");
      return;
    }
    if (file.chain.size() >= kMaxIncludeDepth) {
      fail("'" + ref + "': includes are nested more than " + std::to_string(kMaxIncludeDepth) +
           " deep");
      return;
    }
    const std::filesystem::path target = file.dir / relative;
    std::error_code ec;
    const std::filesystem::path canonical = std::filesystem::weakly_canonical(target, ec);
    FileContext child;
    child.display = (file.display_dir / relative).lexically_normal().string();
    if (std::find(file.chain.begin(), file.chain.end(), canonical) != file.chain.end()) {
      std::string cycle;
      for (const auto& name : file.chain_display) cycle += name + " -> ";
      fail("include cycle: " + cycle + child.display);
      return;
    }
    std::string error;
    auto text = ReadWholeFile(target, error);
    if (!text) {
      fail("cannot include '" + ref + "': " + error);
      return;
    }
    child.dir = target.parent_path();
    child.display_dir = std::filesystem::path(child.display).parent_path();
    child.chain = file.chain;
    child.chain.push_back(canonical);
    child.chain_display = file.chain_display;
    child.chain_display.push_back(child.display);
    auto included = Parse(*text, IsYamlPath(relative), child, path);
    if (!included) return;
    ResolveIncludes(*included, path, child);
    value = std::move(*included);
  }

  ReadResult result_;
};

}  // namespace

ReadResult ReadConfigFile(const std::filesystem::path& file) {
  FileContext context;
  context.display = file.string();
  context.dir = file.parent_path();
  context.display_dir = file.parent_path();
  std::error_code ec;
  context.chain.push_back(std::filesystem::weakly_canonical(file, ec));
  context.chain_display.push_back(context.display);
  Reader reader;
  const bool yaml = !IsJsonPath(file);
  if (!IsYamlPath(file) && !IsJsonPath(file)) {
    ReadResult result;
    result.issues.push_back(
        {"", "a config file must end in .yaml, .yml or .json", context.display, 0});
    result.fatal = true;
    return result;
  }
  std::string error;
  auto text = ReadWholeFile(file, error);
  if (!text) {
    ReadResult result;
    result.issues.push_back({"", "cannot read the config: " + error, context.display, 0});
    result.fatal = true;
    return result;
  }
  return reader.Read(*text, yaml, std::move(context));
}

ReadResult ReadConfigText(std::string_view text, bool yaml, const std::filesystem::path& base_dir,
                          std::string display_name) {
  FileContext context;
  context.display = std::move(display_name);
  context.dir = base_dir;
  context.display_dir =
      context.display.empty() ? base_dir : std::filesystem::path(context.display).parent_path();
  if (!context.display.empty()) context.chain_display.push_back(context.display);
  Reader reader;
  return reader.Read(text, yaml, std::move(context));
}

}  // namespace cairn::config
