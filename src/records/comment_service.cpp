#include "records/comment_service.hpp"

#include <algorithm>
#include <optional>
#include <vector>

#include "activity/activity.hpp"
#include "common/json.hpp"
#include "common/time.hpp"
#include "db/dialect.hpp"

namespace cairn::records {
namespace {

using access::Action;

Error TableNotFound() {
  return Error::NotFound("Table not found");
}

Error RecordNotFound() {
  return Error::NotFound("Record not found");
}

Error CommentNotFound() {
  return Error::NotFound("Comment not found");
}

Error Denied() {
  return Error::Forbidden("You may not comment on records of this table");
}

Error InvalidContent(std::string message) {
  return Error::Validation("Invalid comment", {{"content", std::move(message)}});
}

// Whether the character starting at text[i] is a control character a comment may not hold:
// NUL (PostgreSQL cannot store it), C0 controls other than tab and line breaks, DEL, and C1
// controls (U+0080–U+009F). The same rule as long-text fields.
bool ForbiddenControl(std::string_view text, std::size_t i) {
  const auto c = static_cast<unsigned char>(text[i]);
  if (c < 0x20) return c != '\t' && c != '\n' && c != '\r';
  if (c == 0x7F) return true;
  return c == 0xC2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) <= 0x9F;
}

// The `content` of a write body: a string of 1 to kMaxCommentLength characters (code points),
// stored as sent. The JSON parser has already refused invalid UTF-8.
Result<std::string> ParseContent(const boost::json::value& body) {
  const boost::json::value* input =
      body.is_object() ? body.get_object().if_contains("content") : nullptr;
  if (input == nullptr) return InvalidContent("is required");
  if (!input->is_string()) return InvalidContent("must be a string");
  const std::string_view text = input->get_string();
  std::size_t chars = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (ForbiddenControl(text, i)) {
      return InvalidContent(
          "must be text without control characters (tabs and line breaks "
          "are allowed)");
    }
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) ++chars;
  }
  if (chars == 0) return InvalidContent("must not be empty");
  if (chars > kMaxCommentLength) {
    return InvalidContent("must be at most " + std::to_string(kMaxCommentLength) +
                          " characters long (has " + std::to_string(chars) + ")");
  }
  return std::string(text);
}

// Whether the record is there and not soft-deleted (D21: anything else is a 404). Writers lock
// the record's row (PostgreSQL), which serializes every comment write of a record with each
// other and with the record's permanent delete: no comment is left behind a deleted record.
Result<bool> RecordVisible(db::Connection& connection, const config::Table& table,
                           std::int64_t record_id, bool lock) {
  std::string sql = "SELECT \"id\" FROM " + db::Identifier(table.sql_name).quoted() +
                    " WHERE \"id\" = ? AND \"deleted_at\" IS NULL";
  if (lock) sql += connection.dialect().ForUpdate();
  bool found = false;
  CAIRN_TRY(connection.Execute(sql, {record_id}, [&](const db::Row&) { found = true; }));
  return found;
}

// Columns of every comment read; the author's account joined (LEFT: an erased author leaves the
// comment with no user).
constexpr std::string_view kSelectSql =
    R"(SELECT c."id", c."record_id", c."user_id", c."content", c."created_at", c."updated_at", )"
    R"(u."id", u."name", u."email" FROM "_cairn_comments" c )"
    R"(LEFT JOIN "_cairn_auth_users" u ON u."id" = c."user_id")";
enum Column : int {
  kId = 0,
  kRecordId,
  kUserId,
  kContent,
  kCreatedAt,
  kUpdatedAt,
  kAuthorId,
  kAuthorName,
  kAuthorEmail,
};

void AppendTime(std::string& out, std::int64_t millis) {
  out.push_back('"');
  time::AppendIso(out, millis);
  out.push_back('"');
}

void AppendOptionalText(const db::Row& row, int column, std::string& out) {
  if (row.IsNull(column)) {
    out += "null";
  } else {
    json::AppendString(out, row.GetText(column));
  }
}

