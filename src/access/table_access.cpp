#include "access/table_access.hpp"

#include <algorithm>
#include <functional>

namespace cairn::access {
namespace {

using config::PermissionRule;

constexpr std::array<Action, kActionCount> kActions = {
    Action::kRead,    Action::kCreate,          Action::kUpdate, Action::kDelete,
    Action::kRestore, Action::kPermanentDelete, Action::kComment};

PermissionRule RolesRule(std::vector<std::string> roles) {
  PermissionRule rule;
  rule.kind = PermissionRule::Kind::kRoles;
  rule.roles = std::move(roles);
  return rule;
}

const PermissionRule& AuthenticatedRule() {
  static const PermissionRule kRule{PermissionRule::Kind::kAuthenticated, {}};
  return kRule;
}

const PermissionRule& AdminAndMemberRule() {
  static const PermissionRule kRule =
      RolesRule({std::string(kAdminRole), std::string(kMemberRole)});
  return kRule;
}

const PermissionRule& AdminOnlyRule() {
  static const PermissionRule kRule = RolesRule({std::string(kAdminRole)});
  return kRule;
}

// `role` null: a role that no list names (AccessIndex's shared entry for other roles).
bool Admits(const PermissionRule& rule, const std::string_view* role) {
  if (role != nullptr && *role == kAdminRole) return true;
  switch (rule.kind) {
    case PermissionRule::Kind::kAll:
    case PermissionRule::Kind::kAuthenticated:
      return true;
    case PermissionRule::Kind::kRoles:
      return role != nullptr &&
             std::find(rule.roles.begin(), rule.roles.end(), *role) != rule.roles.end();
  }
  return false;
}

bool Admits(const std::optional<PermissionRule>& rule, const std::string_view* role,
            const PermissionRule& fallback) {
  return Admits(rule ? *rule : fallback, role);
}

}  // namespace

std::span<const Action> AllActions() {
  return kActions;
}

std::string_view ActionName(Action action) {
  switch (action) {
    case Action::kRead:
      return "read";
    case Action::kCreate:
      return "create";
    case Action::kUpdate:
      return "update";
    case Action::kDelete:
      return "delete";
    case Action::kRestore:
      return "restore";
    case Action::kPermanentDelete:
      return "permanentDelete";
    case Action::kComment:
      return "comment";
  }
  return "unknown";
}

const std::optional<PermissionRule>& ConfiguredRule(const config::TablePermissions& permissions,
                                                    Action action) {
  switch (action) {
    case Action::kRead:
      return permissions.read;
    case Action::kCreate:
      return permissions.create;
    case Action::kUpdate:
      return permissions.update;
    case Action::kDelete:
      return permissions.remove;
    case Action::kRestore:
      return permissions.restore;
    case Action::kPermanentDelete:
      return permissions.permanent_delete;
    case Action::kComment:
      return permissions.comment;
  }
  return permissions.read;  // unreachable: every action is listed
}

const PermissionRule& DefaultRule(Action action) {
  switch (action) {
    case Action::kRead:
      return AuthenticatedRule();
    case Action::kPermanentDelete:
      return AdminOnlyRule();
    case Action::kCreate:
    case Action::kUpdate:
    case Action::kDelete:
    case Action::kRestore:
    case Action::kComment:
      return AdminAndMemberRule();
  }
  return AdminOnlyRule();  // unreachable: the safest answer
}

const PermissionRule& EffectiveRule(const config::TablePermissions& permissions, Action action) {
  const auto& configured = ConfiguredRule(permissions, action);
  return configured ? *configured : DefaultRule(action);
}

const PermissionRule& UnrestrictedRule() {
  static const PermissionRule kRule{PermissionRule::Kind::kAll, {}};
  return kRule;
}

bool Matches(const PermissionRule& rule, std::string_view role) {
  return Admits(rule, &role);
}

bool MatchesRule(const std::optional<PermissionRule>& rule, std::string_view role,
                 const PermissionRule& fallback) {
  return Admits(rule, &role, fallback);
}

TableAccess::TableAccess(const config::Table& table, std::string_view role)
    : TableAccess(table, &role) {}

TableAccess::TableAccess(const config::Table& table, const std::string_view* role)
    : table_(&table) {
  const config::TablePermissions& permissions = table.permissions;
  for (Action action : kActions) {
    if (Admits(ConfiguredRule(permissions, action), role, DefaultRule(action))) {
      actions_ |= Bit(action);
    }
  }
  field_bits_.assign(table.fields.size(), 0);
  if (!Can(Action::kRead)) return;  // an invisible table has no visible or writable field

  for (std::size_t i = 0; i < table.fields.size(); ++i) {
    const config::Field& field = table.fields[i];
    const config::FieldPermission* rule = nullptr;
    for (const config::FieldPermission& candidate : permissions.fields) {
      if (candidate.field == field.name) {
        rule = &candidate;
        break;
      }
    }
    std::uint8_t bits = kFieldRead | kFieldWrite;
    if (rule != nullptr) {
      if (!Admits(rule->read, role, UnrestrictedRule())) bits &= ~kFieldRead;
      if (!Admits(rule->write, role, UnrestrictedRule())) bits &= ~kFieldWrite;
    }
    field_bits_[i] = bits;
    if (bits & kFieldRead) readable_.push_back(&field);
    if (bits & kFieldWrite) writable_.push_back(&field);
  }
}

std::uint8_t TableAccess::FieldBits(const config::Field& field) const {
  const auto& fields = table_->fields;
  const std::less<const config::Field*> before;
  if (fields.empty() || before(&field, fields.data()) ||
      !before(&field, fields.data() + fields.size())) {
    return 0;
  }
  return field_bits_[static_cast<std::size_t>(&field - fields.data())];
}

bool TableAccess::CanReadField(const config::Field& field) const {
  return (FieldBits(field) & kFieldRead) != 0;
}

bool TableAccess::CanWriteField(const config::Field& field) const {
  return (FieldBits(field) & kFieldWrite) != 0;
}

bool TableAccess::CanReadField(std::string_view field_name) const {
  const config::Field* field = table_->FindField(field_name);
  return field != nullptr && CanReadField(*field);
}

bool TableAccess::CanWriteField(std::string_view field_name) const {
  const config::Field* field = table_->FindField(field_name);
  return field != nullptr && CanWriteField(*field);
}

}  // namespace cairn::access
