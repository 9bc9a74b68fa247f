#include "schema_edit/config_merge.hpp"

#include <string>

#include <boost/json.hpp>

namespace cairn::schema_edit {
namespace {

const boost::json::value* Member(const boost::json::value& object, std::string_view key) {
  if (!object.is_object()) return nullptr;
  return object.as_object().if_contains(key);
}

bool Same(const boost::json::value* a, const boost::json::value* b) {
  if (a == nullptr || b == nullptr) return a == b;
  return *a == *b;
}

// A table's identity across versions: its id, else its name.
std::string TableKey(const boost::json::value& table) {
  if (const auto* id = Member(table, "id")) return "id:" + boost::json::serialize(*id);
  if (const auto* name = Member(table, "name")) return "name:" + boost::json::serialize(*name);
  return "table:" + boost::json::serialize(table);
}

const boost::json::value* FindTable(const boost::json::value& tables, const std::string& key) {
  if (!tables.is_array()) return nullptr;
  for (const auto& table : tables.as_array()) {
    if (TableKey(table) == key) return &table;
  }
  return nullptr;
}

boost::json::value MergeTables(const boost::json::value& base, const boost::json::value& draft,
                               const boost::json::value& active) {
  boost::json::array merged;
  for (const auto& table : active.as_array()) {
    const std::string key = TableKey(table);
    const auto* in_base = FindTable(base, key);
    const auto* in_draft = FindTable(draft, key);
    if (in_base == nullptr) {
      merged.push_back(table);  // added by the other publish
    } else if (Same(in_base, in_draft)) {
      merged.push_back(table);  // untouched by the draft
    } else if (in_draft != nullptr) {
      merged.push_back(*in_draft);  // the draft's edit wins
    }                               // removed by the draft: stays removed
  }
  for (const auto& table : draft.as_array()) {
    const std::string key = TableKey(table);
    if (FindTable(active, key) == nullptr && FindTable(base, key) == nullptr) {
      merged.push_back(table);  // added by the draft
    }
  }
  return merged;
}

}  // namespace

boost::json::value RebaseSnapshot(const boost::json::value& base, const boost::json::value& draft,
                                  const boost::json::value& active) {
  if (!base.is_object() || !draft.is_object() || !active.is_object()) return draft;
  boost::json::object merged;
  std::vector<std::string> keys;
  for (const boost::json::value* document : {&active, &draft}) {
    for (const auto& member : document->as_object()) {
      const std::string key(member.key());
      if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(key);
    }
  }
  for (const std::string& key : keys) {
    const auto* in_base = Member(base, key);
    const auto* in_draft = Member(draft, key);
    const auto* in_active = Member(active, key);
    if (key == "tables" && in_base && in_draft && in_active && in_base->is_array() &&
        in_draft->is_array() && in_active->is_array()) {
      merged[key] = MergeTables(*in_base, *in_draft, *in_active);
    } else if (Same(in_base, in_draft)) {
      if (in_active != nullptr) merged[key] = *in_active;
    } else if (in_draft != nullptr) {
      merged[key] = *in_draft;
    }
  }
  return merged;
}

}  // namespace cairn::schema_edit
