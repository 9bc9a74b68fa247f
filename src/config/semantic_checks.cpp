#include "config/semantic_checks.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "common/json.hpp"
#include "config/check_helpers.hpp"
#include "config/field_checks.hpp"
#include "config/model.hpp"

namespace cairn::config {
namespace {

using boost::json::array;
using boost::json::object;
using boost::json::value;
using checks::ArrayAt;
using checks::AsObject;
using checks::Contains;
using checks::Hint;
using checks::IdText;
using checks::Join;
using checks::Lower;
using checks::NumberAt;
using checks::StringAt;
using json::PathIndex;
using json::PathKey;

constexpr std::string_view kBuiltinRoles[] = {"admin", "member", "viewer"};
constexpr std::string_view kValueFreeOperators[] = {"isEmpty",   "isNotEmpty", "isNull",
                                                    "isNotNull", "isTrue",     "isFalse"};
constexpr std::string_view kListOperators[] = {"in", "notIn", "containsAny", "containsAll"};
// Record keys that views may filter and sort on besides the declared fields (D37).
constexpr std::string_view kSystemRecordKeys[] = {"id", "createdAt", "updatedAt"};
constexpr int kMaxFilterDepth = 8;
constexpr int kMaxFilterLeaves = 100;

struct FieldInfo {
  const object* field = nullptr;
  std::string name;
  std::string type;
};

struct TableInfo {
  const object* table = nullptr;
  std::string name;
  std::string path;
  std::vector<FieldInfo> fields;
  std::vector<std::string> field_names;

  const FieldInfo* Find(std::string_view field_name) const {
    for (const FieldInfo& field : fields) {
      if (field.name == field_name) return &field;
    }
    return nullptr;
  }
};

std::string RelationTypeOf(const object& field) {
  return std::string(StringAt(field, "relationType").value_or("many-to-one"));
}

// Fields that are not a column of their own table (computed or kept in a junction table).
bool IsStoredColumn(const FieldInfo& field) {
  if (field.type != "relationship") return true;
  return RelationTypeOf(*field.field) == "many-to-one";
}

class Checker {
 public:
  explicit Checker(const value& document) : root_(AsObject(&document)) {}

  std::vector<json::SchemaIssue> Run() {
    if (!root_) return {};
    CollectRoles();
    CollectBuckets();
    CollectTables();
    CheckTableIdentity();
    for (const TableInfo& table : tables_) CheckTable(table);
    CheckBuckets();
    CheckAuth();
    return std::move(issues_);
  }

 private:
  void Add(std::string path, std::string message) {
    issues_.push_back({std::move(path), std::move(message)});
  }

  // --- collection -----------------------------------------------------------------------------

  void CollectRoles() {
    for (std::string_view role : kBuiltinRoles) roles_.emplace_back(role);
    const object* auth = AsObject(root_->if_contains("auth"));
    if (!auth) return;
    if (const array* roles = ArrayAt(*auth, "roles")) {
      for (const value& role : *roles) {
        const object* r = AsObject(&role);
        if (!r) continue;
        if (auto name = StringAt(*r, "name"); name && !Contains(kBuiltinRoles, *name)) {
          roles_.emplace_back(*name);
        }
      }
    }
  }

  void CollectBuckets() {
    bucket_names_.emplace_back("default");
    if (const array* buckets = ArrayAt(*root_, "buckets")) {
      for (const value& bucket : *buckets) {
        const object* b = AsObject(&bucket);
        if (!b) continue;
        if (auto name = StringAt(*b, "name"); name && *name != "default") {
          bucket_names_.emplace_back(*name);
        }
      }
    }
  }

