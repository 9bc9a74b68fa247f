#include "storage/bytea/bytea_object_store.hpp"

#include <algorithm>
#include <cstring>
#include <utility>
#include <vector>

#include "common/crypto.hpp"
#include "common/log.hpp"
#include "common/text.hpp"
#include "common/time.hpp"
#include "storage/limits.hpp"

namespace cairn::storage {
namespace {

// --- SQL ------------------------------------------------------------------------------------
// Every bucket, path and byte is a bound value; only fixed names are spliced.

// _cairn_storage_versions.state, written as literals in the statements below: 0 staged (being
// uploaded), 1 live (an object points at it), 2 retired (replaced, removed or discarded: its
// chunks are being deleted).
constexpr std::int64_t kStaged = 0;

// The owner is the database session that started the upload: once it is gone (its node died),
// the version is dead whatever its age.
std::string InsertVersionSql(const db::Dialect& dialect) {
  return R"(INSERT INTO "_cairn_storage_versions" ("chunk_bytes", "created_at", "touched_at", )"
         R"("state", "owner") VALUES (?, ?, ?, 0, )" +
         std::string(dialect.SessionId()) + R"() RETURNING "id")";
}
// A flush first touches its staged version: 0 rows means a sweep deleted it (or it was
// retired), and the flush fails instead of writing chunks nobody will read.
constexpr std::string_view kTouchStaged =
    R"(UPDATE "_cairn_storage_versions" SET "touched_at" = ? WHERE "id" = ? AND "state" = 0)";
constexpr std::string_view kInsertChunk =
    R"(INSERT INTO "_cairn_storage_chunks" ("version_id", "seq", "data") VALUES (?, ?, ?))";
constexpr std::string_view kMarkLive =
    R"(UPDATE "_cairn_storage_versions" SET "state" = 1, "touched_at" = ? )"
    R"(WHERE "id" = ? AND "state" = 0)";
constexpr std::string_view kMarkRetired =
    R"(UPDATE "_cairn_storage_versions" SET "state" = 2 WHERE "id" = ?)";
constexpr std::string_view kSelectObjectVersion =
    R"(SELECT "version_id" FROM "_cairn_storage_objects" WHERE "bucket" = ? AND "path" = ?)";
constexpr std::string_view kInsertObject =
    R"(INSERT INTO "_cairn_storage_objects" ("bucket", "path", "version_id", "size", )"
    R"("mime_type", "etag", "updated_at") VALUES (?, ?, ?, ?, ?, ?, ?) )"
    R"(ON CONFLICT ("bucket", "path") DO NOTHING)";
constexpr std::string_view kUpdateObject =
    R"(UPDATE "_cairn_storage_objects" SET "version_id" = ?, "size" = ?, "mime_type" = ?, )"
    R"("etag" = ?, "updated_at" = ? WHERE "bucket" = ? AND "path" = ?)";
constexpr std::string_view kDeleteObject =
    R"(DELETE FROM "_cairn_storage_objects" WHERE "bucket" = ? AND "path" = ? )"
    R"(RETURNING "version_id")";
// The first chunks left of a retired version (a purge deletes a few per transaction).
constexpr std::string_view kDeleteSomeChunks =
    R"(DELETE FROM "_cairn_storage_chunks" WHERE "version_id" = ? AND "seq" IN )"
    R"((SELECT "seq" FROM "_cairn_storage_chunks" WHERE "version_id" = ? ORDER BY "seq" LIMIT ?))";
constexpr std::string_view kDeleteRetiredVersion =
    R"(DELETE FROM "_cairn_storage_versions" WHERE "id" = ? AND "state" = 2 AND NOT EXISTS )"
    R"((SELECT 1 FROM "_cairn_storage_chunks" WHERE "version_id" = ?))";
constexpr std::string_view kSelectState =
    R"(SELECT "state" FROM "_cairn_storage_versions" WHERE "id" = ?)";
std::string SelectDeadStagedSql(const db::Dialect& dialect) {
  return R"(SELECT "id" FROM "_cairn_storage_versions" WHERE "state" = 0 AND )"
         R"(("touched_at" < ? OR NOT )" +
         dialect.SessionAlive(R"("owner")") + ")" + std::string(dialect.ForUpdate());
}
constexpr std::string_view kSelectRetired =
    R"(SELECT "id" FROM "_cairn_storage_versions" WHERE "state" = 2)";
constexpr std::string_view kStatObject =
    R"(SELECT "path", "size", "mime_type", "etag", "updated_at" FROM "_cairn_storage_objects" )"
    R"(WHERE "bucket" = ? AND "path" = ?)";
constexpr std::string_view kOpenObject =
    R"(SELECT o."version_id", o."size", v."chunk_bytes" FROM "_cairn_storage_objects" o )"
    R"(JOIN "_cairn_storage_versions" v ON v."id" = o."version_id" )"
    R"(WHERE o."bucket" = ? AND o."path" = ?)";
constexpr std::string_view kSelectChunks =
    R"(SELECT "seq", "data" FROM "_cairn_storage_chunks" )"
    R"(WHERE "version_id" = ? AND "seq" >= ? AND "seq" <= ? ORDER BY "seq")";

std::string SchemaSql(const db::Dialect& dialect) {
  const std::string bytewise(dialect.BytewiseTextType());
  std::string sql = R"SQL(CREATE TABLE IF NOT EXISTS "_cairn_storage_versions" (
  "id" )SQL";
  sql += dialect.ColumnTypeSql({db::ColumnKind::kId});
  sql += R"SQL(,
  "chunk_bytes" BIGINT NOT NULL,
  "created_at" BIGINT NOT NULL,
  "touched_at" BIGINT NOT NULL,
  "state" INTEGER NOT NULL DEFAULT 0,
  "owner" BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS "_cairn_storage_versions_state"
  ON "_cairn_storage_versions" ("state", "touched_at");
CREATE TABLE IF NOT EXISTS "_cairn_storage_chunks" (
  "version_id" BIGINT NOT NULL REFERENCES "_cairn_storage_versions" ("id"),
  "seq" BIGINT NOT NULL,
  "data" )SQL";
  sql += dialect.ColumnTypeSql({db::ColumnKind::kBlob});
  sql += R"SQL( NOT NULL,
  PRIMARY KEY ("version_id", "seq")
);
CREATE TABLE IF NOT EXISTS "_cairn_storage_objects" (
  "bucket" )SQL";
  sql += bytewise;
  sql += R"SQL( NOT NULL,
  "path" )SQL";
  sql += bytewise;
  sql += R"SQL( NOT NULL,
  "version_id" BIGINT NOT NULL REFERENCES "_cairn_storage_versions" ("id"),
  "size" BIGINT NOT NULL,
  "mime_type" TEXT NOT NULL,
  "etag" TEXT NOT NULL,
  "updated_at" BIGINT NOT NULL,
  PRIMARY KEY ("bucket", "path")
);
CREATE INDEX IF NOT EXISTS "_cairn_storage_objects_version"
  ON "_cairn_storage_objects" ("version_id");
)SQL";
  for (const std::string& statement : dialect.UncompressedBlobColumn(
           db::Identifier("_cairn_storage_chunks"), db::Identifier("data"))) {
    sql += statement;
    sql += ";\n";
  }
  return sql;
}

