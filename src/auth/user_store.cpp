#include "auth/user_store.hpp"

#include <array>
#include <charconv>
#include <utility>

#include "auth/limits.hpp"
#include "common/crypto.hpp"
#include "common/time.hpp"

namespace cairn::auth {
namespace {

constexpr std::array<std::string_view, 12> kUserColumnNames{
    "id",     "name",       "email",       "email_verified",     "image",      "role",
    "banned", "ban_reason", "ban_expires", "two_factor_enabled", "created_at", "updated_at"};

db::Value Optional(const std::optional<std::string>& text) {
  if (!text) return db::Null{};
  return std::string_view(*text);
}

db::Value Optional(const std::optional<std::int64_t>& number) {
  if (!number) return db::Null{};
  return *number;
}

Result<std::optional<User>> FindOneUser(db::Connection& connection, std::string_view where,
                                        std::string_view key) {
  std::string sql = "SELECT ";
  sql.append(UserColumns()).append(R"( FROM "_cairn_auth_users" WHERE )").append(where);
  std::optional<User> found;
  CAIRN_TRY(connection.Execute(sql, {key}, [&](const db::Row& row) { found = ReadUser(row); }));
  return found;
}

// API names of the columns list-users may search, filter and sort on.
struct ColumnName {
  std::string_view api;
  std::string_view sql;
  bool is_flag;
};
constexpr std::array<ColumnName, 8> kQueryableColumns{{
    {"id", "\"id\"", false},
    {"name", "\"name\"", false},
    {"email", "\"email\"", false},
    {"role", "\"role\"", false},
    {"banned", "\"banned\"", true},
    {"emailVerified", "\"email_verified\"", true},
    {"createdAt", "\"created_at\"", false},
    {"updatedAt", "\"updated_at\"", false},
}};

const ColumnName* FindColumn(std::string_view api) {
  for (const ColumnName& column : kQueryableColumns) {
    if (column.api == api) return &column;
  }
  return nullptr;
}

Error UnknownParameter(std::string_view parameter, std::string_view value) {
  return Error::Validation(
      "Invalid list-users parameter",
      {{std::string(parameter), "unsupported value '" + std::string(value) + "'"}});
}

// The LIKE pattern of a text operator (contains, starts_with, ends_with), or nullopt for another
// operator.
std::optional<std::string> LikePattern(std::string_view op, std::string_view value) {
  const std::string escaped = db::Dialect::EscapeLike(value);
  if (op == "contains") return "%" + escaped + "%";
  if (op == "starts_with") return escaped + "%";
  if (op == "ends_with") return "%" + escaped;
  return std::nullopt;
}

// `value` bound as the column's type: flags as 0/1, times as epoch milliseconds (given as such
// or in ISO 8601), everything else as text.
Status BindFilterValue(const ColumnName& column, const std::string& value,
                       std::vector<db::Value>& params) {
  if (column.is_flag) {
    params.emplace_back(static_cast<std::int64_t>(value == "true" || value == "1"));
    return {};
  }
  if (column.api != "createdAt" && column.api != "updatedAt") {
    params.emplace_back(value);
    return {};
  }
  std::int64_t millis = 0;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), millis);
  if (ec == std::errc() && end == value.data() + value.size()) {
    params.emplace_back(millis);
    return {};
  }
  const auto iso = time::ParseIso(value);
  if (!iso) return UnknownParameter("filterValue", value);
  params.emplace_back(static_cast<std::int64_t>(*iso));
  return {};
}

// Appends the filter's condition, binding its values as the column's type.
Status AppendFilter(const db::Dialect& dialect, const UserQuery& query, std::string& where,
                    std::vector<db::Value>& params) {
  const ColumnName* column = FindColumn(*query.filter_field);
  if (!column) return UnknownParameter("filterField", *query.filter_field);
  const std::string_view op = query.filter_operator;
  const std::vector<std::string>& values = query.filter_values;
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 6> kComparisons{{
      {"eq", " = ?"},
      {"ne", " <> ?"},
      {"lt", " < ?"},
      {"lte", " <= ?"},
      {"gt", " > ?"},
      {"gte", " >= ?"},
  }};
  where.append(where.empty() ? " WHERE " : " AND ").append(column->sql);
  if (op == "in" || op == "not_in") {
    if (values.empty()) return UnknownParameter("filterValue", "");
    where.append(op == "in" ? " IN (" : " NOT IN (");
    for (std::size_t i = 0; i < values.size(); ++i) {
      where.append(i == 0 ? "?" : ", ?");
      CAIRN_TRY(BindFilterValue(*column, values[i], params));
    }
    where.push_back(')');
    return {};
  }
  const std::string& value = values.empty() ? std::string() : values.front();
  if (!column->is_flag && column->api != "createdAt" && column->api != "updatedAt") {
    if (auto pattern = LikePattern(op, value)) {
      where.append(" ").append(dialect.CaseInsensitiveLike()).append(" ?");
      where.append(dialect.LikeEscape());
      params.emplace_back(std::move(*pattern));
      return {};
    }
  }
  for (const auto& [name, sql] : kComparisons) {
    if (name != op) continue;
    where.append(sql);
    return BindFilterValue(*column, value, params);
  }
  return UnknownParameter("filterOperator", query.filter_operator);
}