  void CollectTables() {
    const array* tables = ArrayAt(*root_, "tables");
    if (!tables) return;
    for (std::size_t i = 0; i < tables->size(); ++i) {
      const object* table = AsObject(&(*tables)[i]);
      if (!table) continue;
      TableInfo info;
      info.table = table;
      info.name = std::string(StringAt(*table, "name").value_or(""));
      info.path = PathIndex("tables", i);
      if (const array* fields = ArrayAt(*table, "fields")) {
        for (const value& field : *fields) {
          const object* f = AsObject(&field);
          FieldInfo field_info;
          field_info.field = f;
          if (f) {
            field_info.name = std::string(StringAt(*f, "name").value_or(""));
            field_info.type = std::string(StringAt(*f, "type").value_or(""));
          }
          info.fields.push_back(field_info);
          if (!field_info.name.empty()) info.field_names.push_back(field_info.name);
        }
      }
      tables_.push_back(std::move(info));
    }
  }

  // By name (exact, then case-insensitive) or slug, like AppConfig::FindTable.
  const TableInfo* ResolveTable(std::string_view name) const {
    for (const TableInfo& table : tables_) {
      if (table.name == name) return &table;
    }
    const std::string lowered = Lower(name);
    for (const TableInfo& table : tables_) {
      if (!table.name.empty() && Lower(table.name) == lowered) return &table;
    }
    for (const TableInfo& table : tables_) {
      if (!table.name.empty() && TableSlug(table.name) == name) return &table;
    }
    return nullptr;
  }

  std::vector<std::string> TableNames() const {
    std::vector<std::string> names;
    for (const TableInfo& table : tables_) {
      if (!table.name.empty()) names.push_back(table.name);
    }
    return names;
  }

  // --- tables ---------------------------------------------------------------------------------

  void CheckTableIdentity() {
    std::map<std::string, std::size_t> names, slugs, sql_names, ids;
    for (std::size_t i = 0; i < tables_.size(); ++i) {
      const TableInfo& table = tables_[i];
      if (!table.name.empty()) {
        const std::string name_path = PathKey(table.path, "name");
        const std::string slug = TableSlug(table.name);
        const std::string sql = TableSqlName(table.name);
        if (auto [it, fresh] = names.emplace(Lower(table.name), i); !fresh) {
          Add(name_path, "duplicate table name '" + table.name + "' (" + tables_[it->second].path +
                             " has the same name; names are compared case-insensitively)");
        } else if (auto [slug_it, slug_fresh] = slugs.emplace(slug, i); !slug_fresh) {
          Add(name_path, "table name '" + table.name + "' gives the same URL slug '" + slug +
                             "' as " + tables_[slug_it->second].path + " ('" +
                             tables_[slug_it->second].name + "')");
        } else if (auto [sql_it, sql_fresh] = sql_names.emplace(sql, i); !sql_fresh) {
          Add(name_path, "table name '" + table.name + "' gives the same SQL table name '" + sql +
                             "' as " + tables_[sql_it->second].path + " ('" +
                             tables_[sql_it->second].name + "')");
        }
      }
      const value* id = table.table->if_contains("id");
      if (auto text = IdText(id)) {
        if (auto [it, fresh] = ids.emplace(*text, i); !fresh) {
          Add(PathKey(table.path, "id"),
              "duplicate table id " + *text + " (also used by " + tables_[it->second].path + ")");
        }
      }
    }
  }

  void CheckTable(const TableInfo& table) {
    const std::string fields_path = PathKey(table.path, "fields");
    std::map<std::string, std::size_t> names;
    std::map<std::string, std::size_t> ids;
    for (std::size_t j = 0; j < table.fields.size(); ++j) {
      const FieldInfo& field = table.fields[j];
      if (!field.field) continue;
      const std::string path = PathIndex(fields_path, j);
      if (!field.name.empty()) {
        if (auto [it, fresh] = names.emplace(field.name, j); !fresh) {
          Add(PathKey(path, "name"), "duplicate field name '" + field.name + "' (also " +
                                         PathIndex(fields_path, it->second) + ")");
        }
      }
      if (auto id = IdText(field.field->if_contains("id"))) {
        if (auto [it, fresh] = ids.emplace(*id, j); !fresh) {
          Add(PathKey(path, "id"),
              "duplicate field id " + *id + " (also " + PathIndex(fields_path, it->second) + ")");
        }
      }
      CheckField(table, field, path);
    }
    CheckViews(table);
    CheckIndexes(table);
    CheckTablePermissions(table);
  }