Status Failed(Result<std::int64_t> result) {
  if (!result.ok()) return std::move(result).error();
  return {};
}

// Retires `version_id` when it is still staged (inside the caller's write transaction); true
// when it did. FOR UPDATE (PostgreSQL) orders this against the upload's own flushes and commit.
Result<bool> RetireIfStaged(db::Connection& connection, std::int64_t version_id) {
  std::optional<std::int64_t> state;
  const std::string sql = std::string(kSelectState) + std::string(connection.dialect().ForUpdate());
  CAIRN_TRY(
      connection.Execute(sql, {version_id}, [&](const db::Row& row) { state = row.GetInt64(0); }));
  if (state != kStaged) return false;
  CAIRN_TRY(connection.Execute(kMarkRetired, {version_id}));
  return true;
}

// Deletes the chunks of a retired version, `batch` per write transaction, then the version: a
// large file never holds SQLite's one writer for long. Nothing reads a retired version but a
// reader that was already streaming it (it then stops with an error).
Status PurgeVersion(db::Database& database, std::int64_t version_id, std::size_t batch) {
  const auto limit = static_cast<std::int64_t>(std::max<std::size_t>(batch, 1));
  for (;;) {
    std::int64_t deleted = 0;
    CAIRN_TRY(database.Transaction(db::Access::kWrite, [&](db::Connection& connection) -> Status {
      CAIRN_ASSIGN_OR_RETURN(
          deleted, connection.Execute(kDeleteSomeChunks, {version_id, version_id, limit}));
      if (deleted < limit) {
        CAIRN_TRY(connection.Execute(kDeleteRetiredVersion, {version_id, version_id}));
      }
      return {};
    }));
    if (deleted < limit) return {};
  }
}

