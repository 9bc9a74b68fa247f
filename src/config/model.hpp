// The validated application configuration. Built only by the loader after validation succeeds,
// so every member here already satisfies the spec's rules (see docs/config.md).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json/value.hpp>

namespace cairn::config {

enum class FieldType {
  kSingleLineText,
  kLongText,
  kPhoneNumber,
  kEmail,
  kUrl,
  kInteger,
  kDecimal,
  kCurrency,
  kPercentage,
  kDate,
  kDatetime,
  kTime,
  kCheckbox,
  kSingleSelect,
  kMultiSelect,
  kRelationship,
  kCreatedBy,
  kUpdatedBy,
  kDeletedBy,
  kUpdatedAt,
  kAttachment,
  kMultipleAttachments,
  kDuration,
  kJson,
};

// The wire name of a type (`single-line-text`, …).
std::string_view FieldTypeName(FieldType type);
std::optional<FieldType> ParseFieldType(std::string_view name);
// Every type, in declaration order.
std::span<const FieldType> AllFieldTypes();

// D7: lowercase, every character other than a-z and 0-9 becomes '-'.
std::string TableSlug(std::string_view table_name);
// The physical table name: lowercase, ' ' and '-' become '_'.
std::string TableSqlName(std::string_view table_name);

enum class RelationType { kManyToOne, kOneToMany, kManyToMany };
enum class OnDelete { kRestrict, kCascade, kSetNull };

// A permission value: `all`, `authenticated`, or a list of role names.
struct PermissionRule {
  enum class Kind { kAll, kAuthenticated, kRoles };
  Kind kind = Kind::kAll;
  std::vector<std::string> roles;
};

struct FieldPermission {
  std::string field;
  std::optional<PermissionRule> read;   // absent: unrestricted
  std::optional<PermissionRule> write;  // absent: unrestricted
};

// D20. Absent rules take the defaults of D20 when evaluated (access/ applies them).
struct TablePermissions {
  std::optional<PermissionRule> read, create, update, remove, restore, permanent_delete, comment;
  std::vector<FieldPermission> fields;
};

struct Field {
  std::int64_t id = 0;
  std::string name;  // also the SQL column name (pattern ^[a-z][a-z0-9_]*$), always quoted
  FieldType type = FieldType::kSingleLineText;
  bool required = false;
  bool unique = false;
  bool indexed = false;
  boost::json::value default_value;  // null when absent
  // Every type-specific property exactly as written (already validated).
  boost::json::object properties;

  // Typed views of the properties the backend needs.
  std::optional<double> min, max;
  int scale = 0;                      // decimal places for decimal, currency, percentage
  std::vector<std::string> options;   // single-select, multi-select
  std::optional<int> max_selections;  // multi-select
  std::string currency;               // currency
  std::string related_table;          // relationship: related table name
  RelationType relation_type = RelationType::kManyToOne;
  // one-to-many: the many-to-one field of the related table that points back here (`foreignKey`,
  // or the first such field when it is not written).
  std::string foreign_key;
  OnDelete on_delete = OnDelete::kSetNull;
  // attachment, multiple-attachments (D45): the bucket its files live in, the media types they
  // may have (exact, `type/*` or `*/*`; empty: any), their largest size in bytes and, for
  // multiple-attachments, how many files a value holds at most.
  std::string bucket = "default";
  std::vector<std::string> allowed_file_types;
  std::optional<std::int64_t> max_file_size;
  std::optional<std::int64_t> max_files;
};

struct IndexSpec {
  std::vector<std::string> fields;
  bool unique = false;
};

struct ViewSort {
  std::string field;
  bool descending = false;
};

struct View {
  std::string id;  // as written (integer ids are kept as their decimal text)
  std::string name;
  boost::json::value filters;  // the and/or tree, null when absent
  std::vector<ViewSort> sorts;
};

struct Table {
  std::int64_t id = 0;
  std::string name;      // as written
  std::string slug;      // lowercase, non-alphanumerics to '-' (D7)
  std::string sql_name;  // physical table name: lowercase, ' ' and '-' to '_'; always quoted
  std::vector<Field> fields;
  std::vector<View> views;
  TablePermissions permissions;
  std::vector<IndexSpec> indexes;

  const Field* FindField(std::string_view field_name) const;
};

struct BucketPermissions {
  std::optional<PermissionRule> sign, sign_upload, download, remove;
};

struct Bucket {
  std::string name;
  bool is_public = false;
  std::optional<std::int64_t> max_file_size;
  std::vector<std::string> allowed_mime_types;
  std::optional<BucketPermissions> permissions;  // absent: admin only (D43)
};

struct Role {
  std::string name;
  std::string description;
  std::optional<bool> storage_sign, storage_sign_upload;
};

struct AuthStrategy {
  std::string type;  // emailAndPassword, magicLink, emailOtp, oauth
  boost::json::object properties;
};

struct AuthConfig {
  std::vector<AuthStrategy> strategies;
  bool allow_sign_up = true;
  std::string default_role = "member";
  std::vector<Role> roles;  // custom roles; admin, member, viewer are built in
  bool require_email_verification = false;
  bool auto_sign_in = true;  // emailAndPassword.autoSignIn: sign-up starts a session
  int min_password_length = 8;
  int max_password_length = 128;
  bool two_factor = false;
  bool organizations = false;  // Better Auth's organization plugin routes (D19)

  // Whether `strategies` holds a strategy of this type (`emailAndPassword`, `oauth`, …).
  bool HasStrategy(std::string_view type) const;
};

// `analytics` (D54, docs/analytics.md): `true` is every default; an object is on unless it says
// `enabled: false`.
struct AnalyticsConfig {
  int retention_days = 365;                 // 1–730: older events are deleted
  std::vector<std::string> excluded_paths;  // globs (`*` any run of characters): never recorded
  bool respect_do_not_track = false;        // `DNT: 1` → nothing recorded
  int session_timeout_minutes = 30;         // 1–120: a gap this long starts a new session
};

struct AppConfig {
  std::string name;
  std::string version;
  std::string description;
  std::vector<Table> tables;
  std::vector<Bucket> buckets;  // always contains the private bucket `default` (D40)
  std::optional<AuthConfig> auth;
  std::optional<AnalyticsConfig> analytics;  // absent: analytics off (its routes answer 404)
  // The whole validated document ($refs resolved): what app/not_served.cpp inspects, and what
  // schema versions store and GET /api/admin/schema/export returns.
  boost::json::value document;

  // By id, name (case-insensitive) or slug (D7).
  const Table* FindTable(std::string_view id_name_or_slug) const;
  const Bucket* FindBucket(std::string_view name) const;
};

}  // namespace cairn::config
