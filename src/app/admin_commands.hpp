// Shell commands for operators (D1, D14, D19a): `cairn admin create`, `cairn admin purge-due`
// and `cairn secret generate`.
#pragma once

#include <string>

#include "app/settings.hpp"

namespace cairn::app {

// Creates a verified admin in the database the settings point at (idempotent: an existing
// email is reported and left alone). The password comes from --password or
// AUTH_ADMIN_PASSWORD. Returns the process exit code.
int AdminCreate(const std::string& email, const Flags& flags);
// Runs the purge job once (D19a) on the database the settings point at, for the config at
// `config_path` (it names the tables whose trash ECO_RETENTION_PURGE_DAYS applies to), and prints
// what it erased and purged. The database must already be migrated to that config.
int AdminPurgeDue(const std::string& config_path, const Flags& flags);
// Prints a fresh AUTH_SECRET (32 random bytes, base64url).
int SecretGenerate();

}  // namespace cairn::app
