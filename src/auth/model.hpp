// The auth domain's values. Times are epoch milliseconds.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

namespace cairn::auth {

struct User {
  std::string id;
  std::string name;
  std::string email;  // stored lowercase
  bool email_verified = false;
  std::optional<std::string> image;
  std::string role;
  bool banned = false;
  std::optional<std::string> ban_reason;
  std::optional<std::int64_t> ban_expires;
  bool two_factor_enabled = false;
  std::int64_t created_at = 0;
  std::int64_t updated_at = 0;
};

struct Session {
  std::string id;
  std::string user_id;
  std::int64_t expires_at = 0;
  bool remember = true;  // false: a browser-session cookie (rememberMe: false)
  std::optional<std::string> ip_address;
  std::optional<std::string> user_agent;
  std::optional<std::string> impersonated_by;
  std::optional<std::string> active_organization_id;  // organizations (D19): set-active
  std::int64_t created_at = 0;
  std::int64_t updated_at = 0;
};

// A session as presented by a caller: the row, its user and the raw token the caller holds.
struct Caller {
  User user;
  Session session;
  std::string token;
};

// Where a request comes from, recorded on the sessions it creates and in the activity log.
struct ClientInfo {
  std::string ip_address;
  std::string user_agent;
};

// Who performs an operation, for the activity log: the signed-in user (empty for the system:
// startup and the command line), the admin behind an impersonation session, and where the
// request came from.
struct Actor {
  std::string user_id;
  std::optional<std::string> impersonated_by;
  ClientInfo client;
};

inline Actor ActorOf(const Caller& caller, ClientInfo client) {
  return {caller.user.id, caller.session.impersonated_by, std::move(client)};
}

}  // namespace cairn::auth
