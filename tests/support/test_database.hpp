// A fresh, isolated database per test, on the backend CAIRN_TEST_BACKEND names:
//  - sqlite (default): a new temporary directory holding `cairn.db`;
//  - postgres: a new schema on the server at CAIRN_TEST_DATABASE_URL (see scripts/with-postgres),
//    reached through `options=-csearch_path%3D<schema>` in the URL, dropped afterwards.
// Both are removed when the TestDatabase is destroyed. With CAIRN_TEST_BACKEND=postgres and no
// CAIRN_TEST_DATABASE_URL, Create fails (tests never skip silently).
#pragma once

#include <filesystem>
#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "common/result.hpp"
#include "db/database.hpp"

namespace cairn::test {

// The backend under test, from CAIRN_TEST_BACKEND (`sqlite` or `postgres`; default sqlite).
db::Backend TestBackend();
bool IsPostgres();

class TestDatabase {
 public:
  // `tuning` may set pool_size, acquire_timeout and the SQLite WAL bounds; url and
  // sqlite_path are filled in.
  static Result<std::unique_ptr<TestDatabase>> Create(db::DatabaseOptions tuning = {});
  ~TestDatabase();
  TestDatabase(const TestDatabase&) = delete;
  TestDatabase& operator=(const TestDatabase&) = delete;

  db::Database& db() { return *database_; }
  // How to open this database again: DatabaseOptions for OpenDatabase, or for a server under
  // test `DATABASE_URL=options().url` (PostgreSQL) / `--data-dir directory()` (SQLite).
  const db::DatabaseOptions& options() const { return options_; }
  // A private temporary directory (both backends): the SQLite data dir, or scratch space.
  const std::filesystem::path& directory() const { return directory_; }
  // The PostgreSQL schema of this test (empty on SQLite).
  const std::string& schema() const { return schema_; }

  // Opens a second, independent Database on the same data.
  Result<std::unique_ptr<db::Database>> Reopen(db::DatabaseOptions tuning = {}) const;
  // Closes db() early (it is closed by the destructor otherwise).
  void Close();

 private:
  TestDatabase() = default;

  std::filesystem::path directory_;
  std::string schema_;
  db::DatabaseOptions options_;
  std::unique_ptr<db::Database> database_;
};

// GoogleTest fixture: every test gets its own TestDatabase; SetUp fails the test when it cannot
// be created.
class DatabaseTest : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;
  // Tuning for the database SetUp creates (override to lower bounds).
  virtual db::DatabaseOptions Tuning() const { return {}; }

  db::Database& database() { return test_database_->db(); }
  TestDatabase& test_database() { return *test_database_; }
  const db::Dialect& dialect() { return database().dialect(); }

 private:
  std::unique_ptr<TestDatabase> test_database_;
};

}  // namespace cairn::test
