// What erasing an account deletes from the auth tables (D19a). The list is data: each auth table
// that holds rows of a person names the column that points at the person, and a plugin that adds
// such a table adds one line here. Other modules' rows (activity, comments, records) are handled
// by AuthOptions::on_account_erased hooks, which run first.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"
#include "db/database.hpp"

namespace cairn::auth {

// How a column points at the person being erased.
enum class ErasedBy {
  kUserId,  // holds the user's id
  kEmail,   // holds the user's (normalized) email: rows about the address before an account
};
// What happens to a matching row.
enum class ErasureAction {
  kDeleteRows,  // the row is the person's: it goes
  kNullColumn,  // the row is someone else's and only mentions the person: the column goes
};

struct UserDataColumn {
  std::string_view table;
  std::string_view column;
  ErasedBy by = ErasedBy::kUserId;
  ErasureAction action = ErasureAction::kDeleteRows;
};

// Every auth table column that points at a user, in the order they are cleared (the users row
// itself last, after everything that references it).
std::span<const UserDataColumn> UserDataColumns();

// Clears every column of UserDataColumns() for this user, the users row last. Runs inside the
// caller's transaction.
Status DeleteUserData(db::Connection& connection, std::string_view user_id, std::string_view email);

// Deletion requests (`_cairn_auth_deletions`).
Status InsertDeletionRequest(db::Connection& connection, std::string_view user_id,
                             std::int64_t requested_at);
Result<std::optional<std::int64_t>> FindDeletionRequest(db::Connection& connection,
                                                        std::string_view user_id);
// Users whose deletion was requested at or before `requested_before`, oldest first.
Result<std::vector<std::string>> DueDeletionRequests(db::Connection& connection,
                                                     std::int64_t requested_before, int limit);

}  // namespace cairn::auth