// Purges, logging a failure: the version stays retired and the next Start purges it.
void PurgeOrLog(db::Database& database, std::int64_t version_id, std::size_t batch) {
  const Status purged = PurgeVersion(database, version_id, batch);
  if (!purged.ok()) {
    log::Warn("storage: could not delete bytea version " + std::to_string(version_id) +
              " (the next start will): " + purged.error().message + " " + purged.error().detail);
  }
}

ObjectInfo ReadInfo(const db::Row& row) {
  ObjectInfo info;
  info.path = std::string(row.GetText(0));
  info.size = static_cast<std::uint64_t>(row.GetInt64(1));
  info.mime_type = std::string(row.GetText(2));
  info.etag = std::string(row.GetText(3));
  info.updated_at_ms = row.GetInt64(4);
  return info;
}

std::string Hex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (const char c : bytes) {
    const auto byte = static_cast<unsigned char>(c);
    out += kDigits[byte >> 4];
    out += kDigits[byte & 0x0F];
  }
  return out;
}

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

// Cursors are `p` and the hex of the last path of the page: opaque to clients, and anything
// else is refused.
constexpr char kCursorTag = 'p';

std::string EncodeCursor(std::string_view path) {
  return kCursorTag + Hex(path);
}

std::optional<std::string> DecodeCursor(std::string_view cursor) {
  if (cursor.size() < 3 || cursor.front() != kCursorTag || cursor.size() % 2 == 0 ||
      (cursor.size() - 1) / 2 > kMaxPathBytes) {
    return std::nullopt;
  }
  std::string path;
  path.reserve((cursor.size() - 1) / 2);
  for (std::size_t i = 1; i + 1 < cursor.size(); i += 2) {
    const int high = HexDigit(cursor[i]);
    const int low = HexDigit(cursor[i + 1]);
    if (high < 0 || low < 0) return std::nullopt;
    path += static_cast<char>(high * 16 + low);
  }
  if (!text::IsValidUtf8(path) || text::ContainsNul(path)) return std::nullopt;
  return path;
}

void AppendUtf8(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// The code point of the well-formed sequence text[i, i + length).
char32_t DecodeUtf8(std::string_view text, std::size_t i, std::size_t length) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[i + k]); };
  if (length == 1) return byte(0);
  char32_t cp = byte(0) & (0x7F >> length);
  for (std::size_t k = 1; k < length; ++k) cp = (cp << 6) | (byte(k) & 0x3F);
  return cp;
}

// --- Reader ---------------------------------------------------------------------------------

