// User agents → browser, operating system and device type, by the uap-core regexes (Debian
// `uap-core`, /usr/share/uap-core/regexes.yaml), compiled once per process with PCRE2's JIT.
// Classifications are cached (bounded LRU): a site's visitors send few distinct user agents.
//
// Device type (docs/analytics.md writes the same rule down), first match wins:
//   bot      uap's device family is `Spider` (crawlers, monitors), or the user agent does not
//            start with `Mozilla/` or `Opera/` as every browser's does (empty, curl, HTTP
//            libraries)
//   tablet   device family iPad, Kindle or one with `Tablet`; or Android without `Mobile` in the
//            user agent (Android tablets leave it out)
//   mobile   operating system iOS, Android, Windows Phone, BlackBerry OS, KaiOS, Symbian OS,
//            Firefox OS or Tizen; or `Mobi` in the user agent
//   desktop  operating system Windows (any), Mac OS X, Linux, Ubuntu, Fedora, Debian, Chrome OS,
//            FreeBSD, OpenBSD or NetBSD
//   other    everything else (TVs, consoles, unknown)
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "common/result.hpp"

namespace cairn::analytics {

inline constexpr std::string_view kUapRegexesPath = "/usr/share/uap-core/regexes.yaml";

struct UserAgentClass {
  std::string browser;      // uap's user agent family (`Chrome`, `Firefox`, `Other`)
  std::string os;           // uap's os family (`Windows`, `Mac OS X`, `Other`)
  std::string device_type;  // bot, tablet, mobile, desktop, other
  bool is_bot() const { return device_type == "bot"; }
};

class UserAgentClassifier {
 public:
  // The classifier of this process, compiling the regexes on the first call (later calls return
  // the same one). An error when the file is missing or a regex does not compile.
  static Result<const UserAgentClassifier*> Shared(std::string_view regexes_path = kUapRegexesPath);

  UserAgentClass Classify(std::string_view user_agent) const;

  struct Tables;
  explicit UserAgentClassifier(std::unique_ptr<Tables> tables);
  ~UserAgentClassifier();

 private:
  std::unique_ptr<Tables> tables_;
};

}  // namespace cairn::analytics
