#include "config/model.hpp"

#include <algorithm>
#include <array>
#include <charconv>

namespace cairn::config {
namespace {

struct TypeName {
  FieldType type;
  std::string_view name;
};

constexpr std::array<TypeName, 24> kTypeNames = {{
    {FieldType::kSingleLineText, "single-line-text"},
    {FieldType::kLongText, "long-text"},
    {FieldType::kPhoneNumber, "phone-number"},
    {FieldType::kEmail, "email"},
    {FieldType::kUrl, "url"},
    {FieldType::kInteger, "integer"},
    {FieldType::kDecimal, "decimal"},
    {FieldType::kCurrency, "currency"},
    {FieldType::kPercentage, "percentage"},
    {FieldType::kDate, "date"},
    {FieldType::kDatetime, "datetime"},
    {FieldType::kTime, "time"},
    {FieldType::kCheckbox, "checkbox"},
    {FieldType::kSingleSelect, "single-select"},
    {FieldType::kMultiSelect, "multi-select"},
    {FieldType::kRelationship, "relationship"},
    {FieldType::kCreatedBy, "created-by"},
    {FieldType::kUpdatedBy, "updated-by"},
    {FieldType::kDeletedBy, "deleted-by"},
    {FieldType::kUpdatedAt, "updated-at"},
    {FieldType::kAttachment, "attachment"},
    {FieldType::kMultipleAttachments, "multiple-attachments"},
    {FieldType::kDuration, "duration"},
    {FieldType::kJson, "json"},
}};

constexpr std::array<FieldType, kTypeNames.size()> MakeAllTypes() {
  std::array<FieldType, kTypeNames.size()> types{};
  for (std::size_t i = 0; i < kTypeNames.size(); ++i) types[i] = kTypeNames[i].type;
  return types;
}

constexpr std::array<FieldType, kTypeNames.size()> kAllTypes = MakeAllTypes();

char Lower(char c) {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(),
                                            [](char x, char y) { return Lower(x) == Lower(y); });
}

}  // namespace

std::string_view FieldTypeName(FieldType type) {
  for (const auto& entry : kTypeNames) {
    if (entry.type == type) return entry.name;
  }
  return "unknown";
}

std::optional<FieldType> ParseFieldType(std::string_view name) {
  for (const auto& entry : kTypeNames) {
    if (entry.name == name) return entry.type;
  }
  return std::nullopt;
}

std::span<const FieldType> AllFieldTypes() {
  return kAllTypes;
}

std::string TableSlug(std::string_view table_name) {
  std::string slug;
  slug.reserve(table_name.size());
  for (char c : table_name) {
    const char lower = Lower(c);
    const bool alnum = (lower >= 'a' && lower <= 'z') || (lower >= '0' && lower <= '9');
    slug.push_back(alnum ? lower : '-');
  }
  return slug;
}

std::string TableSqlName(std::string_view table_name) {
  std::string sql;
  sql.reserve(table_name.size());
  for (char c : table_name) sql.push_back((c == ' ' || c == '-') ? '_' : Lower(c));
  return sql;
}

const Field* Table::FindField(std::string_view field_name) const {
  for (const Field& field : fields) {
    if (field.name == field_name) return &field;
  }
  return nullptr;
}

const Table* AppConfig::FindTable(std::string_view id_name_or_slug) const {
  if (id_name_or_slug.empty()) return nullptr;
  std::int64_t id = 0;
  const char* end = id_name_or_slug.data() + id_name_or_slug.size();
  if (auto [ptr, ec] = std::from_chars(id_name_or_slug.data(), end, id);
      ec == std::errc() && ptr == end) {
    for (const Table& table : tables) {
      if (table.id == id) return &table;
    }
    return nullptr;
  }
  for (const Table& table : tables) {
    if (table.name == id_name_or_slug) return &table;
  }
  for (const Table& table : tables) {
    if (EqualsIgnoreCase(table.name, id_name_or_slug)) return &table;
  }
  for (const Table& table : tables) {
    if (table.slug == id_name_or_slug) return &table;
  }
  return nullptr;
}

bool AuthConfig::HasStrategy(std::string_view type) const {
  return std::any_of(strategies.begin(), strategies.end(),
                     [type](const AuthStrategy& strategy) { return strategy.type == type; });
}

const Bucket* AppConfig::FindBucket(std::string_view bucket_name) const {
  for (const Bucket& bucket : buckets) {
    if (bucket.name == bucket_name) return &bucket;
  }
  return nullptr;
}

}  // namespace cairn::config
