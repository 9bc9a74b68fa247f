// The transform cache on disk: atomic entries, LRU eviction within the size, and the accounting
// rebuilt at startup (a restart keeps entries and recency, drops a crash's temporary files).
#include "transform/disk_cache.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

namespace cairn::transform {
namespace {

std::string Key(char c) {
  return std::string(64, c);
}

class DiskCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("cairn-cache-test-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path dir_;
};

std::string Read(const DiskCache::Hit& hit) {
  std::string out(hit.size, '\0');
  EXPECT_EQ(::pread(hit.file.get(), out.data(), out.size(), 0), static_cast<ssize_t>(out.size()));
  return out;
}

TEST_F(DiskCacheTest, StoresFindsAndEvictsTheLeastRecentlyUsed) {
  DiskCache cache(dir_, 300);
  ASSERT_TRUE(cache.Start());
  ASSERT_TRUE(cache.Put(Key('a'), Output::kWebp, std::string(100, 'a')));
  ASSERT_TRUE(cache.Put(Key('b'), Output::kPng, std::string(100, 'b')));
  ASSERT_TRUE(cache.Put(Key('c'), Output::kJpeg, std::string(100, 'c')));
  auto hit = cache.Find(Key('a'));  // a becomes the most recent
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->output, Output::kWebp);
  EXPECT_EQ(Read(*hit), std::string(100, 'a'));
  ASSERT_TRUE(cache.Put(Key('d'), Output::kJpeg, std::string(100, 'd')));  // evicts b
  EXPECT_FALSE(cache.Find(Key('b')));
  EXPECT_TRUE(cache.Find(Key('a')));
  EXPECT_EQ(cache.size_bytes(), 300U);
  // An entry larger than the cache is not kept, and evicts nothing.
  ASSERT_TRUE(cache.Put(Key('e'), Output::kJpeg, std::string(301, 'e')));
  EXPECT_FALSE(cache.Find(Key('e')));
  EXPECT_EQ(cache.entry_count(), 3U);
}

TEST_F(DiskCacheTest, RestartRebuildsTheAccountingAndDropsTemporaryFiles) {
  {
    DiskCache cache(dir_, 1000);
    ASSERT_TRUE(cache.Start());
    ASSERT_TRUE(cache.Put(Key('a'), Output::kWebp, std::string(100, 'a')));
    ASSERT_TRUE(cache.Put(Key('b'), Output::kAvif, std::string(50, 'b')));
  }
  std::ofstream(dir_ / (Key('c') + ".x1y2z3.tmp")) << "half an entry";
  std::ofstream(dir_ / "unrelated.txt") << "not ours";
  DiskCache again(dir_, 1000);
  ASSERT_TRUE(again.Start());
  EXPECT_EQ(again.entry_count(), 2U);
  EXPECT_EQ(again.size_bytes(), 150U);
  EXPECT_FALSE(std::filesystem::exists(dir_ / (Key('c') + ".x1y2z3.tmp")));
  auto hit = again.Find(Key('b'));
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->output, Output::kAvif);
  // A smaller limit at the next start evicts down to it.
  DiskCache smaller(dir_, 60);
  ASSERT_TRUE(smaller.Start());
  EXPECT_LE(smaller.size_bytes(), 60U);
}

}  // namespace
}  // namespace cairn::transform
