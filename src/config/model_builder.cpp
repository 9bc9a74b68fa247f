#include "config/model_builder.hpp"

#include <algorithm>
#include <charconv>
#include <string_view>

#include "config/locale_data.hpp"

namespace cairn::config {
namespace {

using boost::json::array;
using boost::json::object;
using boost::json::value;

constexpr int kDefaultDecimalScale = 2;
constexpr int kDefaultCurrencyScale = 2;

// Properties every field has; the rest are kept in Field::properties.
constexpr std::string_view kCommonFieldKeys[] = {"id",     "name",    "type",   "required",
                                                 "unique", "indexed", "default"};

std::string_view Str(const object& o, std::string_view key, std::string_view fallback = {}) {
  const value* v = o.if_contains(key);
  return v && v->is_string() ? std::string_view(v->get_string()) : fallback;
}

bool Bool(const object& o, std::string_view key, bool fallback) {
  const value* v = o.if_contains(key);
  return v && v->is_bool() ? v->get_bool() : fallback;
}

std::optional<double> Number(const object& o, std::string_view key) {
  const value* v = o.if_contains(key);
  if (!v || !v->is_number()) return std::nullopt;
  if (v->is_int64()) return static_cast<double>(v->get_int64());
  if (v->is_uint64()) return static_cast<double>(v->get_uint64());
  return v->get_double();
}

std::optional<std::int64_t> Integer(const value* v) {
  if (!v) return std::nullopt;
  if (v->is_int64()) return v->get_int64();
  if (v->is_uint64()) return static_cast<std::int64_t>(v->get_uint64());
  if (v->is_double()) return static_cast<std::int64_t>(v->get_double());
  if (v->is_string()) {
    std::int64_t id = 0;
    const std::string_view text = v->get_string();
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), id);
    if (ec == std::errc() && ptr == text.data() + text.size()) return id;
  }
  return std::nullopt;
}

const array& Array(const object& o, std::string_view key) {
  static const array kEmpty;
  const value* v = o.if_contains(key);
  return v && v->is_array() ? v->get_array() : kEmpty;
}

std::optional<PermissionRule> Permission(const object& o, std::string_view key) {
  const value* v = o.if_contains(key);
  if (!v) return std::nullopt;
  PermissionRule rule;
  if (v->is_string()) {
    rule.kind = v->get_string() == "all" ? PermissionRule::Kind::kAll
                                         : PermissionRule::Kind::kAuthenticated;
  } else if (v->is_array()) {
    rule.kind = PermissionRule::Kind::kRoles;
    for (const value& role : v->get_array()) {
      if (role.is_string()) rule.roles.emplace_back(role.get_string());
    }
  }
  return rule;
}

// Ids written in the document stay; missing ones get max+1 in array order.
std::vector<std::int64_t> AssignIds(const array& items) {
  std::int64_t next = 0;
  for (const value& item : items) {
    if (item.is_object()) {
      if (auto id = Integer(item.get_object().if_contains("id"))) next = std::max(next, *id);
    }
  }
  std::vector<std::int64_t> ids;
  for (const value& item : items) {
    std::optional<std::int64_t> id;
    if (item.is_object()) id = Integer(item.get_object().if_contains("id"));
    ids.push_back(id ? *id : ++next);
  }
  return ids;
}

Field BuildField(const object& f, std::int64_t id) {
  Field field;
  field.id = id;
  field.name = std::string(Str(f, "name"));
  field.type = ParseFieldType(Str(f, "type")).value_or(FieldType::kSingleLineText);
  field.required = Bool(f, "required", false);
  field.unique = Bool(f, "unique", false);
  field.indexed = Bool(f, "indexed", false);
  if (const value* fallback = f.if_contains("default")) field.default_value = *fallback;
  for (const auto& member : f) {
    const auto* common = std::find(std::begin(kCommonFieldKeys), std::end(kCommonFieldKeys),
                                   std::string_view(member.key()));
    if (common == std::end(kCommonFieldKeys))
      field.properties.emplace(member.key(), member.value());
  }
  field.min = Number(f, "min");
  field.max = Number(f, "max");
  const auto precision = Number(f, "precision");
  switch (field.type) {
    case FieldType::kDecimal:
      field.scale = precision ? static_cast<int>(*precision) : kDefaultDecimalScale;
      break;
    case FieldType::kCurrency:
      field.currency = std::string(Str(f, "currency"));
      field.scale = precision
                        ? static_cast<int>(*precision)
                        : CurrencyFractionDigits(field.currency).value_or(kDefaultCurrencyScale);
      break;
    case FieldType::kPercentage:
      field.scale = precision ? static_cast<int>(*precision) : 0;
      break;
    case FieldType::kSingleSelect:
    case FieldType::kMultiSelect:
      for (const value& option : Array(f, "options")) {
        if (option.is_string()) field.options.emplace_back(option.get_string());
      }
      if (auto max = Number(f, "maxSelections")) field.max_selections = static_cast<int>(*max);
      break;
    case FieldType::kRelationship: {
      field.related_table = std::string(Str(f, "relatedTable"));
      const std::string_view relation = Str(f, "relationType", "many-to-one");
      field.relation_type = relation == "one-to-many"    ? RelationType::kOneToMany
                            : relation == "many-to-many" ? RelationType::kManyToMany
                                                         : RelationType::kManyToOne;
      field.foreign_key = std::string(Str(f, "foreignKey"));
      const std::string_view on_delete = Str(f, "onDelete", "set-null");
      field.on_delete = on_delete == "restrict"  ? OnDelete::kRestrict
                        : on_delete == "cascade" ? OnDelete::kCascade
                                                 : OnDelete::kSetNull;
      break;
    }
    case FieldType::kAttachment:
    case FieldType::kMultipleAttachments:
      field.bucket = std::string(Str(f, "bucket", "default"));
      for (const value& type : Array(f, "allowedFileTypes")) {
        if (type.is_string()) field.allowed_file_types.emplace_back(type.get_string());
      }
      field.max_file_size = Integer(f.if_contains("maxFileSize"));
      field.max_files = Integer(f.if_contains("maxFiles"));
      break;
    default:
      break;
  }
  return field;
}