// One comment in the wire shape (D36).
void AppendComment(const db::Row& row, const config::Table& table, std::string& out) {
  out += R"({"id":")";
  out += std::to_string(row.GetInt64(kId));
  out += R"(","recordId":")";
  out += std::to_string(row.GetInt64(kRecordId));
  out += R"(","tableId":")";
  out += std::to_string(table.id);
  out += R"(","userId":)";
  AppendOptionalText(row, kUserId, out);
  out += R"(,"content":)";
  json::AppendString(out, row.GetText(kContent));
  out += R"(,"createdAt":)";
  AppendTime(out, row.GetInt64(kCreatedAt));
  out += R"(,"updatedAt":)";
  AppendTime(out, row.GetInt64(kUpdatedAt));
  out += R"(,"user":)";
  if (row.IsNull(kAuthorId)) {
    out += "null";
  } else {
    out += R"({"id":)";
    json::AppendString(out, row.GetText(kAuthorId));
    out += R"(,"name":)";
    AppendOptionalText(row, kAuthorName, out);
    out += R"(,"email":)";
    AppendOptionalText(row, kAuthorEmail, out);
    out.push_back('}');
  }
  out.push_back('}');
}

// A comment of this record as stored, with its wire JSON.
struct StoredComment {
  std::optional<std::string> user_id;  // null once the author is forgotten
  std::string content;
  std::int64_t updated_at = 0;
  std::string json;
};

Result<std::optional<StoredComment>> ReadComment(db::Connection& connection,
                                                 const config::Table& table, std::int64_t record_id,
                                                 std::int64_t comment_id) {
  std::string sql(kSelectSql);
  sql += R"( WHERE c."id" = ? AND c."table_name" = ? AND c."record_id" = ?)";
  std::optional<StoredComment> comment;
  CAIRN_TRY(connection.Execute(sql, {comment_id, std::string_view(table.name), record_id},
                               [&](const db::Row& row) {
                                 StoredComment stored;
                                 if (!row.IsNull(kUserId)) {
                                   stored.user_id = std::string(row.GetText(kUserId));
                                 }
                                 stored.content = std::string(row.GetText(kContent));
                                 stored.updated_at = row.GetInt64(kUpdatedAt);
                                 AppendComment(row, table, stored.json);
                                 comment = std::move(stored);
                               }));
  return comment;
}

// {"content":…} or null, for the activity entry's before/after.
std::string ContentJson(const std::optional<std::string>& content) {
  if (!content) return "null";
  std::string out = R"({"content":)";
  json::AppendString(out, *content);
  out.push_back('}');
  return out;
}

Status RecordEvent(db::Connection& connection, const config::Table& table, const Actor& actor,
                   std::string_view action, std::int64_t record_id, std::int64_t comment_id,
                   const std::optional<std::string>& before,
                   const std::optional<std::string>& after) {
  activity::ActivityEntry entry;
  entry.action = std::string(action);
  entry.table_name = table.name;
  entry.record_id = record_id;
  entry.user_id = actor.user_id;
  entry.changes_json =
      R"({"before":)" + ContentJson(before) + R"(,"after":)" + ContentJson(after) + "}";
  entry.ip_address = actor.ip_address;
  entry.user_agent = actor.user_agent;
  entry.metadata_json = R"({"commentId":")" + std::to_string(comment_id) + R"("})";
  return activity::RecordActivity(connection, entry);
}

// The comment a PATCH or DELETE may change: on a visible record (locked), this record's, and the
// caller's own unless the caller is an admin; anything else is a 404 (D36). Then the `comment`
// permission (403).
Result<StoredComment> WritableComment(db::Connection& connection, const access::TableAccess& access,
                                      const Actor& actor, std::int64_t record_id,
                                      std::int64_t comment_id) {
  CAIRN_ASSIGN_OR_RETURN(bool visible,
                         RecordVisible(connection, access.table(), record_id, /*lock=*/true));
  if (!visible) return RecordNotFound();
  CAIRN_ASSIGN_OR_RETURN(auto comment,
                         ReadComment(connection, access.table(), record_id, comment_id));
  const bool own = comment && comment->user_id == actor.user_id;
  if (!comment || (actor.role != access::kAdminRole && !own)) {
    return CommentNotFound();
  }
  if (!access.Can(Action::kComment)) return Denied();
  return std::move(*comment);
}

}  // namespace