class ByteaReader final : public ObjectReader {
 public:
  ByteaReader(db::Database& database, std::int64_t version_id, std::uint64_t chunk_bytes,
              ByteRange range, std::size_t read_ahead)
      : database_(database),
        version_id_(version_id),
        chunk_bytes_(chunk_bytes),
        read_ahead_(std::max<std::size_t>(read_ahead, 1)),
        next_seq_(range.offset / chunk_bytes),
        skip_(range.offset % chunk_bytes),
        remaining_(range.length),
        last_seq_(range.length == 0 ? next_seq_ : (range.offset + range.length - 1) / chunk_bytes) {
  }

  Result<std::size_t> Read(std::span<char> buffer) override {
    std::size_t written = 0;
    while (written < buffer.size() && remaining_ > 0) {
      if (current_ == batch_.size()) CAIRN_TRY(Fetch());
      const std::string& chunk = batch_[current_];
      const std::size_t take =
          std::min({buffer.size() - written, chunk.size() - position_,
                    static_cast<std::size_t>(std::min<std::uint64_t>(remaining_, SIZE_MAX))});
      std::memcpy(buffer.data() + written, chunk.data() + position_, take);
      written += take;
      position_ += take;
      remaining_ -= take;
      if (position_ == chunk.size()) {
        ++current_;
        position_ = 0;
      }
    }
    if (remaining_ == 0) batch_.clear();  // frees the last chunks early
    return written;
  }

 private:
  // Replaces the batch with the next chunks of the range.
  Status Fetch() {
    const std::int64_t first = static_cast<std::int64_t>(next_seq_);
    const std::int64_t last =
        static_cast<std::int64_t>(std::min<std::uint64_t>(last_seq_, next_seq_ + read_ahead_ - 1));
    batch_.clear();
    current_ = 0;
    position_ = 0;
    bool out_of_order = false;
    CAIRN_TRY(database_.Transaction(db::Access::kRead, [&](db::Connection& connection) -> Status {
      batch_.clear();
      out_of_order = false;
      return Failed(
          connection.Execute(kSelectChunks, {version_id_, first, last}, [&](const db::Row& row) {
            if (row.GetInt64(0) != first + static_cast<std::int64_t>(batch_.size())) {
              out_of_order = true;
            }
            batch_.push_back(row.GetBlob(1));
          }));
    }));
    if (out_of_order || batch_.size() != static_cast<std::size_t>(last - first + 1)) {
      // Commit of a newer version or Remove deleted these chunks while we were reading.
      batch_.clear();
      return Error::Conflict("The file was replaced or removed while it was being read");
    }
    for (std::size_t i = 0; i < batch_.size(); ++i) {
      // Every chunk but an object's last holds chunk_bytes; the range never passes the end.
      const std::uint64_t seq = next_seq_ + i;
      if ((seq < last_seq_ && batch_[i].size() != chunk_bytes_) ||
          batch_[i].size() > chunk_bytes_) {
        batch_.clear();
        return Error::Internal("bytea chunk " + std::to_string(seq) + " of version " +
                               std::to_string(version_id_) + " has " +
                               std::to_string(batch_.size()) + " bytes");
      }
    }
    if (skip_ > 0) {
      if (skip_ >= batch_.front().size()) {
        batch_.clear();
        return Error::Internal("bytea range starts past its chunk");
      }
      position_ = static_cast<std::size_t>(skip_);
      skip_ = 0;
    }
    next_seq_ += batch_.size();
    return {};
  }

  db::Database& database_;
  std::int64_t version_id_;
  std::uint64_t chunk_bytes_;
  std::size_t read_ahead_;
  std::uint64_t next_seq_;
  std::uint64_t skip_;
  std::uint64_t remaining_;
  std::uint64_t last_seq_;
  std::vector<std::string> batch_;
  std::size_t current_ = 0;
  std::size_t position_ = 0;
};

