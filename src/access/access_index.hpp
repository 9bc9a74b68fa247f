// Every (table, role) answer of an application, computed once at startup and immutable after:
// request handlers look up a precomputed TableAccess instead of evaluating rules per request,
// from any thread, without locks.
//
// The roles indexed are the built-ins (admin, member, viewer), the config's auth.roles and any
// other role a permission list names. A role outside that set is in no list, so every such role
// gets the same answers; they share one precomputed entry per table.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "access/table_access.hpp"
#include "config/model.hpp"

namespace cairn::access {

class AccessIndex {
 public:
  // An empty index: knows no table.
  AccessIndex() = default;

  // Holds pointers into `config`, which must outlive the index and not move (the application
  // keeps both for its lifetime; a new config needs a new index).
  static AccessIndex Build(const config::AppConfig& config);

  // `table` must be one of the tables of the config the index was built from (a broken
  // invariant otherwise: throws std::logic_error).
  const TableAccess& For(const config::Table& table, std::string_view role) const;

  // The table `{tableId}` names (id, name or slug, D7) when `role` may read it; null when the
  // table does not exist or the role may not read it — the two answer alike (404, D21).
  const TableAccess* FindReadable(std::string_view table_id, std::string_view role) const;

  // The roles with entries of their own, sorted.
  const std::vector<std::string>& roles() const { return roles_; }

 private:
  std::size_t TableIndex(const config::Table& table) const;
  std::size_t RoleSlot(std::string_view role) const;  // roles_.size() for any other role

  const config::AppConfig* config_ = nullptr;
  std::vector<std::string> roles_;
  // Row-major: table index × (roles_.size() + 1) role slots; the last slot of a row is the
  // shared entry of every role not in roles_.
  std::vector<TableAccess> entries_;
};

}  // namespace cairn::access
