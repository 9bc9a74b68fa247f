// A bound SQL parameter. Values are always bound, never spliced into SQL text.
// Semantic kinds (timestamp, decimal, json) let each backend pick its own wire form.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>

namespace cairn::db {

struct Null {};
struct Timestamp {
  std::int64_t epoch_millis = 0;
};
// An exact decimal: units / 10^scale (D9). SQLite stores `units`; PostgreSQL stores NUMERIC.
struct Decimal {
  std::int64_t units = 0;
  int scale = 0;
};
struct Json {
  std::string text;
};
struct Blob {
  std::string bytes;
};

using Value = std::variant<Null, bool, std::int64_t, double, std::string, std::string_view,
                           Timestamp, Decimal, Json, Blob>;

}  // namespace cairn::db
