// Shell commands for operators (D1, D14): `cairn admin create` and `cairn secret generate`.
#pragma once

#include <string>

#include "app/settings.hpp"

namespace cairn::app {

// Creates a verified admin in the database the settings point at (idempotent: an existing
// email is reported and left alone). The password comes from --password or
// AUTH_ADMIN_PASSWORD. Returns the process exit code.
int AdminCreate(const std::string& email, const Flags& flags);
// Prints a fresh AUTH_SECRET (32 random bytes, base64url).
int SecretGenerate();

}  // namespace cairn::app