CommentService::CommentService(db::Database& database, const access::AccessIndex& access)
    : database_(database), access_(access) {}

Result<std::string> CommentService::Create(const config::Table& table, const Actor& actor,
                                           std::int64_t record_id, const boost::json::value& body) {
  const access::TableAccess& access = access_.For(table, actor.role);
  if (!access.Can(Action::kRead)) return TableNotFound();
  // Parsed now, reported after the 404 and 403 answers.
  const Result<std::string> content = ParseContent(body);
  std::string comment;
  CAIRN_TRY(database_.Transaction(db::Access::kWrite, [&](db::Connection& connection) -> Status {
    CAIRN_ASSIGN_OR_RETURN(bool visible,
                           RecordVisible(connection, table, record_id, /*lock=*/true));
    if (!visible) return RecordNotFound();
    if (!access.Can(Action::kComment)) return Denied();
    if (!content.ok()) return content.error();
    const std::int64_t now = time::NowMillis();
    std::int64_t id = 0;
    CAIRN_TRY(connection.Execute(
        std::string(R"(INSERT INTO "_cairn_comments" ("table_name", "record_id", "user_id", )"
                    R"("content", "created_at", "updated_at") VALUES (?, ?, ?, ?, ?, ?))") +
            std::string(connection.dialect().ReturningId()),
        {std::string_view(table.name), record_id, std::string_view(actor.user_id),
         std::string_view(*content), now, now},
        [&](const db::Row& row) { id = row.GetInt64(0); }));
    CAIRN_ASSIGN_OR_RETURN(auto created, ReadComment(connection, table, record_id, id));
    if (!created) return Error::Internal("the comment just written cannot be read back");
    comment = std::move(created->json);
    return RecordEvent(connection, table, actor, "comment.create", record_id, id, std::nullopt,
                       *content);
  }));
  return comment;
}

Result<std::string> CommentService::List(const config::Table& table, const Actor& actor,
                                         std::int64_t record_id,
                                         const CommentListOptions& options) {
  const access::TableAccess& access = access_.For(table, actor.role);
  if (!access.Can(Action::kRead)) return TableNotFound();
  if (options.limit < 1) {
    return Error::Validation("Invalid query parameter", {{"limit", "must be at least 1"}});
  }
  if (options.offset < 0) {
    return Error::Validation("Invalid query parameter", {{"offset", "must not be negative"}});
  }
  std::string sql(kSelectSql);
  sql += R"( WHERE c."table_name" = ? AND c."record_id" = ? ORDER BY c."id" LIMIT ? OFFSET ?)";
  std::int64_t total = 0;
  std::string comments;
  CAIRN_TRY(database_.Transaction(db::Access::kRead, [&](db::Connection& connection) -> Status {
    CAIRN_ASSIGN_OR_RETURN(bool visible,
                           RecordVisible(connection, table, record_id, /*lock=*/false));
    if (!visible) return RecordNotFound();
    CAIRN_TRY(connection.Execute(
        R"(SELECT COUNT(*) FROM "_cairn_comments" WHERE "table_name" = ? AND "record_id" = ?)",
        {std::string_view(table.name), record_id},
        [&](const db::Row& row) { total = row.GetInt64(0); }));
    comments.clear();
    if (options.offset >= total) return {};
    CAIRN_TRY(connection.Execute(
        sql,
        {std::string_view(table.name), record_id, static_cast<std::int64_t>(options.limit),
         static_cast<std::int64_t>(options.offset)},
        [&](const db::Row& row) {
          if (!comments.empty()) comments.push_back(',');
          AppendComment(row, table, comments);
        }));
    return {};
  }));
  return R"({"comments":[)" + comments + R"(],"pagination":{"total":)" + std::to_string(total) +
         R"(,"limit":)" + std::to_string(options.limit) + R"(,"offset":)" +
         std::to_string(options.offset) + "}}";
}

