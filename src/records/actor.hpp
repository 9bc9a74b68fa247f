// Who performs a record operation: the session's user and role, and where the request came from
// (recorded in the activity log).
#pragma once

#include <string>

namespace cairn::records {

struct Actor {
  std::string user_id;
  std::string role;
  std::string ip_address;
  std::string user_agent;
};

}  // namespace cairn::records