  void CheckSystemName(const FieldInfo& field, const std::string& path) {
    static const std::map<std::string_view, std::string_view> kReserved = {
        {"id", ""},
        {"created_at", ""},
        {"deleted_at", ""},
        {"updated_at", "updated-at"},
        {"created_by", "created-by"},
        {"updated_by", "updated-by"},
        {"deleted_by", "deleted-by"}};
    auto it = kReserved.find(field.name);
    if (it == kReserved.end()) return;
    if (it->second.empty()) {
      Add(PathKey(path, "name"),
          "'" + field.name + "' is a system column and cannot be used as a field name");
    } else if (field.type != it->second) {
      Add(PathKey(path, "name"), "'" + field.name + "' is a system column; only a field of type " +
                                     std::string(it->second) + " may use this name");
    }
  }

  void CheckField(const TableInfo& table, const FieldInfo& field, const std::string& path) {
    const object& f = *field.field;
    CheckSystemName(field, path);
    const auto type = ParseFieldType(field.type);
    if (!type) return;
    CheckFieldValues(*type, f, path, issues_);
    switch (*type) {
      case FieldType::kRelationship:
        CheckRelationship(table, field, path);
        break;
      case FieldType::kAttachment:
      case FieldType::kMultipleAttachments:
        if (auto bucket = StringAt(f, "bucket");
            bucket &&
            std::find(bucket_names_.begin(), bucket_names_.end(), *bucket) == bucket_names_.end()) {
          Add(PathKey(path, "bucket"), "unknown bucket '" + std::string(*bucket) + "'" +
                                           Hint(*bucket, bucket_names_) +
                                           "; declared buckets: " + Join(bucket_names_));
        }
        break;
      default:
        break;
    }
  }

  void CheckRelationship(const TableInfo& table, const FieldInfo& field, const std::string& path) {
    const object& f = *field.field;
    const std::string relation = RelationTypeOf(f);
    if (relation != "many-to-one") {
      for (std::string_view key : {"unique", "indexed"}) {
        if (const value* flag = f.if_contains(key); flag && flag->is_bool() && flag->get_bool()) {
          Add(PathKey(path, key), std::string(key) + " is not supported for a " + relation +
                                      " relationship (it has no column of its own)");
        }
      }
    }
    const auto related_name = StringAt(f, "relatedTable");
    if (!related_name) return;
    const TableInfo* related = ResolveTable(*related_name);
    if (!related) {
      const std::vector<std::string> names = TableNames();
      Add(PathKey(path, "relatedTable"), "unknown table '" + std::string(*related_name) + "'" +
                                             Hint(*related_name, names) +
                                             "; tables: " + Join(names));
      return;
    }
    if (auto display = StringAt(f, "displayField"); display && !related->Find(*display)) {
      Add(PathKey(path, "displayField"), "table '" + related->name + "' has no field '" +
                                             std::string(*display) + "'" +
                                             Hint(*display, related->field_names));
    }
    if (relation != "one-to-many") return;
    // One-to-many is computed from a many-to-one field of the related table pointing back here.
    auto points_back = [&](const FieldInfo& other) {
      if (!other.field || other.type != "relationship" ||
          RelationTypeOf(*other.field) != "many-to-one") {
        return false;
      }
      auto target = StringAt(*other.field, "relatedTable");
      return target && ResolveTable(*target) == &table;
    };
    if (auto key = StringAt(f, "foreignKey")) {
      const FieldInfo* other = related->Find(*key);
      if (!other) {
        Add(PathKey(path, "foreignKey"), "table '" + related->name + "' has no field '" +
                                             std::string(*key) + "'" +
                                             Hint(*key, related->field_names));
      } else if (!points_back(*other)) {
        Add(PathKey(path, "foreignKey"),
            "field '" + std::string(*key) + "' of table '" + related->name +
                "' must be a many-to-one relationship to table '" + table.name + "'");
      }
    } else if (std::none_of(related->fields.begin(), related->fields.end(), points_back)) {
      Add(PathKey(path, "relationType"),
          "a one-to-many relationship needs a many-to-one relationship field in table '" +
              related->name + "' whose relatedTable is '" + table.name + "'");
    }
  }