// --- Writer ---------------------------------------------------------------------------------

class ByteaWriter final : public ObjectWriter {
 public:
  ByteaWriter(db::Database& database, const ByteaOptions& options, std::string bucket,
              std::string path, std::int64_t version_id)
      : database_(database),
        chunk_bytes_(options.chunk_bytes),
        purge_batch_(options.purge_chunks_per_transaction),
        batch_bytes_(options.chunk_bytes *
                     std::max<std::size_t>(options.chunks_per_transaction, 1)),
        bucket_(std::move(bucket)),
        path_(std::move(path)),
        version_id_(version_id) {
    buffer_.reserve(batch_bytes_);
  }

  ~ByteaWriter() override {
    if (state_ != State::kCommitted && state_ != State::kDiscarded) Discard();
  }
  ByteaWriter(const ByteaWriter&) = delete;
  ByteaWriter& operator=(const ByteaWriter&) = delete;

  Status Write(std::string_view bytes) override {
    if (state_ != State::kOpen) return Error::Internal("bytea write after commit, abort or error");
    while (!bytes.empty()) {
      const std::size_t take = std::min(bytes.size(), batch_bytes_ - buffer_.size());
      buffer_.append(bytes.substr(0, take));
      bytes.remove_prefix(take);
      if (buffer_.size() == batch_bytes_) {
        Status flushed = Flush();
        if (!flushed.ok()) {
          state_ = State::kFailed;
          return flushed;
        }
      }
    }
    return {};
  }

  Result<ObjectInfo> Commit(std::string_view mime_type) override {
    if (state_ != State::kOpen) return Error::Internal("bytea commit after abort or error");
    const Status flushed = Flush();
    if (!flushed.ok()) {
      state_ = State::kFailed;
      return flushed.error();
    }
    ObjectInfo info;
    info.path = path_;
    info.size = size_;
    info.mime_type = std::string(mime_type);
    info.etag = "\"" + std::to_string(version_id_) + "-" + Hex(crypto::RandomBytes(6)) + "\"";
    info.updated_at_ms = time::NowMillis();
    const auto size = static_cast<std::int64_t>(size_);
    std::optional<std::int64_t> old_version;
    // One transaction: the version goes live and the object row points at it; the version it
    // replaces is retired in the same step, so readers see the old file or the new one, whole.
    const Status committed =
        database_.Transaction(db::Access::kWrite, [&](db::Connection& connection) -> Status {
          old_version.reset();
          CAIRN_ASSIGN_OR_RETURN(const std::int64_t marked,
                                 connection.Execute(kMarkLive, {info.updated_at_ms, version_id_}));
          if (marked != 1) return StagingLost();
          const std::string select_old =
              std::string(kSelectObjectVersion) + std::string(connection.dialect().ForUpdate());
          const auto read_old = [&]() -> Status {
            old_version.reset();
            return Failed(
                connection.Execute(select_old, {std::string_view(bucket_), std::string_view(path_)},
                                   [&](const db::Row& row) { old_version = row.GetInt64(0); }));
          };
          CAIRN_TRY(read_old());
          if (!old_version) {
            CAIRN_ASSIGN_OR_RETURN(
                const std::int64_t inserted,
                connection.Execute(kInsertObject,
                                   {std::string_view(bucket_), std::string_view(path_), version_id_,
                                    size, std::string_view(info.mime_type),
                                    std::string_view(info.etag), info.updated_at_ms}));
            if (inserted == 1) return {};
            // Another upload created the path since our read (PostgreSQL, read committed):
            // its row is committed now, so lock and replace it like any other.
            CAIRN_TRY(read_old());
            if (!old_version) return Error::Internal("bytea object row vanished during commit");
          }
          CAIRN_TRY(connection.Execute(
              kUpdateObject,
              {version_id_, size, std::string_view(info.mime_type), std::string_view(info.etag),
               info.updated_at_ms, std::string_view(bucket_), std::string_view(path_)}));
          if (*old_version == version_id_) return {};
          return Failed(connection.Execute(kMarkRetired, {*old_version}));
        });
    if (!committed.ok()) {
      state_ = State::kFailed;
      return committed.error();
    }
    state_ = State::kCommitted;
    buffer_ = std::string();
    // The new object is visible; the old bytes go now, in short transactions.
    if (old_version && *old_version != version_id_) {
      PurgeOrLog(database_, *old_version, purge_batch_);
    }
    return info;
  }