View BuildView(const object& v) {
  View view;
  const value* id = v.if_contains("id");
  if (id && id->is_string()) {
    view.id = std::string(id->get_string());
  } else if (auto number = Integer(id)) {
    view.id = std::to_string(*number);
  }
  view.name = std::string(Str(v, "name"));
  if (const value* filters = v.if_contains("filters")) view.filters = *filters;
  for (const value& item : Array(v, "sorts")) {
    if (!item.is_object()) continue;
    ViewSort sort;
    sort.field = std::string(Str(item.get_object(), "field"));
    sort.descending = Str(item.get_object(), "direction", "asc") == "desc";
    view.sorts.push_back(std::move(sort));
  }
  return view;
}

TablePermissions BuildTablePermissions(const object& p) {
  TablePermissions permissions;
  permissions.read = Permission(p, "read");
  permissions.create = Permission(p, "create");
  permissions.update = Permission(p, "update");
  permissions.remove = Permission(p, "delete");
  permissions.restore = Permission(p, "restore");
  permissions.permanent_delete = Permission(p, "permanentDelete");
  permissions.comment = Permission(p, "comment");
  for (const value& item : Array(p, "fields")) {
    if (!item.is_object()) continue;
    const object& rule = item.get_object();
    permissions.fields.push_back(
        {std::string(Str(rule, "field")), Permission(rule, "read"), Permission(rule, "write")});
  }
  return permissions;
}

Table BuildTable(const object& t, std::int64_t id) {
  Table table;
  table.id = id;
  table.name = std::string(Str(t, "name"));
  table.slug = TableSlug(table.name);
  table.sql_name = TableSqlName(table.name);
  const array& fields = Array(t, "fields");
  const std::vector<std::int64_t> field_ids = AssignIds(fields);
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (fields[i].is_object())
      table.fields.push_back(BuildField(fields[i].get_object(), field_ids[i]));
  }
  for (const value& view : Array(t, "views")) {
    if (view.is_object()) table.views.push_back(BuildView(view.get_object()));
  }
  if (const value* p = t.if_contains("permissions"); p && p->is_object()) {
    table.permissions = BuildTablePermissions(p->get_object());
  }
  for (const value& item : Array(t, "indexes")) {
    if (!item.is_object()) continue;
    IndexSpec index;
    for (const value& name : Array(item.get_object(), "fields")) {
      if (name.is_string()) index.fields.emplace_back(name.get_string());
    }
    index.unique = Bool(item.get_object(), "unique", false);
    table.indexes.push_back(std::move(index));
  }
  return table;
}

Bucket BuildBucket(const object& b) {
  Bucket bucket;
  bucket.name = std::string(Str(b, "name"));
  bucket.is_public = Bool(b, "public", false);
  bucket.max_file_size = Integer(b.if_contains("maxFileSize"));
  for (const value& type : Array(b, "allowedMimeTypes")) {
    if (type.is_string()) bucket.allowed_mime_types.emplace_back(type.get_string());
  }
  if (const value* p = b.if_contains("permissions"); p && p->is_object()) {
    const object& rules = p->get_object();
    bucket.permissions =
        BucketPermissions{Permission(rules, "sign"), Permission(rules, "signUpload"),
                          Permission(rules, "download"), Permission(rules, "delete")};
  }
  return bucket;
}

AnalyticsConfig BuildAnalytics(const object& a) {
  AnalyticsConfig analytics;
  if (auto days = Integer(a.if_contains("retentionDays"))) {
    analytics.retention_days = static_cast<int>(*days);
  }
  if (auto minutes = Integer(a.if_contains("sessionTimeout"))) {
    analytics.session_timeout_minutes = static_cast<int>(*minutes);
  }
  analytics.respect_do_not_track = Bool(a, "respectDoNotTrack", false);
  for (const value& path : Array(a, "excludedPaths")) {
    if (path.is_string()) analytics.excluded_paths.emplace_back(path.get_string());
  }
  return analytics;
}

