#include "analytics/user_agents.hpp"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <yaml-cpp/yaml.h>

#include <list>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <vector>

#include "analytics/limits.hpp"

namespace cairn::analytics {
namespace {

// Capture groups read from a match: uap's replacements use $1 … $9.
constexpr std::uint32_t kMaxGroups = 10;

struct Parser {
  pcre2_code* code = nullptr;
  std::optional<std::string> replacement;  // with $1 … $9; absent: group 1
};

void FreeParsers(std::vector<Parser>& parsers) {
  for (Parser& parser : parsers) pcre2_code_free(parser.code);
  parsers.clear();
}

// One match data per thread, big enough for every regex (PCRE2 match data is not shareable).
pcre2_match_data* ThreadMatchData() {
  thread_local std::unique_ptr<pcre2_match_data, decltype(&pcre2_match_data_free)> data(
      pcre2_match_data_create(kMaxGroups, nullptr), &pcre2_match_data_free);
  return data.get();
}

std::string_view Group(std::string_view subject, const PCRE2_SIZE* ovector, int count, int n) {
  if (n >= count || ovector[2 * n] == PCRE2_UNSET) return {};
  return subject.substr(ovector[2 * n], ovector[2 * n + 1] - ovector[2 * n]);
}

// The family named by the first parser that matches, or `Other`.
std::string FirstMatch(const std::vector<Parser>& parsers, std::string_view subject) {
  pcre2_match_data* data = ThreadMatchData();
  for (const Parser& parser : parsers) {
    const int count = pcre2_match(parser.code, reinterpret_cast<PCRE2_SPTR>(subject.data()),
                                  subject.size(), 0, 0, data, nullptr);
    if (count <= 0) continue;
    const PCRE2_SIZE* ovector = pcre2_get_ovector_pointer(data);
    std::string family;
    if (!parser.replacement) {
      family = std::string(Group(subject, ovector, count, 1));
    } else {
      const std::string& text = *parser.replacement;
      for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '$' && i + 1 < text.size() && text[i + 1] >= '1' && text[i + 1] <= '9') {
          family += Group(subject, ovector, count, text[i + 1] - '0');
          ++i;
        } else {
          family += text[i];
        }
      }
    }
    // Trim: replacements like "$1 $2" leave spaces when a group is empty.
    const auto first = family.find_first_not_of(' ');
    if (first == std::string::npos) return "Other";
    return family.substr(first, family.find_last_not_of(' ') - first + 1);
  }
  return "Other";
}

Status Compile(const YAML::Node& list, std::string_view replacement_key, std::vector<Parser>& out) {
  if (!list || !list.IsSequence()) return Error::Unavailable("uap-core: a parser list is missing");
  for (const YAML::Node& entry : list) {
    const std::string regex = entry["regex"].as<std::string>();
    std::uint32_t options = 0;
    if (const YAML::Node flag = entry["regex_flag"]; flag && flag.as<std::string>() == "i") {
      options |= PCRE2_CASELESS;
    }
    int error_code = 0;
    PCRE2_SIZE error_offset = 0;
    pcre2_code* code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(regex.data()), regex.size(),
                                     options, &error_code, &error_offset, nullptr);
    if (code == nullptr) {
      PCRE2_UCHAR message[256];
      pcre2_get_error_message(error_code, message, sizeof message);
      return Error::Unavailable("uap-core: a regex does not compile",
                                regex + ": " + reinterpret_cast<const char*>(message));
    }
    // Without JIT (an unsupported CPU) the interpreter still matches, only slower.
    pcre2_jit_compile(code, PCRE2_JIT_COMPLETE);
    Parser parser{code, std::nullopt};
    if (const YAML::Node replacement = entry[std::string(replacement_key)]) {
      parser.replacement = replacement.as<std::string>();
    }
    out.push_back(std::move(parser));
  }
  return {};
}