  void Abort() override {
    if (state_ == State::kCommitted || state_ == State::kDiscarded) return;
    Discard();
  }

 private:
  enum class State { kOpen, kFailed, kCommitted, kDiscarded };

  static Error StagingLost() {
    return Error::Unavailable("The upload was interrupted; send it again",
                              "bytea staged version was removed before commit");
  }

  // Writes the buffered bytes as chunks in one write transaction (all full chunks, except at
  // Commit, where the last may be short).
  Status Flush() {
    if (buffer_.empty()) return {};
    const std::int64_t first_seq = next_seq_;
    const std::int64_t now = time::NowMillis();
    CAIRN_TRY(database_.Transaction(db::Access::kWrite, [&](db::Connection& connection) -> Status {
      CAIRN_ASSIGN_OR_RETURN(const std::int64_t touched,
                             connection.Execute(kTouchStaged, {now, version_id_}));
      if (touched != 1) return StagingLost();
      std::int64_t seq = first_seq;
      for (std::size_t offset = 0; offset < buffer_.size(); offset += chunk_bytes_, ++seq) {
        const std::size_t length = std::min(chunk_bytes_, buffer_.size() - offset);
        CAIRN_TRY(connection.Execute(
            kInsertChunk,
            {version_id_, seq, db::Blob{std::string(buffer_.data() + offset, length)}}));
      }
      return {};
    }));
    next_seq_ += static_cast<std::int64_t>((buffer_.size() + chunk_bytes_ - 1) / chunk_bytes_);
    size_ += buffer_.size();
    buffer_.clear();
    return {};
  }

  void Discard() {
    state_ = State::kDiscarded;
    buffer_ = std::string();
    bool retired = false;
    const Status status =
        database_.Transaction(db::Access::kWrite, [&](db::Connection& connection) -> Status {
          CAIRN_ASSIGN_OR_RETURN(retired, RetireIfStaged(connection, version_id_));
          return {};
        });
    if (!status.ok()) {
      // Start removes it later (after kStagedVersionGrace).
      log::Warn("storage: could not discard staged bytea version " + std::to_string(version_id_) +
                ": " + status.error().message + " " + status.error().detail);
      return;
    }
    if (retired) PurgeOrLog(database_, version_id_, purge_batch_);
  }

  db::Database& database_;
  std::size_t chunk_bytes_;
  std::size_t purge_batch_;
  std::size_t batch_bytes_;
  std::string bucket_;
  std::string path_;
  std::int64_t version_id_;
  std::string buffer_;
  std::int64_t next_seq_ = 0;
  std::uint64_t size_ = 0;
  State state_ = State::kOpen;
};

}  // namespace

std::optional<std::string> PrefixUpperBound(std::string_view prefix) {
  if (prefix.empty()) return std::nullopt;
  if (text::IsValidUtf8(prefix)) {
    // Split off the last code point and put its successor in its place.
    std::size_t last = 0;
    std::size_t length = 0;
    for (std::size_t i = 0; i < prefix.size(); i += length) {
      last = i;
      length = text::Utf8SequenceLength(prefix, i);
    }
    const char32_t cp = DecodeUtf8(prefix, last, length);
    if (cp == 0x10FFFF) return PrefixUpperBound(prefix.substr(0, last));
    std::string bound(prefix.substr(0, last));
    AppendUtf8(bound, cp == 0xD7FF ? char32_t{0xE000} : cp + 1);
    return bound;
  }
  // Not UTF-8 (paths always are): the bytewise successor.
  std::string bound(prefix);
  while (!bound.empty() && static_cast<unsigned char>(bound.back()) == 0xFF) bound.pop_back();
  if (bound.empty()) return std::nullopt;
  bound.back() = static_cast<char>(static_cast<unsigned char>(bound.back()) + 1);
  return bound;
}

