// The tables behind /api/auth. They are cairn's own (prefixed `_cairn_auth_`, a name no config
// table can take) and shaped after Better Auth's user / session / account / verification model
// so that OAuth providers, two-factor and organizations fit later without a rewrite:
//   users          one row per person; role, ban state and verification live here
//   sessions       one row per signed-in device; the token is stored only as its SHA-256
//   accounts       one row per way to sign in (provider `credential` holds the password hash;
//                  OAuth providers will add rows with their tokens)
//   verifications  one-time tokens (email verification, password reset, email change),
//                  stored as SHA-256 hashes with an expiry
//   deletions      accounts scheduled for erasure (D19a): sign-in is refused until the purge
#pragma once

#include "common/result.hpp"
#include "db/database.hpp"

namespace cairn::auth {

// Creates the tables and indexes when absent, and the activity log's (auth records its events
// there). Idempotent; serialized across nodes on PostgreSQL.
Status EnsureAuthSchema(db::Database& database);

// The signing secret when AUTH_SECRET is not set: generated once and kept in the database
// (`_cairn_secrets`), so every node and every restart agree. Only signatures depend on it;
// the database holds no usable session token.
Result<std::string> LoadOrCreateSecret(db::Database& database);

}  // namespace cairn::auth