bool Contains(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

std::string DeviceType(std::string_view user_agent, std::string_view device, std::string_view os) {
  // Every browser's user agent starts with `Mozilla/` (old Opera: `Opera/`); HTTP libraries and
  // tools (curl, python-requests, Go-http-client), which uap-core leaves as `Other`, do not.
  if (device == "Spider" ||
      !(user_agent.starts_with("Mozilla/") || user_agent.starts_with("Opera/"))) {
    return "bot";
  }
  if (device == "iPad" || device == "Kindle" || Contains(device, "Tablet") ||
      (os == "Android" && !Contains(user_agent, "Mobile"))) {
    return "tablet";
  }
  for (std::string_view mobile : {"iOS", "Android", "Windows Phone", "BlackBerry OS", "KaiOS",
                                  "Symbian OS", "Firefox OS", "Tizen"}) {
    if (os == mobile) return "mobile";
  }
  if (Contains(user_agent, "Mobi")) return "mobile";
  if (os.starts_with("Windows")) return "desktop";
  for (std::string_view desktop : {"Mac OS X", "Linux", "Ubuntu", "Fedora", "Debian", "Chrome OS",
                                   "FreeBSD", "OpenBSD", "NetBSD"}) {
    if (os == desktop) return "desktop";
  }
  return "other";
}

}  // namespace

struct UserAgentClassifier::Tables {
  std::vector<Parser> browsers;
  std::vector<Parser> systems;
  std::vector<Parser> devices;
  // The cache: most recently used first.
  std::mutex mutex;
  std::list<std::pair<std::string, UserAgentClass>> recent;
  std::unordered_map<std::string_view, decltype(recent)::iterator> index;

  ~Tables() {
    FreeParsers(browsers);
    FreeParsers(systems);
    FreeParsers(devices);
  }
};

UserAgentClassifier::UserAgentClassifier(std::unique_ptr<Tables> tables)
    : tables_(std::move(tables)) {}
UserAgentClassifier::~UserAgentClassifier() = default;

Result<const UserAgentClassifier*> UserAgentClassifier::Shared(std::string_view regexes_path) {
  static std::mutex mutex;
  static std::unique_ptr<UserAgentClassifier> shared;
  const std::lock_guard lock(mutex);
  if (shared) return static_cast<const UserAgentClassifier*>(shared.get());
  auto tables = std::make_unique<Tables>();
  try {
    const YAML::Node root = YAML::LoadFile(std::string(regexes_path));
    CAIRN_TRY(Compile(root["user_agent_parsers"], "family_replacement", tables->browsers));
    CAIRN_TRY(Compile(root["os_parsers"], "os_replacement", tables->systems));
    CAIRN_TRY(Compile(root["device_parsers"], "device_replacement", tables->devices));
  } catch (const YAML::Exception& e) {
    return Error::Unavailable("analytics needs the uap-core regexes (Debian package uap-core)",
                              std::string(regexes_path) + ": " + e.what());
  }
  shared = std::make_unique<UserAgentClassifier>(std::move(tables));
  return static_cast<const UserAgentClassifier*>(shared.get());
}

UserAgentClass UserAgentClassifier::Classify(std::string_view user_agent) const {
  Tables& tables = *tables_;
  {
    const std::lock_guard lock(tables.mutex);
    if (auto found = tables.index.find(user_agent); found != tables.index.end()) {
      tables.recent.splice(tables.recent.begin(), tables.recent, found->second);
      return found->second->second;
    }
  }
  UserAgentClass result;
  if (!user_agent.empty()) {
    result.browser = FirstMatch(tables.browsers, user_agent);
    result.os = FirstMatch(tables.systems, user_agent);
  } else {
    result.browser = result.os = "Other";
  }
  const std::string device = user_agent.empty() ? "Other" : FirstMatch(tables.devices, user_agent);
  result.device_type = DeviceType(user_agent, device, result.os);

  const std::lock_guard lock(tables.mutex);
  if (tables.index.contains(user_agent)) return result;  // another thread was faster
  tables.recent.emplace_front(std::string(user_agent), result);
  tables.index.emplace(tables.recent.front().first, tables.recent.begin());
  if (tables.recent.size() > kUserAgentCacheSize) {
    tables.index.erase(tables.recent.back().first);
    tables.recent.pop_back();
  }
  return result;
}

}  // namespace cairn::analytics