Status EnsureByteaSchema(db::Database& database) {
  return database.Transaction(db::Access::kSchema, [&](db::Connection& connection) -> Status {
    if (auto lock = connection.dialect().MigrationLockSql()) {
      CAIRN_TRY(connection.Execute(*lock, {}));
    }
    return connection.ExecuteScript(SchemaSql(connection.dialect()));
  });
}

ByteaObjectStore::ByteaObjectStore(db::Database& database, ByteaOptions options)
    : database_(database), options_(options) {
  options_.chunk_bytes = std::max<std::size_t>(options_.chunk_bytes, 1);
}

Status ByteaObjectStore::Start() {
  CAIRN_TRY(EnsureByteaSchema(database_));
  const std::int64_t cutoff = time::NowMillis() - options_.staged_version_grace.count();
  std::size_t dead = 0;
  std::vector<std::int64_t> retired;
  CAIRN_TRY(database_.Transaction(db::Access::kWrite, [&](db::Connection& connection) -> Status {
    // FOR UPDATE (PostgreSQL): a version an upload on another node touched since is skipped
    // (read committed re-checks the condition), and one retired here fails that upload's next
    // flush or commit instead of losing its chunks silently.
    std::vector<std::int64_t> staged;
    const std::string select = SelectDeadStagedSql(connection.dialect());
    CAIRN_TRY(connection.Execute(select, {cutoff},
                                 [&](const db::Row& row) { staged.push_back(row.GetInt64(0)); }));
    for (const std::int64_t id : staged) CAIRN_TRY(connection.Execute(kMarkRetired, {id}));
    dead = staged.size();
    // With the versions a crash left retired before their chunks were all deleted.
    retired.clear();
    return Failed(connection.Execute(
        kSelectRetired, {}, [&](const db::Row& row) { retired.push_back(row.GetInt64(0)); }));
  }));
  for (const std::int64_t id : retired) {
    CAIRN_TRY(PurgeVersion(database_, id, options_.purge_chunks_per_transaction));
  }
  if (!retired.empty()) {
    log::Info("storage: deleted " + std::to_string(retired.size()) + " bytea version(s) (" +
              std::to_string(dead) + " of them uploads) left by an interrupted run");
  }
  return {};
}

Result<std::optional<ObjectInfo>> ByteaObjectStore::Stat(std::string_view bucket,
                                                         std::string_view path) {
  std::optional<ObjectInfo> info;
  CAIRN_TRY(database_.Transaction(db::Access::kRead, [&](db::Connection& connection) -> Status {
    info.reset();
    return Failed(connection.Execute(kStatObject, {bucket, path},
                                     [&](const db::Row& row) { info = ReadInfo(row); }));
  }));
  return info;
}

Result<std::unique_ptr<ObjectReader>> ByteaObjectStore::Open(std::string_view bucket,
                                                             std::string_view path,
                                                             ByteRange range) {
  bool found = false;
  std::int64_t version_id = 0;
  std::uint64_t size = 0;
  std::uint64_t chunk_bytes = 0;
  CAIRN_TRY(database_.Transaction(db::Access::kRead, [&](db::Connection& connection) -> Status {
    found = false;
    return Failed(connection.Execute(kOpenObject, {bucket, path}, [&](const db::Row& row) {
      found = true;
      version_id = row.GetInt64(0);
      size = static_cast<std::uint64_t>(row.GetInt64(1));
      chunk_bytes = static_cast<std::uint64_t>(row.GetInt64(2));
    }));
  }));
  if (!found) return Error::NotFound("File not found");
  if (range.offset > size || range.length > size - range.offset) {
    return Error::Validation("The range is outside the file");
  }
  if (chunk_bytes == 0) return Error::Internal("bytea version with chunk_bytes 0");
  return std::unique_ptr<ObjectReader>(std::make_unique<ByteaReader>(
      database_, version_id, chunk_bytes, range, options_.read_ahead_chunks));
}