AuthConfig BuildAuth(const object& a) {
  AuthConfig auth;
  for (const value& item : Array(a, "strategies")) {
    if (!item.is_object()) continue;
    const object& s = item.get_object();
    AuthStrategy strategy;
    strategy.type = std::string(Str(s, "type"));
    for (const auto& member : s) {
      if (member.key() != "type") strategy.properties.emplace(member.key(), member.value());
    }
    if (strategy.type == "emailAndPassword") {
      auth.require_email_verification = Bool(s, "requireEmailVerification", false);
      auth.auto_sign_in = Bool(s, "autoSignIn", true);
      if (auto min = Number(s, "minPasswordLength"))
        auth.min_password_length = static_cast<int>(*min);
      if (auto max = Number(s, "maxPasswordLength"))
        auth.max_password_length = static_cast<int>(*max);
    }
    auth.strategies.push_back(std::move(strategy));
  }
  auth.allow_sign_up = Bool(a, "allowSignUp", true);
  auth.default_role = std::string(Str(a, "defaultRole", "member"));
  for (const value& item : Array(a, "roles")) {
    if (!item.is_object()) continue;
    const object& r = item.get_object();
    Role role;
    role.name = std::string(Str(r, "name"));
    role.description = std::string(Str(r, "description"));
    if (const value* p = r.if_contains("permissions"); p && p->is_object()) {
      if (const value* storage = p->get_object().if_contains("storage");
          storage && storage->is_object()) {
        const object& s = storage->get_object();
        if (const value* sign = s.if_contains("sign"); sign && sign->is_bool()) {
          role.storage_sign = sign->get_bool();
        }
        if (const value* upload = s.if_contains("signUpload"); upload && upload->is_bool()) {
          role.storage_sign_upload = upload->get_bool();
        }
      }
    }
    auth.roles.push_back(std::move(role));
  }
  auth.two_factor = Bool(a, "twoFactor", false);
  auth.organizations = Bool(a, "organizations", false);
  return auth;
}

// The first many-to-one field of `related_table` whose target is `table` (semantic checks make
// sure one exists for every one-to-many field).
std::string PointingBackField(const AppConfig& config, const Table& table,
                              std::string_view related_table) {
  const Table* related = config.FindTable(related_table);
  if (related == nullptr) return {};
  for (const Field& other : related->fields) {
    if (other.type == FieldType::kRelationship && other.relation_type == RelationType::kManyToOne &&
        config.FindTable(other.related_table) == &table) {
      return other.name;
    }
  }
  return {};
}

}  // namespace

AppConfig BuildAppConfig(const boost::json::value& document) {
  AppConfig config;
  config.document = document;
  if (!document.is_object()) return config;
  const object& root = document.get_object();
  config.name = std::string(Str(root, "name"));
  config.version = std::string(Str(root, "version"));
  config.description = std::string(Str(root, "description"));

  const array& tables = Array(root, "tables");
  const std::vector<std::int64_t> table_ids = AssignIds(tables);
  for (std::size_t i = 0; i < tables.size(); ++i) {
    if (tables[i].is_object())
      config.tables.push_back(BuildTable(tables[i].get_object(), table_ids[i]));
  }
  // Relationship targets may be written as any name the table answers to; keep the canonical one.
  for (Table& table : config.tables) {
    for (Field& field : table.fields) {
      if (field.type != FieldType::kRelationship) continue;
      if (const Table* related = config.FindTable(field.related_table)) {
        field.related_table = related->name;
      }
    }
  }
  for (Table& table : config.tables) {
    for (Field& field : table.fields) {
      if (field.type == FieldType::kRelationship &&
          field.relation_type == RelationType::kOneToMany && field.foreign_key.empty()) {
        field.foreign_key = PointingBackField(config, table, field.related_table);
      }
    }
  }

  for (const value& bucket : Array(root, "buckets")) {
    if (bucket.is_object()) config.buckets.push_back(BuildBucket(bucket.get_object()));
  }
  if (!config.FindBucket("default")) {
    Bucket fallback;
    fallback.name = "default";
    config.buckets.insert(config.buckets.begin(), std::move(fallback));
  }

  if (const value* auth = root.if_contains("auth"); auth && auth->is_object()) {
    config.auth = BuildAuth(auth->get_object());
  }
  if (const value* analytics = root.if_contains("analytics")) {
    if (analytics->is_bool() && analytics->get_bool()) {
      config.analytics = AnalyticsConfig{};
    } else if (const object* a = analytics->if_object(); a && Bool(*a, "enabled", true)) {
      config.analytics = BuildAnalytics(*a);
    }
  }
  return config;
}

}  // namespace cairn::config
