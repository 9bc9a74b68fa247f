#include "db/introspection.hpp"

namespace cairn::db {

std::string AsciiLower(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

const LiveColumn* LiveTable::FindColumn(std::string_view column) const {
  for (const auto& c : columns) {
    if (c.name == column) return &c;
  }
  return nullptr;
}

const LiveIndex* LiveTable::FindIndex(std::string_view index) const {
  for (const auto& i : indexes) {
    if (i.name == index) return &i;
  }
  return nullptr;
}

const LiveTable* LiveSchema::FindTable(std::string_view table) const {
  for (const auto& t : tables) {
    if (t.name == table) return &t;
  }
  return nullptr;
}

}  // namespace cairn::db
