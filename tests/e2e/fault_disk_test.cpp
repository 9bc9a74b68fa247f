// A full disk under SQLite (issue 22): the real `cairn` binary keeps its data directory on a
// small tmpfs that the test fills up. Writes are answered 507 with a clear message, reads keep
// working, writes succeed again once there is room, and the database passes
// `PRAGMA integrity_check` with every acknowledged record in it.
//
// A real filesystem, not RLIMIT_FSIZE: SQLite rewrites its WAL from the start after a
// checkpoint, so a file-size limit would fail writes at arbitrary points rather than when the
// disk is full. Mounting a tmpfs needs root (CI runs as root); elsewhere the test is skipped.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/mount.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <set>

#include "e2e/expect_envelope.hpp"
#include "e2e/fault_support.hpp"
#include "support/test_database.hpp"

namespace cairn::test {
namespace {

constexpr const char* kRecords = "/api/tables/items/records";
constexpr int kMaxWritesUntilFull = 3000;

// Writes zeros into `path` until the filesystem refuses; returns the bytes written.
std::size_t FillFilesystem(const std::filesystem::path& path) {
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr) return 0;
  std::setvbuf(file, nullptr, _IONBF, 0);
  const std::string block(64 * 1024, '\0');
  std::size_t written = 0;
  for (std::size_t size = block.size(); size > 0; size /= 2) {
    while (std::fwrite(block.data(), 1, size, file) == size) written += size;
    std::clearerr(file);
  }
  std::fclose(file);
  return written;
}

std::string Item(int i) {
  // A few kilobytes per record, so the WAL has to grow.
  return R"({"fields":{"name":"item )" + std::to_string(i) + R"(","notes":")" +
         std::string(4000, 'x') + R"("}})";
}

TEST(FaultDisk, FullDiskAnswers507KeepsReadsAndRecovers) {
  if (IsPostgres()) {
    GTEST_SKIP() << "SQLite-specific (the data directory on a full filesystem); PostgreSQL's "
                    "disk-full error (53100) maps to the same 507";
  }
  auto database = TestDatabase::Create();
  ASSERT_TRUE(database.ok()) << database.error().message;
  (*database)->Close();
  const auto dir = (*database)->directory();
  const auto data = dir / "data";
  std::filesystem::create_directory(data);
  if (::mount("tmpfs", data.c_str(), "tmpfs", MS_NOSUID | MS_NODEV, "size=16m") != 0) {
    GTEST_SKIP() << "cannot mount a tmpfs here (" << std::strerror(errno)
                 << "): the full-disk test needs root";
  }
  struct Unmount {
    std::filesystem::path path;
    ~Unmount() { ::umount2(path.c_str(), MNT_DETACH); }
  } unmount{data};

  FaultServer server(dir, data, "");
  server.Start();
  HttpClient client(server.port());
  std::set<std::string> acknowledged;
  int next = 0;
  for (; next < 20; ++next) {
    const auto created = client.Request("POST", kRecords, Item(next), server.Admin());
    ASSERT_EQ(created.status, 201) << created.body;
    acknowledged.insert(std::string(created.Json().at("id").as_string()));
  }

  const auto filler = data / "filler";
  ASSERT_GT(FillFilesystem(filler), 0U);
  // Until the WAL needs a new page, writes may still fit; then every write is refused.
  HttpResult refused;
  int accepted_while_full = 0;
  for (int i = 0; i < kMaxWritesUntilFull; ++i, ++next) {
    refused = client.Request("POST", kRecords, Item(next), server.Admin());
    if (refused.status != 201) break;
    acknowledged.insert(std::string(refused.Json().at("id").as_string()));
    ++accepted_while_full;
  }
  ASSERT_EQ(refused.status, 507) << refused.body << "\n" << server.Log();
  ExpectEnvelope(refused, 507, "SERVICE_UNAVAILABLE");
  EXPECT_EQ(refused.Json().at("message"),
            "The database is out of storage space; nothing was written");
  // Other writes are refused the same way, an update too.
  const auto update =
      client.Request("PATCH", std::string(kRecords) + "/" + *acknowledged.begin(),
                     R"({"fields":{"notes":")" + std::string(8000, 'y') + "\"}}", server.Admin());
  EXPECT_EQ(update.status, 507) << update.body;
  // Reads keep working.
  const auto list = client.Get(std::string(kRecords) + "?limit=100", server.Admin());
  ASSERT_EQ(list.status, 200) << list.body;
  EXPECT_EQ(list.Json().at("pagination").at("total").as_int64(),
            static_cast<std::int64_t>(acknowledged.size()));
  EXPECT_EQ(client.Get("/api/health").status, 200);

  // Room again: writes succeed (the first one may still meet a half-written WAL page).
  std::filesystem::remove(filler);
  int attempts = 0;
  HttpResult created;
  do {
    created = client.Request("POST", kRecords, Item(next++), server.Admin());
    ++attempts;
  } while (created.status == 507 && attempts < 10);
  ASSERT_EQ(created.status, 201) << created.body;
  acknowledged.insert(std::string(created.Json().at("id").as_string()));
  PrintFigure("full disk: " + std::to_string(accepted_while_full) +
              " writes fit after the disk filled, then 507; reads 200; recovered on write " +
              std::to_string(attempts) + " after space returned");

  ASSERT_EQ(server.Stop(SIGTERM), 0) << server.Log();
  db::DatabaseOptions options;
  options.sqlite_path = (data / "cairn.db").string();
  auto reopened = db::OpenDatabase(options);
  ASSERT_TRUE(reopened.ok()) << reopened.error().message;
  EXPECT_EQ(*QueryAll(**reopened, "PRAGMA integrity_check").rows.at(0).at(0), "ok");
  std::set<std::string> stored;
  const db::Rows rows = QueryAll(**reopened, R"(SELECT "id" FROM "items")");
  for (const auto& row : rows.rows) {
    stored.insert(*row.at(0));
  }
  for (const auto& id : acknowledged) EXPECT_TRUE(stored.contains(id)) << "lost record " << id;
}

}  // namespace
}  // namespace cairn::test
