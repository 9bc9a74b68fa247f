#include "support/test_database.hpp"

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <map>
#include <mutex>
#include <random>

namespace cairn::test {
namespace {

constexpr std::string_view kBackendVariable = "CAIRN_TEST_BACKEND";
constexpr std::string_view kUrlVariable = "CAIRN_TEST_DATABASE_URL";

std::string Env(std::string_view name) {
  const char* value = std::getenv(std::string(name).c_str());
  return value == nullptr ? std::string() : std::string(value);
}

Error SetupError(std::string text) {
  Error error = Error::Internal(text);
  error.message = std::move(text);
  return error;
}

Result<std::filesystem::path> MakeTempDirectory() {
  std::string base = Env("TMPDIR");
  if (base.empty()) base = "/tmp";
  std::string pattern = base + "/cairn-test.XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) {
    return SetupError("mkdtemp(" + pattern + ") failed");
  }
  return std::filesystem::path(pattern);
}

std::string RandomSuffix() {
  static std::mutex mutex;
  static std::mt19937_64 generator(std::random_device{}());
  std::lock_guard lock(mutex);
  static constexpr char kDigits[] = "0123456789abcdefghijklmnopqrstuvwxyz";
  std::string out;
  for (int i = 0; i < 6; ++i) out += kDigits[generator() % 36];
  return out;
}

// One connection to the test server's default schema, shared by the process, for creating and
// dropping the per-test schemas; one per server URL (a test may run a server of its own).
Result<db::Database*> AdminDatabase(const std::string& url) {
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<db::Database>> admins;
  std::lock_guard lock(mutex);
  std::unique_ptr<db::Database>& admin = admins[url];
  if (!admin) {
    db::DatabaseOptions options;
    options.url = url;
    options.pool_size = 2;
    CAIRN_ASSIGN_OR_RETURN(admin, db::OpenDatabase(options));
  }
  return admin.get();
}

Status RunAdmin(const std::string& url, const std::string& sql) {
  CAIRN_ASSIGN_OR_RETURN(db::Database * admin, AdminDatabase(url));
  return admin->Transaction(db::Access::kWrite, [&](db::Connection& connection) {
    return connection.ExecuteScript(sql);
  });
}

std::string WithSearchPath(const std::string& url, const std::string& schema) {
  std::string out = url;
  out += url.find('?') == std::string::npos ? '?' : '&';
  out += "options=-csearch_path%3D" + schema;
  return out;
}

std::string Describe(const Error& error) {
  std::string out = error.message;
  if (!error.detail.empty() && error.detail != error.message) out += " (" + error.detail + ")";
  return out;
}

}  // namespace

db::Backend TestBackend() {
  return Env(kBackendVariable) == "postgres" ? db::Backend::kPostgres : db::Backend::kSqlite;
}

bool IsPostgres() {
  return TestBackend() == db::Backend::kPostgres;
}

Result<std::unique_ptr<TestDatabase>> TestDatabase::Create(db::DatabaseOptions tuning) {
  const std::string backend = Env(kBackendVariable);
  if (!backend.empty() && backend != "sqlite" && backend != "postgres") {
    return SetupError("CAIRN_TEST_BACKEND must be sqlite or postgres, not " + backend);
  }
  const std::string url = Env(kUrlVariable);
  if (IsPostgres() && url.empty()) {
    return SetupError(
        "CAIRN_TEST_BACKEND=postgres but CAIRN_TEST_DATABASE_URL is not set: run the tests "
        "under scripts/with-postgres (e.g. scripts/with-postgres build/release/tests/db/db_tests)");
  }
  std::unique_ptr<TestDatabase> test(new TestDatabase());
  CAIRN_ASSIGN_OR_RETURN(test->directory_, MakeTempDirectory());
  test->options_ = tuning;
  if (IsPostgres()) {
    static std::atomic<int> counter{0};
    const std::string schema = "cairn_t" + std::to_string(::getpid()) + "_" +
                               std::to_string(++counter) + "_" + RandomSuffix();
    CAIRN_TRY(RunAdmin(url, "CREATE SCHEMA \"" + schema + "\""));
    test->schema_ = schema;
    test->options_.url = WithSearchPath(url, schema);
  } else {
    test->options_.url.clear();
    test->options_.sqlite_path = (test->directory_ / "cairn.db").string();
  }
  CAIRN_ASSIGN_OR_RETURN(test->database_, db::OpenDatabase(test->options_));
  return test;
}

TestDatabase::~TestDatabase() {
  Close();
  if (!schema_.empty()) {
    const Status dropped =
        RunAdmin(Env(kUrlVariable), "DROP SCHEMA IF EXISTS \"" + schema_ + "\" CASCADE");
    if (!dropped.ok())
      ADD_FAILURE() << "dropping schema " << schema_ << ": " << Describe(dropped.error());
  }
  std::error_code ec;
  if (!directory_.empty()) std::filesystem::remove_all(directory_, ec);
}

Result<std::unique_ptr<db::Database>> TestDatabase::Reopen(db::DatabaseOptions tuning) const {
  tuning.url = options_.url;
  tuning.sqlite_path = options_.sqlite_path;
  return db::OpenDatabase(tuning);
}

void TestDatabase::Close() {
  if (database_) {
    database_->Close();
    database_.reset();
  }
}

void DatabaseTest::SetUp() {
  auto created = TestDatabase::Create(Tuning());
  if (!created.ok()) {
    FAIL() << "cannot create the test database: " << Describe(created.error());
  }
  test_database_ = std::move(created).value();
}

void DatabaseTest::TearDown() {
  test_database_.reset();
}

}  // namespace cairn::test
