// The conformance suite of storage::ObjectStore (D41, D47): every backend must pass it, on
// SQLite and PostgreSQL (the bytea backend keeps its files there; the others keep their
// metadata-free objects elsewhere but run beside either database). A backend joins by adding a
// StoreFactory to Factories() below; the suite then covers it with no further code.
//
// After the suite, the bytea backend's own checks: its table layout, a full disk (507), a
// staged version swept by another node, and the prefix bound used by List.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "common/time.hpp"
#include "db_test_util.hpp"
#include "storage/bytea/bytea_object_store.hpp"
#include "storage/object_store.hpp"
#include "support/test_database.hpp"

namespace cairn::storage {
namespace {

using test::TestDatabase;

// --- How a backend joins the suite ----------------------------------------------------------

struct StoreFactory {
  std::string name;  // the test-name suffix ([A-Za-z0-9_])
  // A store over the test's database (bytea) or its scratch directory (local), not started.
  std::function<std::unique_ptr<ObjectStore>(TestDatabase&)> make;
  // The backend's unit of storage (a chunk, a part, a page): range reads straddle its
  // boundaries.
  std::uint64_t block_bytes = 4096;
  // What no committed object needs: staged uploads, and bytes or rows of replaced or removed
  // objects. Must be 0 after every Commit, Abort, Remove and Start.
  std::function<std::int64_t(TestDatabase&)> leftovers;
  // Leaves what a crash in the middle of an upload leaves, old enough for Start to remove.
  std::function<void(TestDatabase&)> plant_crash_leftovers;
};

// --- bytea -----------------------------------------------------------------------------------

Status Run(db::Database& database, const std::function<Status(db::Connection&)>& work) {
  return database.Transaction(db::Access::kWrite, work);
}

std::int64_t ByteaLeftovers(TestDatabase& tdb) {
  // Versions and chunks no object points at.
  return test::QueryInt(
      tdb.db(), R"(SELECT (SELECT COUNT(*) FROM "_cairn_storage_versions" WHERE "id" NOT IN )"
                R"((SELECT "version_id" FROM "_cairn_storage_objects")) + )"
                R"((SELECT COUNT(*) FROM "_cairn_storage_chunks" WHERE "version_id" NOT IN )"
                R"((SELECT "version_id" FROM "_cairn_storage_objects")))");
}

// A version with chunks that no object points at: staged (0), as an upload that never reached
// Commit or Abort leaves it, or retired (2), as a crash in the middle of deleting it leaves it.
std::int64_t PlantVersion(TestDatabase& tdb, std::int64_t touched_at, int chunks,
                          std::int64_t state = 0) {
  std::int64_t id = 0;
  const Status status = Run(tdb.db(), [&](db::Connection& c) -> Status {
    // Owned by the planting session, which stays connected (a live node's upload).
    auto inserted = c.Execute(
        R"(INSERT INTO "_cairn_storage_versions" ("chunk_bytes", "created_at", "touched_at", )"
        R"("state", "owner") VALUES (?, ?, ?, ?, )" +
            std::string(c.dialect().SessionId()) + R"() RETURNING "id")",
        {std::int64_t{4}, touched_at, touched_at, state},
        [&](const db::Row& row) { id = row.GetInt64(0); });
    if (!inserted.ok()) return std::move(inserted).error();
    for (int seq = 0; seq < chunks; ++seq) {
      auto chunk = c.Execute(
          R"(INSERT INTO "_cairn_storage_chunks" ("version_id", "seq", "data") VALUES (?, ?, ?))",
          {id, std::int64_t{seq}, db::Blob{"abcd"}});
      if (!chunk.ok()) return std::move(chunk).error();
    }
    return {};
  });
  EXPECT_TRUE(status.ok()) << test::Describe(status.error());
  return id;
}

StoreFactory Bytea(std::string name, ByteaOptions options) {
  StoreFactory factory;
  factory.name = std::move(name);
  factory.make = [options](TestDatabase& tdb) {
    return std::make_unique<ByteaObjectStore>(tdb.db(), options);
  };
  factory.block_bytes = options.chunk_bytes;
  factory.leftovers = ByteaLeftovers;
  factory.plant_crash_leftovers = [](TestDatabase& tdb) {
    PlantVersion(tdb, 0, 3);                                // a dead upload
    PlantVersion(tdb, time::NowMillis(), 40, /*state=*/2);  // a delete cut short, any age
  };
  return factory;
}

std::vector<StoreFactory> Factories() {
  std::vector<StoreFactory> factories;
  factories.push_back(Bytea("bytea", {}));
  // Odd-sized chunks, a few per transaction: boundaries everywhere.
  ByteaOptions small;
  small.chunk_bytes = 5003;
  small.chunks_per_transaction = 3;
  small.read_ahead_chunks = 2;
  factories.push_back(Bytea("bytea_small_chunks", small));
  return factories;
}

// --- Helpers ---------------------------------------------------------------------------------

// Deterministic bytes that differ at every position (so a shifted range cannot compare equal).
std::string Bytes(std::size_t size, std::uint64_t seed) {
  std::string out(size, '\0');
  std::uint64_t x = seed * 0x9E3779B97F4A7C15ULL + 1;
  for (char& c : out) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    c = static_cast<char>(x >> 56);
  }
  return out;
}

// FNV-1a, streamed: large objects are hashed as they are written and read.
struct Hash {
  std::uint64_t value = 0xcbf29ce484222325ULL;
  void Add(std::string_view bytes) {
    for (const char c : bytes) {
      value ^= static_cast<unsigned char>(c);
      value *= 0x100000001b3ULL;
    }
  }
};

constexpr std::string_view kBucket = "media";

class ObjectStoreTest : public test::DatabaseTest,
                        public ::testing::WithParamInterface<StoreFactory> {
 protected:
  void SetUp() override {
    DatabaseTest::SetUp();
    if (HasFatalFailure()) return;
    store_ = GetParam().make(test_database());
    ASSERT_NE(store_, nullptr);
    CAIRN_ASSERT_OK(store_->Start());
  }
  void TearDown() override {
    store_.reset();
    DatabaseTest::TearDown();
  }

  ObjectStore& store() { return *store_; }
  std::int64_t Leftovers() { return GetParam().leftovers(test_database()); }

  // Writes `content` in pieces of `piece` bytes and commits it.
  ObjectInfo Put(std::string_view path, std::string_view content, std::size_t piece = 65536,
                 std::string_view bucket = kBucket, std::string_view mime = "text/plain") {
    auto writer = store().Create(bucket, path);
    EXPECT_TRUE(writer.ok()) << test::Describe(writer.error());
    if (!writer.ok()) return {};
    for (std::size_t offset = 0; offset < content.size(); offset += piece) {
      const Status written = (*writer)->Write(content.substr(offset, piece));
      EXPECT_TRUE(written.ok()) << test::Describe(written.error());
      if (!written.ok()) return {};
    }
    auto info = (*writer)->Commit(mime);
    EXPECT_TRUE(info.ok()) << test::Describe(info.error());
    return info.ok() ? *info : ObjectInfo{};
  }

  // Reads `range` whole through buffers of `buffer_bytes`.
  Result<std::string> Get(std::string_view path, ByteRange range, std::size_t buffer_bytes = 7001) {
    CAIRN_ASSIGN_OR_RETURN(auto reader, store().Open(kBucket, path, range));
    std::string out;
    std::vector<char> buffer(buffer_bytes);
    for (;;) {
      CAIRN_ASSIGN_OR_RETURN(const std::size_t n, reader->Read(buffer));
      if (n == 0) break;
      out.append(buffer.data(), n);
      if (out.size() > range.length) return Error::Internal("read past the range");
    }
    return out;
  }
  std::string GetAll(std::string_view path, std::uint64_t size) {
    auto bytes = Get(path, {0, size});
    EXPECT_TRUE(bytes.ok()) << test::Describe(bytes.error());
    return bytes.ok() ? *bytes : std::string();
  }

 private:
  std::unique_ptr<ObjectStore> store_;
};

// --- The suite -------------------------------------------------------------------------------

TEST_P(ObjectStoreTest, StatMissingAndPresent) {
  auto missing = store().Stat(kBucket, "nope.txt");
  CAIRN_ASSERT_OK(missing);
  EXPECT_FALSE(missing->has_value());
  auto open = store().Open(kBucket, "nope.txt", {0, 0});
  ASSERT_FALSE(open.ok());
  EXPECT_EQ(open.error().code, ErrorCode::kNotFound);

  const std::int64_t before = time::NowMillis();
  const ObjectInfo put = Put("docs/a.txt", "hello world", 65536, kBucket, "text/plain");
  EXPECT_EQ(put.path, "docs/a.txt");
  EXPECT_EQ(put.size, 11U);
  EXPECT_EQ(put.mime_type, "text/plain");
  ASSERT_GE(put.etag.size(), 3U);
  EXPECT_EQ(put.etag.front(), '"');
  EXPECT_EQ(put.etag.back(), '"');
  EXPECT_GE(put.updated_at_ms, before - 1000);
  EXPECT_LE(put.updated_at_ms, time::NowMillis() + 1000);

  auto stat = store().Stat(kBucket, "docs/a.txt");
  CAIRN_ASSERT_OK(stat);
  ASSERT_TRUE(stat->has_value());
  EXPECT_EQ((*stat)->path, "docs/a.txt");
  EXPECT_EQ((*stat)->size, 11U);
  EXPECT_EQ((*stat)->mime_type, "text/plain");
  EXPECT_EQ((*stat)->etag, put.etag);
  EXPECT_EQ((*stat)->updated_at_ms, put.updated_at_ms);
  // Buckets are separate namespaces.
  auto other = store().Stat("other", "docs/a.txt");
  CAIRN_ASSERT_OK(other);
  EXPECT_FALSE(other->has_value());
  EXPECT_EQ(Leftovers(), 0);
}

TEST_P(ObjectStoreTest, ReadsWholeAndByRanges) {
  const std::uint64_t block = GetParam().block_bytes;
  const std::string content = Bytes(3 * std::max<std::uint64_t>(block, 65536) + 12345, 1);
  const std::uint64_t size = content.size();
  Put("r.bin", content, 10007);
  EXPECT_EQ(GetAll("r.bin", size), content);
  // Through a one-byte buffer and a buffer larger than the object, too.
  auto tiny = Get("r.bin", {size - 100, 100}, 1);
  CAIRN_ASSERT_OK(tiny);
  EXPECT_EQ(*tiny, content.substr(size - 100));
  auto huge = Get("r.bin", {0, size}, size + 10);
  CAIRN_ASSERT_OK(huge);
  EXPECT_EQ(*huge, content);

  std::vector<ByteRange> ranges = {
      {0, 1}, {size - 1, 1}, {0, 0}, {size, 0}, {size / 2, 1000}, {1, size - 2}, {17, 4096},
  };
  for (const std::uint64_t unit :
       {block, std::uint64_t{4096}, std::uint64_t{65536}, std::uint64_t{262144}}) {
    for (std::uint64_t k = unit; k < size; k += unit) {
      ranges.push_back({k - 1, 2});                     // across the boundary
      ranges.push_back({k, 1});                         // the first byte after it
      ranges.push_back({k - 1, 1});                     // the last byte before it
      ranges.push_back({k, std::min(unit, size - k)});  // exactly one block
      if (k >= 10 && k + unit + 10 <= size) ranges.push_back({k - 10, unit + 20});  // spanning
    }
  }
  for (const ByteRange& range : ranges) {
    auto bytes = Get("r.bin", range);
    CAIRN_ASSERT_OK(bytes);
    ASSERT_EQ(*bytes, content.substr(range.offset, range.length))
        << "range " << range.offset << "+" << range.length;
  }

  // An empty object.
  const ObjectInfo empty = Put("empty", "");
  EXPECT_EQ(empty.size, 0U);
  auto none = Get("empty", {0, 0});
  CAIRN_ASSERT_OK(none);
  EXPECT_EQ(*none, "");
  EXPECT_EQ(Leftovers(), 0);
}

TEST_P(ObjectStoreTest, ReplaceServesOldUntilCommit) {
  const std::string v1 = Bytes(300'000, 1);
  const std::string v2 = Bytes(700'000, 2);
  const ObjectInfo first = Put("doc.bin", v1);

  auto writer = store().Create(kBucket, "doc.bin");
  CAIRN_ASSERT_OK(writer);
  for (std::size_t offset = 0; offset < v2.size(); offset += 65536) {
    CAIRN_ASSERT_OK((*writer)->Write(std::string_view(v2).substr(offset, 65536)));
    if (offset == 327680) {
      // Half way: the old object, whole.
      auto stat = store().Stat(kBucket, "doc.bin");
      CAIRN_ASSERT_OK(stat);
      ASSERT_TRUE(stat->has_value());
      EXPECT_EQ((*stat)->size, v1.size());
      EXPECT_EQ((*stat)->etag, first.etag);
      EXPECT_EQ(GetAll("doc.bin", v1.size()), v1);
    }
  }
  // Everything written, nothing committed: still the old object.
  EXPECT_EQ(GetAll("doc.bin", v1.size()), v1);
  auto committed = (*writer)->Commit("application/octet-stream");
  CAIRN_ASSERT_OK(committed);
  EXPECT_EQ(committed->size, v2.size());
  EXPECT_NE(committed->etag, first.etag);
  writer->reset();

  auto stat = store().Stat(kBucket, "doc.bin");
  CAIRN_ASSERT_OK(stat);
  ASSERT_TRUE(stat->has_value());
  EXPECT_EQ((*stat)->size, v2.size());
  EXPECT_EQ((*stat)->mime_type, "application/octet-stream");
  EXPECT_EQ((*stat)->etag, committed->etag);
  EXPECT_EQ(GetAll("doc.bin", v2.size()), v2);

  // Replacing with a smaller object.
  Put("doc.bin", "tiny");
  EXPECT_EQ(GetAll("doc.bin", 4), "tiny");
  EXPECT_EQ(Leftovers(), 0);
}

TEST_P(ObjectStoreTest, AbortAndDroppedWritersLeaveTheOldObject) {
  const std::string v1 = Bytes(200'000, 1);
  const std::string v2 = Bytes(2'000'000, 2);
  Put("keep.bin", v1);

  {  // Abort after many bytes.
    auto writer = store().Create(kBucket, "keep.bin");
    CAIRN_ASSERT_OK(writer);
    for (std::size_t offset = 0; offset < v2.size(); offset += 65536) {
      CAIRN_ASSERT_OK((*writer)->Write(std::string_view(v2).substr(offset, 65536)));
    }
    (*writer)->Abort();
    EXPECT_EQ(Leftovers(), 0);
  }
  EXPECT_EQ(GetAll("keep.bin", v1.size()), v1);

  {  // Dropped without Commit or Abort.
    auto writer = store().Create(kBucket, "keep.bin");
    CAIRN_ASSERT_OK(writer);
    for (std::size_t offset = 0; offset < v2.size(); offset += 65536) {
      CAIRN_ASSERT_OK((*writer)->Write(std::string_view(v2).substr(offset, 65536)));
    }
  }
  EXPECT_EQ(Leftovers(), 0);
  EXPECT_EQ(GetAll("keep.bin", v1.size()), v1);

  {  // A new path aborted: nothing appears.
    auto writer = store().Create(kBucket, "never.bin");
    CAIRN_ASSERT_OK(writer);
    CAIRN_ASSERT_OK((*writer)->Write("partial"));
    (*writer)->Abort();
  }
  {  // Created and dropped with no bytes at all.
    auto writer = store().Create(kBucket, "never.bin");
    CAIRN_ASSERT_OK(writer);
  }
  auto stat = store().Stat(kBucket, "never.bin");
  CAIRN_ASSERT_OK(stat);
  EXPECT_FALSE(stat->has_value());
  EXPECT_EQ(Leftovers(), 0);
}

TEST_P(ObjectStoreTest, RemoveAnswersWhetherThereWasOne) {
  auto absent = store().Remove(kBucket, "x.bin");
  CAIRN_ASSERT_OK(absent);
  EXPECT_FALSE(*absent);

  Put("x.bin", Bytes(600'000, 3));
  Put("y.bin", "stays");
  auto removed = store().Remove(kBucket, "x.bin");
  CAIRN_ASSERT_OK(removed);
  EXPECT_TRUE(*removed);
  auto stat = store().Stat(kBucket, "x.bin");
  CAIRN_ASSERT_OK(stat);
  EXPECT_FALSE(stat->has_value());
  auto open = store().Open(kBucket, "x.bin", {0, 1});
  ASSERT_FALSE(open.ok());
  EXPECT_EQ(open.error().code, ErrorCode::kNotFound);
  auto again = store().Remove(kBucket, "x.bin");
  CAIRN_ASSERT_OK(again);
  EXPECT_FALSE(*again);
  auto wrong_bucket = store().Remove("other", "y.bin");
  CAIRN_ASSERT_OK(wrong_bucket);
  EXPECT_FALSE(*wrong_bucket);
  EXPECT_EQ(GetAll("y.bin", 5), "stays");
  EXPECT_EQ(Leftovers(), 0);
}

TEST_P(ObjectStoreTest, ListsByPrefixWithLimitAndCursor) {
  std::vector<std::string> expected;
  for (int i = 0; i < 25; ++i) {
    char name[32];
    std::snprintf(name, sizeof name, "dir/file-%02d.txt", i);
    expected.emplace_back(name);
  }
  // Written out of order; neighbours that must not match the prefix `dir/`.
  for (int i = 24; i >= 0; --i) Put(expected[static_cast<std::size_t>(i)], std::to_string(i));
  Put("dir", "no");
  Put("dir0/x", "no");
  Put("dir.x", "no");
  Put("Dir/upper", "no");
  Put("dir/file-00.txt", "other bucket", 65536, "other");

  std::vector<std::string> seen;
  std::string cursor;
  int pages = 0;
  for (;;) {
    auto page = store().List(kBucket, "dir/", 10, cursor);
    CAIRN_ASSERT_OK(page);
    ++pages;
    EXPECT_LE(page->objects.size(), 10U);
    for (const ObjectInfo& info : page->objects) {
      seen.push_back(info.path);
      EXPECT_EQ(info.mime_type, "text/plain");
      EXPECT_FALSE(info.etag.empty());
    }
    if (!page->next_cursor) break;
    ASSERT_LT(pages, 10);
    cursor = *page->next_cursor;
  }
  EXPECT_EQ(pages, 3);
  EXPECT_EQ(seen, expected);

  // Sizes are listed; the first entry is file-00 ("0").
  auto first = store().List(kBucket, "dir/file-1", 3, "");
  CAIRN_ASSERT_OK(first);
  ASSERT_EQ(first->objects.size(), 3U);
  EXPECT_EQ(first->objects[0].path, "dir/file-10.txt");
  EXPECT_EQ(first->objects[0].size, 2U);
  EXPECT_TRUE(first->next_cursor.has_value());

  // Exactly `limit` left: no next page.
  auto exact = store().List(kBucket, "dir/file-2", 5, "");
  CAIRN_ASSERT_OK(exact);
  EXPECT_EQ(exact->objects.size(), 5U);
  EXPECT_FALSE(exact->next_cursor.has_value());

  // No prefix: the whole bucket, bytewise (uppercase before lowercase, `.` before `/` before
  // `0`).
  auto all = store().List(kBucket, "", 100, "");
  CAIRN_ASSERT_OK(all);
  std::vector<std::string> paths;
  for (const ObjectInfo& info : all->objects) paths.push_back(info.path);
  ASSERT_EQ(paths.size(), 29U);
  EXPECT_TRUE(std::is_sorted(paths.begin(), paths.end()));
  EXPECT_EQ(paths.front(), "Dir/upper");
  EXPECT_EQ(paths[1], "dir");
  EXPECT_EQ(paths[2], "dir.x");
  EXPECT_EQ(paths.back(), "dir0/x");

  auto nothing = store().List(kBucket, "zzz", 10, "");
  CAIRN_ASSERT_OK(nothing);
  EXPECT_TRUE(nothing->objects.empty());
  EXPECT_FALSE(nothing->next_cursor.has_value());

  auto bad = store().List(kBucket, "dir/", 10, "not a cursor");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, ErrorCode::kValidation);
}

TEST_P(ObjectStoreTest, PrefixIsLiteralText) {
  for (const char* path : {"a%b/1", "a%bc", "a_b/2", "axb/3", "aXb/4", "A%b/5", "ab", "a",
                           "\xC3\xA9t\xC3\xA9/1", "\xC3\xA9z", "\xC3\xAA"}) {
    Put(path, "x");
  }
  const auto list = [&](std::string_view prefix) {
    std::vector<std::string> paths;
    auto page = store().List(kBucket, prefix, 100, "");
    EXPECT_TRUE(page.ok()) << test::Describe(page.error());
    if (page.ok()) {
      for (const ObjectInfo& info : page->objects) paths.push_back(info.path);
    }
    return paths;
  };
  EXPECT_EQ(list("a%"), (std::vector<std::string>{"a%b/1", "a%bc"}));
  EXPECT_EQ(list("a_"), (std::vector<std::string>{"a_b/2"}));
  EXPECT_EQ(list("A"), (std::vector<std::string>{"A%b/5"}));  // case matters
  EXPECT_EQ(list("a%b/"), (std::vector<std::string>{"a%b/1"}));
  EXPECT_EQ(list("\xC3\xA9"), (std::vector<std::string>{"\xC3\xA9t\xC3\xA9/1", "\xC3\xA9z"}));
  EXPECT_EQ(list("%"), std::vector<std::string>{});
  EXPECT_EQ(list("_"), std::vector<std::string>{});
}

TEST_P(ObjectStoreTest, LargeObjectStreams) {
  constexpr std::size_t kSize = 20 * 1024 * 1024;
  constexpr std::size_t kPiece = 256 * 1024;
  Hash written;
  {
    auto writer = store().Create(kBucket, "big.bin");
    CAIRN_ASSERT_OK(writer);
    for (std::size_t offset = 0; offset < kSize; offset += kPiece) {
      const std::string piece = Bytes(kPiece, offset / kPiece + 100);
      written.Add(piece);
      CAIRN_ASSERT_OK((*writer)->Write(piece));
    }
    auto info = (*writer)->Commit("application/octet-stream");
    CAIRN_ASSERT_OK(info);
    EXPECT_EQ(info->size, kSize);
  }
  auto reader = store().Open(kBucket, "big.bin", {0, kSize});
  CAIRN_ASSERT_OK(reader);
  Hash read;
  std::size_t total = 0;
  std::vector<char> buffer(65536);
  for (;;) {
    auto n = (*reader)->Read(buffer);
    CAIRN_ASSERT_OK(n);
    if (*n == 0) break;
    read.Add(std::string_view(buffer.data(), *n));
    total += *n;
  }
  EXPECT_EQ(total, kSize);
  EXPECT_EQ(read.value, written.value);
  // A range in the middle of the large object.
  auto middle = Get("big.bin", {kSize / 2 + 3, 1000});
  CAIRN_ASSERT_OK(middle);
  const std::size_t piece_index = (kSize / 2 + 3) / kPiece;
  EXPECT_EQ(*middle, Bytes(kPiece, piece_index + 100).substr((kSize / 2 + 3) % kPiece, 1000));
  EXPECT_EQ(Leftovers(), 0);
}

TEST_P(ObjectStoreTest, StartRemovesCrashLeftovers) {
  const std::string content = Bytes(100'000, 5);
  Put("survivor.bin", content);
  GetParam().plant_crash_leftovers(test_database());
  EXPECT_GT(Leftovers(), 0);

  // The next start (another store on the same data, as after a restart).
  auto restarted = GetParam().make(test_database());
  CAIRN_ASSERT_OK(restarted->Start());
  EXPECT_EQ(Leftovers(), 0);
  CAIRN_ASSERT_OK(restarted->Start());  // idempotent
  EXPECT_EQ(GetAll("survivor.bin", content.size()), content);
}

TEST_P(ObjectStoreTest, ConcurrentUploadsToOnePathEndWithOneWholeFile) {
  constexpr std::size_t kSize = 1'500'000;
  const std::string a = Bytes(kSize, 11);
  const std::string b = Bytes(kSize, 12);
  for (int round = 0; round < 3; ++round) {
    const std::string path = "race-" + std::to_string(round);
    if (round == 2) Put(path, "an old object is replaced too");
    std::atomic<int> ready{0};
    const auto upload = [&](const std::string& content, Status& result) {
      auto writer = store().Create(kBucket, path);
      if (!writer.ok()) {
        result = writer.error();
        return;
      }
      ready.fetch_add(1);
      while (ready.load() < 2) std::this_thread::yield();
      for (std::size_t offset = 0; offset < content.size(); offset += 32768) {
        result = (*writer)->Write(std::string_view(content).substr(offset, 32768));
        if (!result.ok()) return;
      }
      auto info = (*writer)->Commit("application/octet-stream");
      if (!info.ok()) result = info.error();
    };
    Status result_a;
    Status result_b;
    std::thread first([&] { upload(a, result_a); });
    std::thread second([&] { upload(b, result_b); });
    first.join();
    second.join();
    CAIRN_ASSERT_OK(result_a);
    CAIRN_ASSERT_OK(result_b);
    const std::string got = GetAll(path, kSize);
    EXPECT_TRUE(got == a || got == b) << "round " << round << ": a mix of both uploads";
    EXPECT_EQ(Leftovers(), 0);
  }
}

TEST_P(ObjectStoreTest, ReaderNeverMixesVersions) {
  const std::string v1 = Bytes(3'000'000, 21);
  const std::string v2 = Bytes(3'000'000, 22);
  Put("swap.bin", v1);
  auto reader = store().Open(kBucket, "swap.bin", {0, v1.size()});
  CAIRN_ASSERT_OK(reader);
  std::string got;
  std::vector<char> buffer(100'000);
  auto n = (*reader)->Read(buffer);
  CAIRN_ASSERT_OK(n);
  got.append(buffer.data(), *n);
  Put("swap.bin", v2);  // replaced while being read
  for (;;) {
    auto more = (*reader)->Read(buffer);
    if (!more.ok()) break;  // allowed: the reader stops
    if (*more == 0) break;
    got.append(buffer.data(), *more);
  }
  // Whatever was read is the old version's bytes, never the new one's.
  EXPECT_EQ(got, v1.substr(0, got.size()));
  reader->reset();
  EXPECT_EQ(GetAll("swap.bin", v2.size()), v2);
  EXPECT_EQ(Leftovers(), 0);
}

INSTANTIATE_TEST_SUITE_P(Backends, ObjectStoreTest, ::testing::ValuesIn(Factories()),
                         [](const ::testing::TestParamInfo<StoreFactory>& info) {
                           return info.param.name;
                         });

// --- bytea only ------------------------------------------------------------------------------

class ByteaStoreTest : public test::DatabaseTest {
 protected:
  void SetUp() override {
    DatabaseTest::SetUp();
    if (HasFatalFailure()) return;
    store_ = std::make_unique<ByteaObjectStore>(database());
    CAIRN_ASSERT_OK(store_->Start());
  }
  void TearDown() override {
    store_.reset();
    DatabaseTest::TearDown();
  }
  ByteaObjectStore& store() { return *store_; }
  std::int64_t Count(std::string_view sql) { return test::QueryInt(database(), sql); }

  Status PutBytes(std::string_view path, std::string_view content) {
    CAIRN_ASSIGN_OR_RETURN(auto writer, store().Create(kBucket, path));
    for (std::size_t offset = 0; offset < content.size(); offset += 65536) {
      CAIRN_TRY(writer->Write(content.substr(offset, 65536)));
    }
    CAIRN_TRY(writer->Commit("application/octet-stream"));
    return {};
  }

 private:
  std::unique_ptr<ByteaObjectStore> store_;
};

TEST_F(ByteaStoreTest, StoresChunksOfOneVersionAndDropsTheOld) {
  CAIRN_ASSERT_OK(PutBytes("a.bin", Bytes(kByteaChunkBytes * 2 + 10, 1)));
  EXPECT_EQ(Count(R"(SELECT COUNT(*) FROM "_cairn_storage_chunks")"), 3);
  EXPECT_EQ(Count(R"(SELECT MAX(LENGTH("data")) FROM "_cairn_storage_chunks")"),
            static_cast<std::int64_t>(kByteaChunkBytes));
  EXPECT_EQ(Count(R"(SELECT COUNT(*) FROM "_cairn_storage_versions" WHERE "state" = 1)"), 1);
  CAIRN_ASSERT_OK(PutBytes("a.bin", "short"));
  EXPECT_EQ(Count(R"(SELECT COUNT(*) FROM "_cairn_storage_chunks")"), 1);
  EXPECT_EQ(Count(R"(SELECT COUNT(*) FROM "_cairn_storage_versions")"), 1);
  // Start again on a populated database: the schema is created idempotently.
  CAIRN_ASSERT_OK(store().Start());
  EXPECT_EQ(Count(R"(SELECT COUNT(*) FROM "_cairn_storage_objects")"), 1);
}

TEST_F(ByteaStoreTest, StartKeepsYoungStagingOfALiveUpload) {
  // Another node's upload, written a moment ago, and one dead for longer than the grace period.
  // SQLite has no other node: what is staged when a store starts is a dead process's.
  const bool other_nodes = test_database().db().dialect().shared_server();
  const std::int64_t now = time::NowMillis();
  const std::int64_t live = PlantVersion(test_database(), now, 2);
  const std::int64_t grace = std::chrono::milliseconds(kStagedVersionGrace).count();
  const std::int64_t dead = PlantVersion(test_database(), now - grace - 1000, 2);
  CAIRN_ASSERT_OK(store().Start());
  EXPECT_EQ(Count(R"(SELECT COUNT(*) FROM "_cairn_storage_versions" WHERE "id" = )" +
                  std::to_string(live)),
            other_nodes ? 1 : 0);
  EXPECT_EQ(Count(R"(SELECT COUNT(*) FROM "_cairn_storage_chunks" WHERE "version_id" = )" +
                  std::to_string(live)),
            other_nodes ? 2 : 0);
  EXPECT_EQ(Count(R"(SELECT COUNT(*) FROM "_cairn_storage_versions" WHERE "id" = )" +
                  std::to_string(dead)),
            0);
  EXPECT_EQ(Count(R"(SELECT COUNT(*) FROM "_cairn_storage_chunks" WHERE "version_id" = )" +
                  std::to_string(dead)),
            0);
}

// On PostgreSQL, a version whose owning session is gone is dead at once, however young.
TEST_F(ByteaStoreTest, StartRemovesStagingOfADeadSession) {
  if (!test_database().db().dialect().shared_server()) GTEST_SKIP() << "sessions: PostgreSQL";
  const std::int64_t young = PlantVersion(test_database(), time::NowMillis(), 2);
  CAIRN_ASSERT_OK(storage::Run(test_database().db(), [&](db::Connection& c) -> Status {
    // No backend has pid 1 (it is the init process of the machine, never a PostgreSQL session).
    auto moved =
        c.Execute(R"(UPDATE "_cairn_storage_versions" SET "owner" = 1 WHERE "id" = ?)", {young});
    if (!moved.ok()) return std::move(moved).error();
    return {};
  }));
  CAIRN_ASSERT_OK(store().Start());
  EXPECT_EQ(Count(R"(SELECT COUNT(*) FROM "_cairn_storage_versions" WHERE "id" = )" +
                  std::to_string(young)),
            0);
}

TEST_F(ByteaStoreTest, UploadWhoseStagingWasSweptFailsAndKeepsTheOldObject) {
  const std::string v1 = Bytes(100'000, 1);
  CAIRN_ASSERT_OK(PutBytes("s.bin", v1));
  auto writer = store().Create(kBucket, "s.bin");
  CAIRN_ASSERT_OK(writer);
  CAIRN_ASSERT_OK((*writer)->Write(Bytes(kByteaChunkBytes * kByteaChunksPerTransaction, 2)));
  // Another node starts with no grace at all and sweeps this upload's staging.
  ByteaOptions eager;
  eager.staged_version_grace = std::chrono::milliseconds(-1000);
  ByteaObjectStore other(database(), eager);
  CAIRN_ASSERT_OK(other.Start());
  CAIRN_ASSERT_OK((*writer)->Write("more"));  // buffered, not flushed yet
  auto committed = (*writer)->Commit("application/octet-stream");
  ASSERT_FALSE(committed.ok());
  EXPECT_EQ(committed.error().code, ErrorCode::kUnavailable);
  writer->reset();
  auto stat = store().Stat(kBucket, "s.bin");
  CAIRN_ASSERT_OK(stat);
  ASSERT_TRUE(stat->has_value());
  EXPECT_EQ((*stat)->size, v1.size());
  EXPECT_EQ(ByteaLeftovers(test_database()), 0);
}

// A full disk under an upload answers 507 and leaves the old object: SQLite through a page
// limit on the writer connection, PostgreSQL through a trigger raising disk_full (53100).
TEST_F(ByteaStoreTest, FullDiskIs507AndKeepsTheOldObject) {
  const std::string v1 = Bytes(50'000, 1);
  CAIRN_ASSERT_OK(PutBytes("f.bin", v1));
  if (test::IsPostgres()) {
    CAIRN_ASSERT_OK(test::RunScript(database(), R"SQL(
CREATE FUNCTION cairn_test_full() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN RAISE EXCEPTION 'could not extend file' USING ERRCODE = 'disk_full'; END $$;
CREATE TRIGGER cairn_test_full BEFORE INSERT ON "_cairn_storage_chunks"
  FOR EACH ROW EXECUTE FUNCTION cairn_test_full();
)SQL"));
  } else {
    const std::int64_t pages = Count("PRAGMA page_count");
    CAIRN_ASSERT_OK(
        test::RunScript(database(), "PRAGMA max_page_count = " + std::to_string(pages + 8)));
  }
  auto writer = store().Create(kBucket, "f.bin");
  CAIRN_ASSERT_OK(writer);
  Status failed;
  const std::string v2 = Bytes(4 * 1024 * 1024, 2);
  for (std::size_t offset = 0; offset < v2.size() && failed.ok(); offset += 65536) {
    failed = (*writer)->Write(std::string_view(v2).substr(offset, 65536));
  }
  if (failed.ok()) {
    auto committed = (*writer)->Commit("application/octet-stream");
    ASSERT_FALSE(committed.ok());
    failed = committed.error();
  }
  EXPECT_EQ(failed.error().code, ErrorCode::kUnavailable);
  EXPECT_EQ(failed.error().http_status, 507);
  EXPECT_EQ(failed.error().reason, "DATABASE_FULL");
  writer->reset();  // discards what was staged (deletes need no new pages)
  auto stat = store().Stat(kBucket, "f.bin");
  CAIRN_ASSERT_OK(stat);
  ASSERT_TRUE(stat->has_value());
  EXPECT_EQ((*stat)->size, v1.size());
  auto reader = store().Open(kBucket, "f.bin", {0, v1.size()});
  CAIRN_ASSERT_OK(reader);
  std::string got(v1.size(), '\0');
  auto n = (*reader)->Read(got);
  CAIRN_ASSERT_OK(n);
  EXPECT_EQ(*n, v1.size());
  EXPECT_EQ(got, v1);
  EXPECT_EQ(ByteaLeftovers(test_database()), 0);
}

// Throughput of a 100 MB object (not an assertion; run on demand):
//   object_store_tests --gtest_also_run_disabled_tests --gtest_filter='*Throughput*'
// PostgreSQL numbers should come from `PG_DURABLE=1 scripts/with-postgres …` (fsync on).
TEST_F(ByteaStoreTest, DISABLED_Throughput) {
  constexpr std::size_t kSize = 100 * 1024 * 1024;
  constexpr std::size_t kPiece = 256 * 1024;
  const auto seconds = [](auto start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  // Anonymous memory (heap): SQLite's mmap of the database file is file-backed and not counted.
  double peak_anon_mib = 0;
  const auto sample = [&] {
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line)) {
      if (line.rfind("RssAnon:", 0) == 0) {
        peak_anon_mib = std::max(peak_anon_mib, std::stod(line.substr(8)) / 1024.0);
      }
    }
  };
  const double mib = static_cast<double>(kSize) / (1024.0 * 1024.0);
  std::vector<std::string> pieces;
  for (int i = 0; i < 8; ++i) pieces.push_back(Bytes(kPiece, static_cast<std::uint64_t>(i)));
  sample();
  const double anon_before = peak_anon_mib;
  for (int round = 0; round < 2; ++round) {  // the second round replaces the first object
    auto start = std::chrono::steady_clock::now();
    auto writer = store().Create(kBucket, "big.bin");
    CAIRN_ASSERT_OK(writer);
    for (std::size_t offset = 0, i = 0; offset < kSize; offset += kPiece, ++i) {
      CAIRN_ASSERT_OK((*writer)->Write(pieces[i % pieces.size()]));
      if (i % 16 == 0) sample();
    }
    const double written = seconds(start);
    auto commit_start = std::chrono::steady_clock::now();
    CAIRN_ASSERT_OK((*writer)->Commit("application/octet-stream"));
    const double commit = seconds(commit_start);
    const double total = seconds(start);
    std::printf("[%s] write 100 MiB (%s): %.2f s = %.0f MiB/s (writes %.2f s, commit %.3f s)\n",
                std::string(dialect().name()).c_str(), round == 0 ? "new" : "replace", total,
                mib / total, written, commit);
  }
  auto start = std::chrono::steady_clock::now();
  auto reader = store().Open(kBucket, "big.bin", {0, kSize});
  CAIRN_ASSERT_OK(reader);
  std::vector<char> buffer(kPiece);
  std::size_t total = 0;
  for (;;) {
    auto n = (*reader)->Read(buffer);
    CAIRN_ASSERT_OK(n);
    if (*n == 0) break;
    total += *n;
    if ((total / kPiece) % 16 == 0) sample();
  }
  ASSERT_EQ(total, kSize);
  const double read = seconds(start);
  std::printf("[%s] read 100 MiB: %.2f s = %.0f MiB/s\n", std::string(dialect().name()).c_str(),
              read, mib / read);
  start = std::chrono::steady_clock::now();
  auto removed = store().Remove(kBucket, "big.bin");
  CAIRN_ASSERT_OK(removed);
  std::printf("[%s] remove 100 MiB: %.3f s; anonymous memory %.1f MiB before, peak %.1f MiB\n",
              std::string(dialect().name()).c_str(), seconds(start), anon_before, peak_anon_mib);
}

TEST(PrefixUpperBoundTest, IncrementsTheLastCodePoint) {
  EXPECT_EQ(PrefixUpperBound(""), std::nullopt);
  EXPECT_EQ(PrefixUpperBound("a"), "b");
  EXPECT_EQ(PrefixUpperBound("dir/"), "dir0");
  EXPECT_EQ(PrefixUpperBound("a\x7F"), "a\xC2\x80");                  // U+007F → U+0080
  EXPECT_EQ(PrefixUpperBound("\xC3\xA9"), "\xC3\xAA");                // é → ê
  EXPECT_EQ(PrefixUpperBound("x\xDF\xBF"), "x\xE0\xA0\x80");          // U+07FF → U+0800
  EXPECT_EQ(PrefixUpperBound("\xED\x9F\xBF"), "\xEE\x80\x80");        // U+D7FF → U+E000
  EXPECT_EQ(PrefixUpperBound("x\xEF\xBF\xBF"), "x\xF0\x90\x80\x80");  // U+FFFF → U+10000
  EXPECT_EQ(PrefixUpperBound("x\xF4\x8F\xBF\xBF"), "y");              // U+10FFFF: drop it
  EXPECT_EQ(PrefixUpperBound("\xF4\x8F\xBF\xBF"), std::nullopt);
  EXPECT_EQ(PrefixUpperBound("a\xFF\xFF"), "b");  // not UTF-8: bytewise
}

}  // namespace
}  // namespace cairn::storage