Status AppendSearch(const db::Dialect& dialect, const UserQuery& query, std::string& where,
                    std::vector<db::Value>& params) {
  if (query.search_field != "email" && query.search_field != "name") {
    return UnknownParameter("searchField", query.search_field);
  }
  auto pattern = LikePattern(query.search_operator, *query.search_value);
  if (!pattern) return UnknownParameter("searchOperator", query.search_operator);
  where.append(where.empty() ? " WHERE " : " AND ");
  where.append(FindColumn(query.search_field)->sql).append(" ");
  where.append(dialect.CaseInsensitiveLike()).append(" ?").append(dialect.LikeEscape());
  params.emplace_back(std::move(*pattern));
  return {};
}

}  // namespace

std::string UserColumns(std::string_view alias) {
  std::string sql;
  for (std::string_view name : kUserColumnNames) {
    if (!sql.empty()) sql += ", ";
    if (!alias.empty()) sql.append(alias).append(".");
    sql.append("\"").append(name).append("\"");
  }
  return sql;
}

User ReadUser(const db::Row& row, int first) {
  User user;
  user.id = std::string(row.GetText(first));
  user.name = std::string(row.GetText(first + 1));
  user.email = std::string(row.GetText(first + 2));
  user.email_verified = row.GetInt64(first + 3) != 0;
  if (!row.IsNull(first + 4)) user.image = std::string(row.GetText(first + 4));
  user.role = std::string(row.GetText(first + 5));
  user.banned = row.GetInt64(first + 6) != 0;
  if (!row.IsNull(first + 7)) user.ban_reason = std::string(row.GetText(first + 7));
  if (!row.IsNull(first + 8)) user.ban_expires = row.GetInt64(first + 8);
  user.two_factor_enabled = row.GetInt64(first + 9) != 0;
  user.created_at = row.GetInt64(first + 10);
  user.updated_at = row.GetInt64(first + 11);
  return user;
}

Status InsertUser(db::Connection& connection, const User& user) {
  std::string sql = R"(INSERT INTO "_cairn_auth_users" ()";
  sql.append(UserColumns()).append(") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  CAIRN_TRY(connection.Execute(
      sql, {std::string_view(user.id), std::string_view(user.name), std::string_view(user.email),
            static_cast<std::int64_t>(user.email_verified), Optional(user.image),
            std::string_view(user.role), static_cast<std::int64_t>(user.banned),
            Optional(user.ban_reason), Optional(user.ban_expires),
            static_cast<std::int64_t>(user.two_factor_enabled), user.created_at, user.updated_at}));
  return {};
}

User NewUser(std::string name, std::string email, std::string role, std::int64_t now) {
  User user;
  user.id = crypto::RandomAlphanumeric(kIdLength);
  user.name = std::move(name);
  user.email = std::move(email);
  user.role = std::move(role);
  user.created_at = now;
  user.updated_at = now;
  return user;
}

Result<bool> InsertUserUnlessTaken(db::Connection& connection, const User& user,
                                   const std::optional<std::string>& password_hash) {
  CAIRN_ASSIGN_OR_RETURN(auto existing, FindUserByEmail(connection, user.email));
  if (existing) return false;
  CAIRN_TRY(InsertUser(connection, user));
  if (password_hash) {
    CAIRN_TRY(InsertPasswordAccount(connection, user.id, *password_hash, user.created_at));
  }
  return true;
}

Result<std::optional<User>> FindUserById(db::Connection& connection, std::string_view id) {
  return FindOneUser(connection, "\"id\" = ?", id);
}