  // --- views ----------------------------------------------------------------------------------

  bool IsRecordKey(const TableInfo& table, std::string_view name) const {
    return table.Find(name) != nullptr || Contains(kSystemRecordKeys, name);
  }

  void UnknownField(const TableInfo& table, std::string_view name, const std::string& path) {
    Add(path, "table '" + table.name + "' has no field '" + std::string(name) + "'" +
                  Hint(name, table.field_names));
  }

  void CheckViews(const TableInfo& table) {
    const array* views = ArrayAt(*table.table, "views");
    if (!views) return;
    const std::string views_path = PathKey(table.path, "views");
    std::map<std::string, std::size_t> ids, names;
    for (std::size_t k = 0; k < views->size(); ++k) {
      const object* view = AsObject(&(*views)[k]);
      if (!view) continue;
      const std::string path = PathIndex(views_path, k);
      if (auto id = IdText(view->if_contains("id"))) {
        if (auto [it, fresh] = ids.emplace(*id, k); !fresh) {
          Add(PathKey(path, "id"),
              "duplicate view id '" + *id + "' (also " + PathIndex(views_path, it->second) + ")");
        }
      }
      if (auto name = StringAt(*view, "name")) {
        if (auto [it, fresh] = names.emplace(std::string(*name), k); !fresh) {
          Add(PathKey(path, "name"), "duplicate view name '" + std::string(*name) + "' (also " +
                                         PathIndex(views_path, it->second) + ")");
        }
      }
      if (const value* filters = view->if_contains("filters")) {
        int leaves = 0;
        CheckFilter(table, *filters, PathKey(path, "filters"), 1, leaves);
        if (leaves > kMaxFilterLeaves) {
          Add(PathKey(path, "filters"), "has " + std::to_string(leaves) + " conditions; at most " +
                                            std::to_string(kMaxFilterLeaves) + " are allowed");
        }
      }
      if (const array* sorts = ArrayAt(*view, "sorts")) {
        for (std::size_t s = 0; s < sorts->size(); ++s) {
          const object* sort = AsObject(&(*sorts)[s]);
          if (!sort) continue;
          if (auto field = StringAt(*sort, "field"); field && !IsRecordKey(table, *field)) {
            UnknownField(table, *field, PathKey(PathIndex(PathKey(path, "sorts"), s), "field"));
          }
        }
      }
    }
  }

  void CheckFilter(const TableInfo& table, const value& node, const std::string& path, int depth,
                   int& leaves) {
    const object* filter = AsObject(&node);
    if (!filter) return;
    for (std::string_view group : {"and", "or"}) {
      const array* children = ArrayAt(*filter, group);
      if (!children) continue;
      if (depth > kMaxFilterDepth) {
        Add(path,
            "filter groups are nested more than " + std::to_string(kMaxFilterDepth) + " deep");
        return;
      }
      for (std::size_t i = 0; i < children->size(); ++i) {
        CheckFilter(table, (*children)[i], PathIndex(PathKey(path, group), i), depth + 1, leaves);
      }
      return;
    }
    if (filter->contains("and") || filter->contains("or")) return;
    ++leaves;
    if (auto field = StringAt(*filter, "field"); field && !IsRecordKey(table, *field)) {
      UnknownField(table, *field, PathKey(path, "field"));
    }
    const auto op = StringAt(*filter, "operator");
    if (!op || Contains(kValueFreeOperators, *op)) return;
    const value* operand = filter->if_contains("value");
    if (!operand) {
      Add(PathKey(path, "value"), "operator '" + std::string(*op) + "' needs a value");
    } else if (Contains(kListOperators, *op) && !operand->is_array()) {
      Add(PathKey(path, "value"), "operator '" + std::string(*op) + "' needs an array of values");
    }
  }

