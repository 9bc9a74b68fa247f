#include "app/admin_commands.hpp"

#include <filesystem>
#include <iostream>

#include "app/serve.hpp"
#include "auth/auth_schema.hpp"
#include "auth/auth_service.hpp"
#include "common/crypto.hpp"
#include "db/database.hpp"
#include "mail/mailer.hpp"

namespace cairn::app {
namespace {

// Mail is never sent by this command; the service still needs a mailer.
class NoMail final : public mail::Mailer {
 public:
  Status Send(const mail::Message&) override {
    return Error::Unavailable("mail is not sent from the command line");
  }
  std::string_view Kind() const override { return "none"; }
};

void PrintError(const Error& error) {
  std::cerr << "cairn: " << error.message;
  for (const auto& field : error.errors)
    std::cerr << "\n  " << field.field << ": " << field.message;
  std::cerr << "\n";
}

}  // namespace

int AdminCreate(const std::string& email, const Flags& flags) {
  auto settings = LoadSettings(flags, ProcessEnvironment());
  if (!settings.ok()) {
    std::cerr << settings.error().message << "\n";
    return kExitInvalid;
  }
  std::string password;
  if (auto it = flags.find("password"); it != flags.end()) {
    password = it->second;
  } else if (auto env = ProcessEnvironment()("AUTH_ADMIN_PASSWORD")) {
    password = *env;
  }
  if (password.empty()) {
    std::cerr << "cairn: admin create needs --password or AUTH_ADMIN_PASSWORD\n";
    return kExitUsage;
  }
  std::string name = "Admin";
  if (auto it = flags.find("name"); it != flags.end()) name = it->second;

  std::error_code fs_error;
  std::filesystem::create_directories(settings->data_dir, fs_error);
  db::DatabaseOptions db_options;
  db_options.url = settings->database_url;
  db_options.sqlite_path = (std::filesystem::path(settings->data_dir) / "cairn.db").string();
  auto database = db::OpenDatabase(db_options);
  if (!database.ok()) {
    PrintError(database.error());
    return kExitInvalid;
  }
  if (Status schema = auth::EnsureAuthSchema(**database); !schema.ok()) {
    PrintError(schema.error());
    return kExitInvalid;
  }
  // The secret only signs cookies, which this command never issues.
  auth::AuthService service(**database, {config::AuthConfig{}, "unused-by-admin-create", ""},
                            std::make_shared<NoMail>());
  auto created = service.EnsureAdmin(email, password, name);
  (*database)->Close();
  if (!created.ok()) {
    PrintError(created.error());
    return kExitInvalid;
  }
  std::cout << (*created ? "created admin " : "a user with this email already exists: ")
            << auth::NormalizeEmail(email) << "\n";
  return kExitOk;
}

int SecretGenerate() {
  std::cout << crypto::Base64Url(crypto::RandomBytes(32)) << "\n";
  return kExitOk;
}

}  // namespace cairn::app
