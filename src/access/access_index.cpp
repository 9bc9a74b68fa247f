#include "access/access_index.hpp"

#include <algorithm>
#include <functional>
#include <stdexcept>

namespace cairn::access {
namespace {

void AddRolesOf(const std::optional<config::PermissionRule>& rule,
                std::vector<std::string>& roles) {
  if (rule && rule->kind == config::PermissionRule::Kind::kRoles) {
    roles.insert(roles.end(), rule->roles.begin(), rule->roles.end());
  }
}

}  // namespace

AccessIndex AccessIndex::Build(const config::AppConfig& config) {
  AccessIndex index;
  index.config_ = &config;
  // Validation admits only known roles in lists; collecting the listed names as well keeps the
  // shared entry exact for a config built some other way.
  std::vector<std::string>& roles = index.roles_;
  for (std::string_view role : kBuiltInRoles) roles.emplace_back(role);
  if (config.auth) {
    for (const config::Role& role : config.auth->roles) roles.push_back(role.name);
  }
  for (const config::Table& table : config.tables) {
    for (Action action : AllActions()) AddRolesOf(ConfiguredRule(table.permissions, action), roles);
    for (const config::FieldPermission& field : table.permissions.fields) {
      AddRolesOf(field.read, roles);
      AddRolesOf(field.write, roles);
    }
  }
  std::sort(roles.begin(), roles.end());
  roles.erase(std::unique(roles.begin(), roles.end()), roles.end());

  index.entries_.reserve(config.tables.size() * (roles.size() + 1));
  for (const config::Table& table : config.tables) {
    for (const std::string& role : roles) index.entries_.push_back(TableAccess(table, role));
    index.entries_.push_back(TableAccess(table, static_cast<const std::string_view*>(nullptr)));
  }
  return index;
}

std::size_t AccessIndex::TableIndex(const config::Table& table) const {
  if (config_ != nullptr && !config_->tables.empty()) {
    const auto& tables = config_->tables;
    const std::less<const config::Table*> before;
    if (!before(&table, tables.data()) && before(&table, tables.data() + tables.size())) {
      return static_cast<std::size_t>(&table - tables.data());
    }
  }
  throw std::logic_error("access: table '" + table.name +
                         "' is not one of the indexed config's tables");
}

std::size_t AccessIndex::RoleSlot(std::string_view role) const {
  const auto it = std::lower_bound(roles_.begin(), roles_.end(), role);
  if (it != roles_.end() && *it == role) return static_cast<std::size_t>(it - roles_.begin());
  return roles_.size();
}

const TableAccess& AccessIndex::For(const config::Table& table, std::string_view role) const {
  return entries_[TableIndex(table) * (roles_.size() + 1) + RoleSlot(role)];
}

const TableAccess* AccessIndex::FindReadable(std::string_view table_id,
                                             std::string_view role) const {
  if (config_ == nullptr) return nullptr;
  const config::Table* table = config_->FindTable(table_id);
  if (table == nullptr) return nullptr;
  const TableAccess& access = For(*table, role);
  return access.Can(Action::kRead) ? &access : nullptr;
}

}  // namespace cairn::access