Result<std::optional<User>> FindUserByEmail(db::Connection& connection, std::string_view email) {
  return FindOneUser(connection, "\"email\" = ?", email);
}

Status UpdateUser(db::Connection& connection, const User& user) {
  CAIRN_TRY(connection.Execute(
      R"(UPDATE "_cairn_auth_users" SET "name" = ?, "email" = ?, "email_verified" = ?, )"
      R"("image" = ?, "role" = ?, "banned" = ?, "ban_reason" = ?, "ban_expires" = ?, )"
      R"("updated_at" = ? WHERE "id" = ?)",
      {std::string_view(user.name), std::string_view(user.email),
       static_cast<std::int64_t>(user.email_verified), Optional(user.image),
       std::string_view(user.role), static_cast<std::int64_t>(user.banned),
       Optional(user.ban_reason), Optional(user.ban_expires), user.updated_at,
       std::string_view(user.id)}));
  return {};
}

Status InsertPasswordAccount(db::Connection& connection, std::string_view user_id,
                             std::string_view password_hash, std::int64_t now) {
  const std::string id = crypto::RandomAlphanumeric(kIdLength);
  CAIRN_TRY(connection.Execute(
      R"(INSERT INTO "_cairn_auth_accounts" ("id", "user_id", "provider_id", "account_id", )"
      R"("password", "created_at", "updated_at") VALUES (?, ?, 'credential', ?, ?, ?, ?))",
      {std::string_view(id), user_id, user_id, password_hash, now, now}));
  return {};
}

Result<std::optional<std::string>> FindPasswordHash(db::Connection& connection,
                                                    std::string_view user_id) {
  std::optional<std::string> hash;
  CAIRN_TRY(connection.Execute(R"(SELECT "password" FROM "_cairn_auth_accounts" )"
                               R"(WHERE "user_id" = ? AND "provider_id" = 'credential')",
                               {user_id}, [&](const db::Row& row) {
                                 if (!row.IsNull(0)) hash = std::string(row.GetText(0));
                               }));
  return hash;
}

Status SetPasswordHash(db::Connection& connection, std::string_view user_id,
                       std::string_view password_hash, std::int64_t now) {
  CAIRN_ASSIGN_OR_RETURN(
      std::int64_t changed,
      connection.Execute(R"(UPDATE "_cairn_auth_accounts" SET "password" = ?, "updated_at" = ? )"
                         R"(WHERE "user_id" = ? AND "provider_id" = 'credential')",
                         {password_hash, now, user_id}));
  if (changed == 0) return InsertPasswordAccount(connection, user_id, password_hash, now);
  return {};
}

Result<UserPage> ListUsers(db::Connection& connection, const UserQuery& query) {
  const db::Dialect& dialect = connection.dialect();
  std::string where;
  std::vector<db::Value> params;
  if (query.search_value && !query.search_value->empty()) {
    CAIRN_TRY(AppendSearch(dialect, query, where, params));
  }
  if (query.filter_field) {
    CAIRN_TRY(AppendFilter(dialect, query, where, params));
  }
  const ColumnName* sort = FindColumn(query.sort_by);
  if (!sort) return UnknownParameter("sortBy", query.sort_by);

  UserPage page;
  CAIRN_TRY(connection.Execute(R"(SELECT COUNT(*) FROM "_cairn_auth_users")" + where, params,
                               [&](const db::Row& row) { page.total = row.GetInt64(0); }));
  std::string sql = "SELECT ";
  sql.append(UserColumns()).append(R"( FROM "_cairn_auth_users")").append(where);
  sql.append(" ORDER BY ").append(sort->sql).append(query.sort_descending ? " DESC" : " ASC");
  sql.append(R"(, "id" ASC LIMIT ? OFFSET ?)");
  params.emplace_back(static_cast<std::int64_t>(query.limit));
  params.emplace_back(static_cast<std::int64_t>(query.offset));
  CAIRN_TRY(connection.Execute(sql, params,
                               [&](const db::Row& row) { page.users.push_back(ReadUser(row)); }));
  return page;
}

Status DeleteAccountsOfUser(db::Connection& connection, std::string_view user_id) {
  CAIRN_TRY(
      connection.Execute(R"(DELETE FROM "_cairn_auth_accounts" WHERE "user_id" = ?)", {user_id}));
  return {};
}

}  // namespace cairn::auth