Result<std::string> CommentService::Get(const config::Table& table, const Actor& actor,
                                        std::int64_t record_id, std::int64_t comment_id) {
  const access::TableAccess& access = access_.For(table, actor.role);
  if (!access.Can(Action::kRead)) return TableNotFound();
  std::optional<StoredComment> comment;
  CAIRN_TRY(database_.Transaction(db::Access::kRead, [&](db::Connection& connection) -> Status {
    CAIRN_ASSIGN_OR_RETURN(bool visible,
                           RecordVisible(connection, table, record_id, /*lock=*/false));
    if (!visible) return RecordNotFound();
    CAIRN_ASSIGN_OR_RETURN(comment, ReadComment(connection, table, record_id, comment_id));
    return {};
  }));
  if (!comment) return CommentNotFound();
  return std::move(comment->json);
}

Result<std::string> CommentService::Update(const config::Table& table, const Actor& actor,
                                           std::int64_t record_id, std::int64_t comment_id,
                                           const boost::json::value& body) {
  const access::TableAccess& access = access_.For(table, actor.role);
  if (!access.Can(Action::kRead)) return TableNotFound();
  const Result<std::string> content = ParseContent(body);
  std::string comment;
  CAIRN_TRY(database_.Transaction(db::Access::kWrite, [&](db::Connection& connection) -> Status {
    CAIRN_ASSIGN_OR_RETURN(StoredComment before,
                           WritableComment(connection, access, actor, record_id, comment_id));
    if (!content.ok()) return content.error();
    // updatedAt always moves forward, also within one millisecond of the last write.
    const std::int64_t now = std::max(time::NowMillis(), before.updated_at + 1);
    CAIRN_TRY(connection.Execute(
        R"(UPDATE "_cairn_comments" SET "content" = ?, "updated_at" = ? WHERE "id" = ?)",
        {std::string_view(*content), now, comment_id}));
    CAIRN_ASSIGN_OR_RETURN(auto after, ReadComment(connection, table, record_id, comment_id));
    if (!after) return Error::Internal("the comment just updated cannot be read back");
    comment = std::move(after->json);
    return RecordEvent(connection, table, actor, "comment.update", record_id, comment_id,
                       before.content, *content);
  }));
  return comment;
}

Status CommentService::Delete(const config::Table& table, const Actor& actor,
                              std::int64_t record_id, std::int64_t comment_id) {
  const access::TableAccess& access = access_.For(table, actor.role);
  if (!access.Can(Action::kRead)) return TableNotFound();
  return database_.Transaction(db::Access::kWrite, [&](db::Connection& connection) -> Status {
    CAIRN_ASSIGN_OR_RETURN(StoredComment before,
                           WritableComment(connection, access, actor, record_id, comment_id));
    CAIRN_TRY(connection.Execute(R"(DELETE FROM "_cairn_comments" WHERE "id" = ?)", {comment_id}));
    return RecordEvent(connection, table, actor, "comment.delete", record_id, comment_id,
                       before.content, std::nullopt);
  });
}

Status DeleteCommentsOf(db::Connection& connection, std::string_view table_name,
                        std::int64_t record_id) {
  CAIRN_TRY(connection.Execute(
      R"(DELETE FROM "_cairn_comments" WHERE "table_name" = ? AND "record_id" = ?)",
      {table_name, record_id}));
  return {};
}

Status ForgetCommentAuthor(db::Connection& connection, std::string_view user_id) {
  CAIRN_TRY(connection.Execute(
      R"(UPDATE "_cairn_comments" SET "user_id" = NULL WHERE "user_id" = ?)", {user_id}));
  return {};
}

}  // namespace cairn::records
