// The bytea storage backend (D41, D47): files live in the database, on PostgreSQL and on SQLite,
// in chunks of a version, so memory stays flat for a 1 GB file.
//
//   _cairn_storage_versions (id, chunk_bytes, created_at, touched_at, state)
//   _cairn_storage_chunks   (version_id, seq, data)          -- one row per chunk_bytes of a file
//   _cairn_storage_objects  (bucket, path, version_id, size, mime_type, etag, updated_at)
//
// A version is staged (0: being uploaded), live (1: an object points at it) or retired (2: its
// chunks are being deleted). An upload writes its chunks under a new staged version in short
// write transactions, a few chunks each, so SQLite's single writer is never held for a whole
// upload. Commit, in one transaction, makes the version live, points the object row at it and
// retires the old version: until then the old file is served whole, from then on the new one.
// Commit then deletes the old chunks before it returns, a few per transaction, so replacing a
// 1 GB file does not hold the writer for seconds either. Remove and Abort (or destroying an
// uncommitted writer) retire and delete the same way. Start deletes what a crash left: retired
// versions, and staged versions whose owner (the database session that began the upload) is
// gone or that were not written for kStagedVersionGrace. On PostgreSQL another node's live upload
// keeps its session, so it is spared; SQLite has one process, which starts before it uploads.
//
// A read fetches a few chunks per read transaction as the reader asks. A reader whose version
// is replaced or removed while it reads answers an error from then on (never bytes of another
// version).
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <string_view>

#include "db/database.hpp"
#include "storage/object_store.hpp"

namespace cairn::storage {

// The bytes of one chunk row (the last chunk of a file may be shorter).
inline constexpr std::size_t kByteaChunkBytes = 256 * 1024;
// Full chunks an upload buffers and writes per write transaction (1 MiB per transaction).
inline constexpr std::size_t kByteaChunksPerTransaction = 4;
// Chunks a reader fetches per read transaction.
inline constexpr std::size_t kByteaReadAheadChunks = 4;
// Chunks of a replaced, removed or discarded version deleted per write transaction (4 MiB).
inline constexpr std::size_t kByteaPurgeChunksPerTransaction = 16;
// A staged version not written for this long belongs to a dead upload even when its owner's
// session id is alive again (a reused id); Start deletes it. Live uploads write at least every
// few seconds (the HTTP layer cuts a body stalled for 30 s).
inline constexpr std::chrono::minutes kStagedVersionGrace{60};

struct ByteaOptions {
  std::size_t chunk_bytes = kByteaChunkBytes;
  std::size_t chunks_per_transaction = kByteaChunksPerTransaction;
  std::size_t read_ahead_chunks = kByteaReadAheadChunks;
  std::size_t purge_chunks_per_transaction = kByteaPurgeChunksPerTransaction;
  std::chrono::milliseconds staged_version_grace = kStagedVersionGrace;
};

class ByteaObjectStore final : public ObjectStore {
 public:
  // `database` must outlive the store and every reader and writer it hands out.
  explicit ByteaObjectStore(db::Database& database, ByteaOptions options = {});

  std::string_view provider() const override { return "bytea"; }
  // Creates the tables (idempotent) and deletes staged versions older than the grace period.
  Status Start() override;
  Result<std::optional<ObjectInfo>> Stat(std::string_view bucket, std::string_view path) override;
  Result<std::unique_ptr<ObjectReader>> Open(std::string_view bucket, std::string_view path,
                                             ByteRange range) override;
  Result<std::unique_ptr<ObjectWriter>> Create(std::string_view bucket,
                                               std::string_view path) override;
  Result<bool> Remove(std::string_view bucket, std::string_view path) override;
  Result<ListPage> List(std::string_view bucket, std::string_view prefix, int limit,
                        std::string_view cursor) override;

 private:
  db::Database& database_;
  ByteaOptions options_;
};

// The tables of the bytea backend (idempotent; Start calls it).
Status EnsureByteaSchema(db::Database& database);

// The least string greater than every string that starts with `prefix` (bytewise, which for
// UTF-8 is code point order), or nullopt when there is none (`prefix` empty). For valid UTF-8
// the bound is valid UTF-8 too (the last code point is incremented), so PostgreSQL accepts it
// as text. Exposed for tests.
std::optional<std::string> PrefixUpperBound(std::string_view prefix);

}  // namespace cairn::storage
