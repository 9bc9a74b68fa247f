// Admin operations of AuthService (Better Auth's admin plugin). The admin check itself is the
// API layer's: these assume the caller is allowed.
#include <boost/json.hpp>

#include "auth/auth_errors.hpp"
#include "auth/auth_service.hpp"
#include "auth/limits.hpp"
#include "auth/password.hpp"
#include "auth/session_store.hpp"
#include "common/crypto.hpp"
#include "common/time.hpp"

namespace cairn::auth {
namespace {

Error DuplicateEmail(std::string_view field) {
  return FieldFailure("USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL", field,
                      "User already exists. Use another email.");
}

Error UnknownRole(std::string_view role) {
  return FieldFailure("YOU_ARE_NOT_ALLOWED_TO_SET_NON_EXISTENT_VALUE", "role",
                      "Unknown role '" + std::string(role) + "'");
}

// `changes` of a role change: {"before":{"role":…},"after":{"role":…}}.
std::string RoleChange(std::string_view before, std::string_view after) {
  return boost::json::serialize(
      boost::json::object{{"before", {{"role", before}}}, {"after", {{"role", after}}}});
}

}  // namespace

Result<User> AuthService::CreateUser(const Actor& actor, const CreateUserInput& input) {
  const std::string email = NormalizeEmail(input.email);
  if (email.empty()) return FieldFailure("INVALID_EMAIL", "email", "Invalid email");
  if (input.name.size() > kMaxNameLength)
    return FieldFailure("INVALID_NAME", "name", "Name is too long");
  const std::string role = input.role.empty() ? options_.config.default_role : input.role;
  if (!IsKnownRole(role)) return UnknownRole(role);
  std::optional<std::string> hash;
  if (!input.password.empty()) {
    CAIRN_TRY(CheckPassword(input.password, "password"));
    CAIRN_ASSIGN_OR_RETURN(hash, HashPassword(input.password));
  }
  User user = NewUser(input.name, email, role, time::NowMillis());
  user.email_verified = input.email_verified;
  bool duplicate = false;
  Status written = WriteTransaction([&](db::Connection& connection) -> Status {
    CAIRN_ASSIGN_OR_RETURN(bool inserted, InsertUserUnlessTaken(connection, user, hash));
    duplicate = !inserted;
    if (!inserted) return {};
    return RecordEvent(connection, "user.create", actor,
                       {{"targetUserId", user.id}, {"role", user.role}});
  });
  if (duplicate ||
      (!written.ok() && db::ErrorKindOf(written.error()) == db::DbErrorKind::kUnique)) {
    return DuplicateEmail("email");
  }
  CAIRN_TRY(written);
  return user;
}

Result<bool> AuthService::EnsureAdmin(std::string_view email, std::string_view password,
                                      std::string_view name) {
  const std::string normalized = NormalizeEmail(email);
  if (normalized.empty()) return FieldFailure("INVALID_EMAIL", "email", "Invalid email");
  CAIRN_ASSIGN_OR_RETURN(auto existing, FindByEmail(normalized));
  if (existing) return false;
  // The system acts: no user, no request.
  auto created = CreateUser(Actor{}, {std::string(name.empty() ? std::string_view("Admin") : name),
                                      normalized, std::string(password), "admin", true});
  if (!created.ok()) {
    // Another node created it first: still idempotent.
    if (created.error().reason == "USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL") return false;
    return created.error();
  }
  return true;
}

Result<UserPage> AuthService::ListUsers(const UserQuery& query) {
  UserPage page;
  CAIRN_TRY(database_.Transaction(db::Access::kRead, [&](db::Connection& connection) -> Status {
    CAIRN_ASSIGN_OR_RETURN(page, auth::ListUsers(connection, query));
    return {};
  }));
  return page;
}

Result<User> AuthService::GetUser(std::string_view user_id) {
  std::optional<User> user;
  CAIRN_TRY(database_.Transaction(db::Access::kRead, [&](db::Connection& connection) -> Status {
    CAIRN_ASSIGN_OR_RETURN(user, FindUserById(connection, user_id));
    return {};
  }));
  if (!user) return UserNotFound();
  return std::move(*user);
}

Result<User> AuthService::SetRole(const Actor& admin, std::string_view user_id,
                                  std::string_view role) {
  if (!IsKnownRole(role)) return UnknownRole(role);
  User user;
  CAIRN_TRY(WriteTransaction([&](db::Connection& connection) -> Status {
    CAIRN_ASSIGN_OR_RETURN(user, LoadUser(connection, user_id));
    const std::string previous = user.role;
    user.role = std::string(role);
    user.updated_at = time::NowMillis();
    CAIRN_TRY(UpdateUser(connection, user));
    return RecordEvent(connection, "user.set_role", admin,
                       {{"targetUserId", user.id}, {"role", user.role}},
                       RoleChange(previous, user.role));
  }));
  return user;
}

Result<User> AuthService::Ban(const Actor& admin, std::string_view user_id,
                              std::optional<std::string> reason,
                              std::optional<std::int64_t> expires_in_s) {
  if (reason && reason->size() > kMaxBanReasonLength) {
    return FieldFailure("INVALID_BAN_REASON", "banReason", "Ban reason is too long");
  }
  User user;
  CAIRN_TRY(WriteTransaction([&](db::Connection& connection) -> Status {
    CAIRN_ASSIGN_OR_RETURN(user, LoadUser(connection, user_id));
    if (user.id == admin.user_id) {
      return AuthError(ErrorCode::kValidation, "YOU_CANNOT_BAN_YOURSELF",
                       "You cannot ban yourself");
    }
    const std::int64_t now = time::NowMillis();
    user.banned = true;
    user.ban_reason = reason && !reason->empty() ? *reason : std::string("No reason");
    if (expires_in_s) {
      user.ban_expires = now + *expires_in_s * 1000;
    } else {
      user.ban_expires.reset();
    }
    user.updated_at = now;
    CAIRN_TRY(UpdateUser(connection, user));
    // In the same transaction: no session of a banned user outlives the ban's commit.
    CAIRN_ASSIGN_OR_RETURN(std::int64_t removed,
                           DeleteSessionsOfUser(connection, user.id, std::nullopt));
    boost::json::object metadata{{"targetUserId", user.id},
                                 {"banReason", *user.ban_reason},
                                 {"banExpires", nullptr},
                                 {"sessionsRevoked", removed}};
    if (user.ban_expires) metadata["banExpires"] = time::FormatIso(*user.ban_expires);
    return RecordEvent(connection, "user.ban", admin, std::move(metadata));
  }));
  return user;
}

Result<User> AuthService::Unban(const Actor& admin, std::string_view user_id) {
  User user;
  CAIRN_TRY(WriteTransaction([&](db::Connection& connection) -> Status {
    CAIRN_ASSIGN_OR_RETURN(user, LoadUser(connection, user_id));
    user.banned = false;
    user.ban_reason.reset();
    user.ban_expires.reset();
    user.updated_at = time::NowMillis();
    CAIRN_TRY(UpdateUser(connection, user));
    return RecordEvent(connection, "user.unban", admin, {{"targetUserId", user.id}});
  }));
  return user;
}

Status AuthService::RemoveUser(const Actor& admin, std::string_view user_id) {
  if (user_id == admin.user_id) {
    return AuthError(ErrorCode::kValidation, "YOU_CANNOT_REMOVE_YOURSELF",
                     "You cannot remove yourself");
  }
  return WriteTransaction([&](db::Connection& connection) -> Status {
    CAIRN_ASSIGN_OR_RETURN(User user, LoadUser(connection, user_id));
    CAIRN_TRY(RecordEvent(connection, "user.remove", admin, {{"targetUserId", user.id}}));
    return EraseAccount(connection, user, "admin");
  });
}

Status AuthService::SetUserPassword(const Actor& admin, std::string_view user_id,
                                    std::string_view password) {
  CAIRN_TRY(CheckPassword(password, "newPassword"));
  CAIRN_ASSIGN_OR_RETURN(std::string hash, HashPassword(password));
  return WriteTransaction([&](db::Connection& connection) -> Status {
    CAIRN_TRY(LoadUser(connection, user_id));
    CAIRN_TRY(SetPasswordHash(connection, user_id, hash, time::NowMillis()));
    return RecordEvent(connection, "password_reset", admin, {{"targetUserId", user_id}});
  });
}

Result<User> AuthService::AdminUpdateUser(const Actor& admin, std::string_view user_id,
                                          const boost::json::object& data) {
  if (data.empty()) {
    return AuthError(ErrorCode::kValidation, "NO_DATA_TO_UPDATE", "No data to update");
  }
  User user;
  Status written = WriteTransaction([&](db::Connection& connection) -> Status {
    CAIRN_ASSIGN_OR_RETURN(user, LoadUser(connection, user_id));
    const std::string previous_role = user.role;
    for (const auto& [key, value] : data) {
      if (key == "name" && value.is_string()) {
        user.name = std::string(value.get_string());
        if (user.name.size() > kMaxNameLength)
          return FieldFailure("INVALID_NAME", "data.name", "Name is too long");
      } else if (key == "image" && (value.is_string() || value.is_null())) {
        if (value.is_null()) {
          user.image.reset();
        } else {
          user.image = std::string(value.get_string());
        }
      } else if (key == "email" && value.is_string()) {
        user.email = NormalizeEmail(value.get_string());
        if (user.email.empty()) return FieldFailure("INVALID_EMAIL", "data.email", "Invalid email");
      } else if (key == "emailVerified" && value.is_bool()) {
        user.email_verified = value.get_bool();
      } else if (key == "role" && value.is_string()) {
        if (!IsKnownRole(value.get_string())) return UnknownRole(value.get_string());
        user.role = std::string(value.get_string());
      } else if (key == "id") {
        return FieldFailure("USER_ID_CANNOT_BE_UPDATED", "data.id", "User id cannot be updated");
      } else if (key == "password") {
        return FieldFailure("PASSWORD_CANNOT_BE_UPDATED_VIA_UPDATE_USER", "data.password",
                            "Password cannot be updated through update-user. Use the "
                            "set-user-password endpoint instead");
      } else {
        return FieldFailure("FIELD_NOT_ALLOWED", "data." + std::string(key),
                            "Field not allowed to be set");
      }
    }
    user.updated_at = time::NowMillis();
    CAIRN_TRY(UpdateUser(connection, user));
    if (user.role == previous_role) return {};
    return RecordEvent(connection, "user.set_role", admin,
                       {{"targetUserId", user.id}, {"role", user.role}},
                       RoleChange(previous_role, user.role));
  });
  if (!written.ok() && db::ErrorKindOf(written.error()) == db::DbErrorKind::kUnique) {
    return DuplicateEmail("data.email");
  }
  CAIRN_TRY(written);
  return user;
}

Result<IssuedSession> AuthService::Impersonate(const Caller& admin, std::string_view user_id,
                                               const ClientInfo& client) {
  IssuedSession issued;
  CAIRN_TRY(WriteTransaction([&](db::Connection& connection) -> Status {
    CAIRN_ASSIGN_OR_RETURN(User target, LoadUser(connection, user_id));
    if (target.role == "admin") {
      return AuthError(ErrorCode::kForbidden, "YOU_CANNOT_IMPERSONATE_ADMINS",
                       "You cannot impersonate admins");
    }
    // Not remembered: its cookie ends with the browser session (as Better Auth sets it), and
    // the session itself after kImpersonationLifetimeMillis.
    CAIRN_ASSIGN_OR_RETURN(issued, CreateSession(connection, target, client, false, admin.user.id));
    return {};
  }));
  return issued;
}

Result<std::optional<AuthService::Resolved>> AuthService::StopImpersonating(
    const Caller& caller, std::string_view admin_token, const ClientInfo& client) {
  if (!caller.session.impersonated_by) {
    return AuthError(ErrorCode::kValidation, "NOT_IMPERSONATING",
                     "You are not impersonating anyone");
  }
  CAIRN_TRY(SignOut(caller, client));
  if (admin_token.empty()) return std::optional<Resolved>();
  CAIRN_ASSIGN_OR_RETURN(auto admin, Resolve(admin_token));
  if (admin && admin->caller.user.id != *caller.session.impersonated_by) admin.reset();
  return admin;
}

}  // namespace cairn::auth
