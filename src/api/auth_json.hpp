// Better Auth's JSON for users and sessions (D10): camelCase, dates as ISO strings, null for
// absent values.
#pragma once

#include <string>
#include <string_view>

#include "auth/model.hpp"

namespace cairn::api {

void AppendUser(std::string& out, const auth::User& user);
// `token` is what the session's `token` member shows: the raw token to its own holder, the
// token hash (a revocation handle) otherwise.
void AppendSession(std::string& out, const auth::Session& session, std::string_view token);
// `{"session":…,"user":…}`
std::string SessionAndUser(const auth::Session& session, std::string_view token,
                           const auth::User& user);

}  // namespace cairn::api