  // --- indexes and permissions ----------------------------------------------------------------

  void CheckIndexes(const TableInfo& table) {
    const array* indexes = ArrayAt(*table.table, "indexes");
    if (!indexes) return;
    for (std::size_t k = 0; k < indexes->size(); ++k) {
      const object* index = AsObject(&(*indexes)[k]);
      if (!index) continue;
      const std::string fields_path =
          PathKey(PathIndex(PathKey(table.path, "indexes"), k), "fields");
      const array* fields = ArrayAt(*index, "fields");
      if (!fields) continue;
      for (std::size_t m = 0; m < fields->size(); ++m) {
        if (!(*fields)[m].is_string()) continue;
        const std::string_view name = (*fields)[m].get_string();
        const FieldInfo* field = table.Find(name);
        if (!field) {
          UnknownField(table, name, PathIndex(fields_path, m));
        } else if (!IsStoredColumn(*field)) {
          Add(PathIndex(fields_path, m),
              "field '" + std::string(name) + "' has no column of its own and cannot be indexed");
        }
      }
    }
  }

  void CheckPermissionValue(const value* rule, const std::string& path) {
    if (!rule || !rule->is_array()) return;
    const array& roles = rule->get_array();
    for (std::size_t i = 0; i < roles.size(); ++i) {
      if (!roles[i].is_string()) continue;
      const std::string_view role = roles[i].get_string();
      if (std::find(roles_.begin(), roles_.end(), role) != roles_.end()) continue;
      Add(PathIndex(path, i), "unknown role '" + std::string(role) + "'" + Hint(role, roles_) +
                                  "; known roles: " + Join(roles_));
    }
  }

  void CheckTablePermissions(const TableInfo& table) {
    const object* permissions = AsObject(table.table->if_contains("permissions"));
    if (!permissions) return;
    const std::string path = PathKey(table.path, "permissions");
    for (std::string_view action :
         {"read", "create", "update", "delete", "restore", "permanentDelete", "comment"}) {
      CheckPermissionValue(permissions->if_contains(action), PathKey(path, action));
    }
    const array* fields = ArrayAt(*permissions, "fields");
    if (!fields) return;
    std::map<std::string, std::size_t> seen;
    for (std::size_t i = 0; i < fields->size(); ++i) {
      const object* rule = AsObject(&(*fields)[i]);
      if (!rule) continue;
      const std::string rule_path = PathIndex(PathKey(path, "fields"), i);
      if (auto field = StringAt(*rule, "field")) {
        if (!table.Find(*field)) {
          UnknownField(table, *field, PathKey(rule_path, "field"));
        } else if (auto [it, fresh] = seen.emplace(std::string(*field), i); !fresh) {
          Add(PathKey(rule_path, "field"),
              "field '" + std::string(*field) + "' already has a rule (" +
                  PathIndex(PathKey(path, "fields"), it->second) + ")");
        }
      }
      CheckPermissionValue(rule->if_contains("read"), PathKey(rule_path, "read"));
      CheckPermissionValue(rule->if_contains("write"), PathKey(rule_path, "write"));
    }
  }

  // --- buckets and auth -----------------------------------------------------------------------

