// SQL for users and their credential accounts. Every function runs inside the caller's
// transaction; values are always bound.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "auth/model.hpp"
#include "common/result.hpp"
#include "db/database.hpp"

namespace cairn::auth {

// The user columns for a SELECT, qualified by `alias` when given, and the reader for a row
// whose user columns start at `first_column`.
std::string UserColumns(std::string_view alias = {});
User ReadUser(const db::Row& row, int first_column = 0);

Status InsertUser(db::Connection& connection, const User& user);
// A user not yet stored: random id, created and updated `now`.
User NewUser(std::string name, std::string email, std::string role, std::int64_t now);
// Inserts the user and, given a hash, its credential account; false when the email is taken.
// (A concurrent insert of the same email still fails with a unique violation.)
Result<bool> InsertUserUnlessTaken(db::Connection& connection, const User& user,
                                   const std::optional<std::string>& password_hash);
Result<std::optional<User>> FindUserById(db::Connection& connection, std::string_view id);
Result<std::optional<User>> FindUserByEmail(db::Connection& connection, std::string_view email);
// Writes every mutable column of `user` (name, email, verification, image, role, ban state).
Status UpdateUser(db::Connection& connection, const User& user);

// The `credential` account holding the user's password hash.
Status InsertPasswordAccount(db::Connection& connection, std::string_view user_id,
                             std::string_view password_hash, std::int64_t now);
Result<std::optional<std::string>> FindPasswordHash(db::Connection& connection,
                                                    std::string_view user_id);
// Sets (or creates) the credential account's hash.
Status SetPasswordHash(db::Connection& connection, std::string_view user_id,
                       std::string_view password_hash, std::int64_t now);

// Every account (credential and OAuth) of the user.
Status DeleteAccountsOfUser(db::Connection& connection, std::string_view user_id);

struct UserQuery {
  std::optional<std::string> search_value;
  std::string search_field = "email";        // email | name
  std::string search_operator = "contains";  // contains | starts_with | ends_with
  // email | name | role | banned | emailVerified | id | createdAt | updatedAt
  std::optional<std::string> filter_field;
  // Every filterValue given: one for most operators, the list for in and not_in. Flags take
  // true/false, times epoch milliseconds or ISO 8601.
  std::vector<std::string> filter_values;
  // eq | ne | lt | lte | gt | gte | in | not_in, and for text columns contains | starts_with |
  // ends_with (case-insensitive)
  std::string filter_operator = "eq";
  std::string sort_by = "createdAt";  // createdAt | updatedAt | name | email | role
  bool sort_descending = false;
  int limit = 100;
  int offset = 0;
};
struct UserPage {
  std::vector<User> users;
  std::int64_t total = 0;
};
// Unknown fields and operators are rejected with a 400 naming them.
Result<UserPage> ListUsers(db::Connection& connection, const UserQuery& query);

}  // namespace cairn::auth
