// Nothing inert: every config key and setting that cairn accepts but this build does not act on
// is listed here, in one table (not_served.cpp), so `cairn validate` and `cairn serve` say so
// instead of letting it look served. An issue that makes one of them real removes its entry.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json/value.hpp>

#include "app/settings.hpp"
#include "config/config_issue.hpp"
#include "config/loader.hpp"
#include "config/location_map.hpp"

namespace cairn::app {

enum class NoticeKind {
  kNotServed,       // accepted, but the feature it configures is not in this build: a warning
  kNoBackendEffect  // drives nothing by design (D6), kept for the planned export: an info
};

// What an entry looks at: the validated config document and, when given, the environment.
struct NotServedProbe {
  const boost::json::value& document;
  const EnvLookup* env;
};

// One row of the table: a config key (`buckets`, `tables[].fields[].bucket`) or a setting
// (`STORAGE_PUBLIC_PATHS`, `<PROVIDER>_CLIENT_ID`), and why it has no effect.
struct NotServedEntry {
  std::string_view name;
  NoticeKind kind;
  bool is_setting;
  std::string_view why;
  // Appends the key paths (or setting names) where it is set; null for a plain setting, which
  // is set when the environment variable `name` is set and not empty (as LoadSettings reads it).
  void (*detect)(const NotServedProbe& probe, std::vector<std::string>& where);
};

// One key or setting that is set: its key path (`tables[0].fields[4].bucket`) or setting name.
struct NotServedFinding {
  std::string subject;
  const NotServedEntry* entry = nullptr;
};

// The whole table, for documentation and tests.
std::span<const NotServedEntry> NotServedTable();

// Every entry that `document` (a validated config) sets and, when `env` is given, every setting
// set in it, in table order.
std::vector<NotServedFinding> FindNotServed(const boost::json::value& document,
                                            const EnvLookup* env);

// `app.yaml:12: buckets: accepted, not served by this build: why`: a config key with where it
// was written, a setting with its name.
std::string FormatNotServed(const NotServedFinding& finding, const config::LocationMap& locations);

struct NotServedLine {
  NoticeKind kind;
  std::string text;
};

// What `cairn validate` prints and `cairn serve` logs for a loaded config (and, with `env`, the
// settings): config keys in the order they were written, then settings in table order.
std::vector<NotServedLine> NotServedReport(const config::LoadOutcome& outcome,
                                           const EnvLookup* env);

}  // namespace cairn::app