Result<std::unique_ptr<ObjectWriter>> ByteaObjectStore::Create(std::string_view bucket,
                                                               std::string_view path) {
  std::int64_t version_id = 0;
  const std::int64_t now = time::NowMillis();
  const auto chunk_bytes = static_cast<std::int64_t>(options_.chunk_bytes);
  CAIRN_TRY(database_.Transaction(db::Access::kWrite, [&](db::Connection& connection) -> Status {
    return Failed(connection.Execute(InsertVersionSql(connection.dialect()),
                                     {chunk_bytes, now, now},
                                     [&](const db::Row& row) { version_id = row.GetInt64(0); }));
  }));
  return std::unique_ptr<ObjectWriter>(std::make_unique<ByteaWriter>(
      database_, options_, std::string(bucket), std::string(path), version_id));
}

Result<bool> ByteaObjectStore::Remove(std::string_view bucket, std::string_view path) {
  std::optional<std::int64_t> version_id;
  CAIRN_TRY(database_.Transaction(db::Access::kWrite, [&](db::Connection& connection) -> Status {
    version_id.reset();
    CAIRN_TRY(connection.Execute(kDeleteObject, {bucket, path},
                                 [&](const db::Row& row) { version_id = row.GetInt64(0); }));
    if (!version_id) return {};
    return Failed(connection.Execute(kMarkRetired, {*version_id}));
  }));
  if (!version_id) return false;
  PurgeOrLog(database_, *version_id, options_.purge_chunks_per_transaction);
  return true;
}

Result<ListPage> ByteaObjectStore::List(std::string_view bucket, std::string_view prefix, int limit,
                                        std::string_view cursor) {
  if (limit < 1) return Error::Validation("limit must be at least 1");
  limit = std::min(limit, kMaxListLimit);
  std::optional<std::string> after;
  if (!cursor.empty()) {
    after = DecodeCursor(cursor);
    if (!after) return Error::Validation("The cursor is not valid");
  }
  // A range instead of LIKE: no pattern characters in user text, and an index range scan.
  const std::optional<std::string> upper = PrefixUpperBound(prefix);
  std::string sql =
      R"(SELECT "path", "size", "mime_type", "etag", "updated_at" FROM "_cairn_storage_objects" )"
      R"(WHERE "bucket" = ? AND "path" >= ?)";
  std::vector<db::Value> params{bucket, prefix};
  if (upper) {
    sql += R"( AND "path" < ?)";
    params.emplace_back(std::string_view(*upper));
  }
  if (after) {
    sql += R"( AND "path" > ?)";
    params.emplace_back(std::string_view(*after));
  }
  sql += R"( ORDER BY "path" LIMIT ?)";
  params.emplace_back(static_cast<std::int64_t>(limit) + 1);  // one more: is there a next page?
  ListPage page;
  CAIRN_TRY(database_.Transaction(db::Access::kRead, [&](db::Connection& connection) -> Status {
    page.objects.clear();
    return Failed(connection.Execute(
        sql, params, [&](const db::Row& row) { page.objects.push_back(ReadInfo(row)); }));
  }));
  if (page.objects.size() > static_cast<std::size_t>(limit)) {
    page.objects.resize(static_cast<std::size_t>(limit));
    page.next_cursor = EncodeCursor(page.objects.back().path);
  }
  return page;
}

}  // namespace cairn::storage
