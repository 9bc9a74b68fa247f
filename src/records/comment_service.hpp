// Comments on records (D36), stored in `_cairn_comments` (records/comment_schema.hpp).
//
// Access (D20, D21), checked in this order:
//   - no read access to the table → 404 for everything;
//   - the record is missing or soft-deleted → 404 (reads and writes alike);
//   - the comment is missing, belongs to another record, or (for PATCH and DELETE) was written
//     by someone else and the caller is not an admin → 404 ("others' comments: 404 on write");
//   - a write (post, edit, delete) without the table's `comment` permission → 403;
//   - content that is not a string of 1 to kMaxCommentLength characters → 400 naming `content`.
// Every write records its activity entry (comment.create, comment.update, comment.delete, with
// the table and record) in the same transaction. Answers are JSON text in the wire shape:
// {id, recordId, tableId, userId, content, createdAt, updatedAt, user:{id, name, email} | null}
// (userId and user null once the author's account is erased: ForgetCommentAuthor runs then).
//
// Reads join the author's name and email from `_cairn_auth_users`, so the service needs the auth
// tables (its routes exist only with auth, D17); DeleteCommentsOf does not.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <boost/json/value.hpp>

#include "access/access_index.hpp"
#include "common/result.hpp"
#include "config/model.hpp"
#include "db/database.hpp"
#include "records/actor.hpp"

namespace cairn::records {

// Longest comment, in characters (Unicode code points).
inline constexpr std::size_t kMaxCommentLength = 10'000;

struct CommentListOptions {
  int limit = 100;
  int offset = 0;
};

class CommentService {
 public:
  CommentService(db::Database& database, const access::AccessIndex& access);

  // `body` is `{content}` → the comment.
  Result<std::string> Create(const config::Table& table, const Actor& actor, std::int64_t record_id,
                             const boost::json::value& body);
  // The record's comments oldest first: {comments, pagination:{total, limit, offset}}.
  Result<std::string> List(const config::Table& table, const Actor& actor, std::int64_t record_id,
                           const CommentListOptions& options);
  Result<std::string> Get(const config::Table& table, const Actor& actor, std::int64_t record_id,
                          std::int64_t comment_id);
  // By the author or an admin; `body` is `{content}` → the comment.
  Result<std::string> Update(const config::Table& table, const Actor& actor, std::int64_t record_id,
                             std::int64_t comment_id, const boost::json::value& body);
  // By the author or an admin.
  Status Delete(const config::Table& table, const Actor& actor, std::int64_t record_id,
                std::int64_t comment_id);

 private:
  db::Database& database_;
  const access::AccessIndex& access_;
};

// Removes every comment of one record: call it inside the transaction that deletes the record
// for good, so both commit or neither does. `table_name` is config::Table::name (as the activity
// log stores it). No activity entries: the record's permanent_delete entry covers them.
Status DeleteCommentsOf(db::Connection& connection, std::string_view table_name,
                        std::int64_t record_id);

// Forgets the author of every comment by `user_id` (the account is being erased): the comments
// stay, with userId and user null, and only admins may still edit or delete them. The app hooks
// it into every account erasure (auth::AuthOptions::on_account_erased), inside its transaction.
Status ForgetCommentAuthor(db::Connection& connection, std::string_view user_id);

}  // namespace cairn::records
