// Table and field permissions (D20, D21): what one role may do with one table and its fields.
// Pure evaluation over config::TablePermissions: no HTTP, no SQL, no I/O.
//
// Rules, in order:
//   - `admin` may always do everything, whatever the config says.
//   - An action whose rule is configured follows it: `all` and `authenticated` admit every
//     signed-in role (records always need a session, D17); a list admits the roles it names.
//   - An action whose rule is absent takes the D20 default: read → every signed-in role;
//     create, update, delete, restore, comment → admin and member; permanentDelete → admin.
//   - A field rule's absent read or write is unrestricted. A role that cannot read the table can
//     neither read nor write any of its fields (the table is invisible to it, D21).
//
// Role names match exactly (case-sensitive). A role the config never names (a custom role since
// removed, say) is a signed-in role in no list: it gets what `all`/`authenticated` and the
// read default give.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "config/model.hpp"

namespace cairn::access {

inline constexpr std::string_view kAdminRole = "admin";
inline constexpr std::string_view kMemberRole = "member";
inline constexpr std::string_view kViewerRole = "viewer";
// The built-in roles, always known; custom roles come from the config's auth.roles.
inline constexpr std::array<std::string_view, 3> kBuiltInRoles = {kAdminRole, kMemberRole,
                                                                  kViewerRole};

enum class Action { kRead, kCreate, kUpdate, kDelete, kRestore, kPermanentDelete, kComment };
inline constexpr std::size_t kActionCount = 7;

// Every action, in declaration order.
std::span<const Action> AllActions();
// The action's key under `permissions` in the config and on the wire: read, create, update,
// delete, restore, permanentDelete, comment.
std::string_view ActionName(Action action);

// The rule configured for `action`, or nullopt when the config leaves it to the default.
const std::optional<config::PermissionRule>& ConfiguredRule(
    const config::TablePermissions& permissions, Action action);
// The D20 default for `action`: `authenticated` for read, [admin, member] for create, update,
// delete, restore and comment, [admin] for permanentDelete.
const config::PermissionRule& DefaultRule(Action action);
// The configured rule, else the default: the rule that is actually enforced.
const config::PermissionRule& EffectiveRule(const config::TablePermissions& permissions,
                                            Action action);
// The rule a field rule's `read` or `write` stands for when absent: unrestricted (`all`).
const config::PermissionRule& UnrestrictedRule();

// Whether `rule` admits a signed-in caller with `role` (admin always passes).
bool Matches(const config::PermissionRule& rule, std::string_view role);
// `rule` when present, else `fallback`.
bool MatchesRule(const std::optional<config::PermissionRule>& rule, std::string_view role,
                 const config::PermissionRule& fallback);

// What one role may do with one table. Precomputed at construction, so every question after it
// is a lookup. Holds pointers into `table`, which must outlive it.
class TableAccess {
 public:
  TableAccess(const config::Table& table, std::string_view role);

  const config::Table& table() const { return *table_; }

  bool Can(Action action) const { return (actions_ & Bit(action)) != 0; }

  // Field permissions. Write is the permission only: create and update also need
  // Can(kCreate) / Can(kUpdate), and whether the type is server-controlled (created-by,
  // updated-at, …) is the records layer's concern.
  // By name: false for a name that is not a field of the table (so an unreadable field and a
  // missing one answer alike, D21).
  bool CanReadField(std::string_view field_name) const;
  bool CanWriteField(std::string_view field_name) const;
  // By reference, in constant time: `field` must be one of table().fields (false otherwise).
  bool CanReadField(const config::Field& field) const;
  bool CanWriteField(const config::Field& field) const;

  // The fields the role may read / write, in config order (pointers into the table).
  const std::vector<const config::Field*>& ReadableFields() const { return readable_; }
  const std::vector<const config::Field*>& WritableFields() const { return writable_; }

 private:
  friend class AccessIndex;
  // `role` null: a role that no permission list names (AccessIndex's shared entry).
  TableAccess(const config::Table& table, const std::string_view* role);

  static constexpr std::uint8_t Bit(Action action) {
    return static_cast<std::uint8_t>(1U << static_cast<unsigned>(action));
  }
  static constexpr std::uint8_t kFieldRead = 1;
  static constexpr std::uint8_t kFieldWrite = 2;

  std::uint8_t FieldBits(const config::Field& field) const;

  const config::Table* table_;
  std::uint8_t actions_ = 0;
  std::vector<std::uint8_t> field_bits_;  // parallel to table_->fields
  std::vector<const config::Field*> readable_;
  std::vector<const config::Field*> writable_;
};

}  // namespace cairn::access