  void CheckBuckets() {
    const array* buckets = ArrayAt(*root_, "buckets");
    if (!buckets) return;
    std::map<std::string, std::size_t> seen;
    for (std::size_t k = 0; k < buckets->size(); ++k) {
      const object* bucket = AsObject(&(*buckets)[k]);
      if (!bucket) continue;
      const std::string path = PathIndex("buckets", k);
      const auto name = StringAt(*bucket, "name");
      if (name) {
        if (auto [it, fresh] = seen.emplace(std::string(*name), k); !fresh) {
          Add(PathKey(path, "name"), "duplicate bucket name '" + std::string(*name) + "' (also " +
                                         PathIndex("buckets", it->second) + ")");
        }
        const value* is_public = bucket->if_contains("public");
        if (*name == "default" && is_public && is_public->is_bool() && is_public->get_bool()) {
          Add(PathKey(path, "public"), "the bucket 'default' is always private");
        }
      }
      if (const object* permissions = AsObject(bucket->if_contains("permissions"))) {
        for (std::string_view action : {"sign", "signUpload", "download", "delete"}) {
          CheckPermissionValue(permissions->if_contains(action),
                               PathKey(PathKey(path, "permissions"), action));
        }
      }
    }
  }

  void CheckAuth() {
    const object* auth = AsObject(root_->if_contains("auth"));
    if (!auth) return;
    if (const array* roles = ArrayAt(*auth, "roles")) {
      std::map<std::string, std::size_t> seen;
      for (std::size_t k = 0; k < roles->size(); ++k) {
        const object* role = AsObject(&(*roles)[k]);
        if (!role) continue;
        const auto name = StringAt(*role, "name");
        if (!name) continue;
        const std::string path = PathKey(PathIndex("auth.roles", k), "name");
        if (Contains(kBuiltinRoles, *name)) {
          Add(path,
              "'" + std::string(*name) +
                  "' is a built-in role (admin, member, viewer); custom roles need other names");
        } else if (auto [it, fresh] = seen.emplace(std::string(*name), k); !fresh) {
          Add(path, "duplicate role name '" + std::string(*name) + "' (also " +
                        PathIndex("auth.roles", it->second) + ")");
        }
      }
    }
    if (auto role = StringAt(*auth, "defaultRole");
        role && std::find(roles_.begin(), roles_.end(), *role) == roles_.end()) {
      Add("auth.defaultRole", "unknown role '" + std::string(*role) + "'" + Hint(*role, roles_) +
                                  "; known roles: " + Join(roles_));
    }
    const array* strategies = ArrayAt(*auth, "strategies");
    if (!strategies) return;
    std::map<std::string, std::size_t> seen;
    for (std::size_t k = 0; k < strategies->size(); ++k) {
      const object* strategy = AsObject(&(*strategies)[k]);
      if (!strategy) continue;
      const std::string path = PathIndex("auth.strategies", k);
      const auto type = StringAt(*strategy, "type");
      if (!type) continue;
      if (auto [it, fresh] = seen.emplace(std::string(*type), k); !fresh) {
        Add(PathKey(path, "type"), "strategy '" + std::string(*type) +
                                       "' is declared twice (also " +
                                       PathIndex("auth.strategies", it->second) + ")");
      }
      if (*type != "emailAndPassword") continue;
      const auto min = NumberAt(*strategy, "minPasswordLength");
      const auto max = NumberAt(*strategy, "maxPasswordLength");
      if ((min || max) && min.value_or(8) > max.value_or(128)) {
        Add(PathKey(path, min ? "minPasswordLength" : "maxPasswordLength"),
            "minPasswordLength (" + std::to_string(static_cast<long long>(min.value_or(8))) +
                ") is greater than maxPasswordLength (" +
                std::to_string(static_cast<long long>(max.value_or(128))) + ")");
      }
    }
  }

  const object* root_;
  std::vector<std::string> roles_;
  std::vector<std::string> bucket_names_;
  std::vector<TableInfo> tables_;
  std::vector<json::SchemaIssue> issues_;
};

}  // namespace

std::vector<json::SchemaIssue> CheckSemantics(const boost::json::value& document) {
  return Checker(document).Run();
}

}  // namespace cairn::config
