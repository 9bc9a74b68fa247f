// The activity log on both backends: entries written in the caller's transaction, the list's
// filters and pagination, one entry in full, a record's history, and actors joined from the
// auth tables or nulled when their account is erased (D50).
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "activity/activity.hpp"
#include "activity/activity_schema.hpp"
#include "activity/limits.hpp"
#include "auth/auth_schema.hpp"
#include "common/time.hpp"
#include "db_test_util.hpp"
#include "support/test_database.hpp"

namespace cairn::test {
namespace {

using activity::ActivityEntry;
using activity::ActivityQuery;
using activity::Actors;

constexpr std::int64_t kT0 = 1'767'225'600'000;  // 2026-01-01T00:00:00Z
constexpr std::int64_t kMinute = 60'000;

Status Exec(db::Connection& connection, std::string_view sql, std::initializer_list<db::Value> p) {
  auto result = connection.Execute(sql, p);
  if (!result.ok()) return std::move(result).error();
  return {};
}

ActivityEntry Entry(std::string action, std::optional<std::string> table = {},
                    std::optional<std::int64_t> record = {}, std::optional<std::string> user = {}) {
  ActivityEntry entry;
  entry.action = std::move(action);
  entry.table_name = std::move(table);
  entry.record_id = record;
  entry.user_id = std::move(user);
  return entry;
}

class ActivityTest : public DatabaseTest {
 protected:
  void SetUp() override {
    DatabaseTest::SetUp();
    if (HasFatalFailure()) return;
    CAIRN_ASSERT_OK(activity::EnsureActivitySchema(database()));
  }

  // Writes `entry` in its own write transaction and stamps it `created_at` (entries are stamped
  // now; the tests need known times). Returns its id.
  std::int64_t Record(const ActivityEntry& entry, std::int64_t created_at) {
    std::int64_t id = 0;
    const Status status =
        database().Transaction(db::Access::kWrite, [&](db::Connection& connection) -> Status {
          CAIRN_TRY(activity::RecordActivity(connection, entry));
          CAIRN_TRY(connection.Execute(R"(SELECT MAX("id") FROM "_cairn_activity")", {},
                                       [&](const db::Row& row) { id = row.GetInt64(0); }));
          return Exec(connection, R"(UPDATE "_cairn_activity" SET "created_at" = ? WHERE "id" = ?)",
                      {created_at, id});
        });
    if (!status.ok()) throw std::runtime_error(Describe(status.error()));
    return id;
  }

  // The ids of the entries `query` lists, in order, and the total.
  std::vector<std::int64_t> Ids(const ActivityQuery& query, std::int64_t* total = nullptr) {
    auto page = activity::ListActivity(database(), query, Actors::kIdsOnly);
    if (!page.ok()) throw std::runtime_error(Describe(page.error()));
    if (total != nullptr) *total = page->total;
    std::vector<std::int64_t> ids;
    for (const auto& item : page->entries) ids.push_back(item.id);
    return ids;
  }

  void AddUser(const std::string& id, const std::string& name, const std::string& email) {
    CAIRN_ASSERT_OK(database().Transaction(db::Access::kWrite, [&](db::Connection& connection) {
      return Exec(
          connection,
          R"(INSERT INTO "_cairn_auth_users" ("id", "name", "email", "role", )"
          R"("created_at", "updated_at") VALUES (?, ?, ?, 'member', ?, ?))",
          {std::string_view(id), std::string_view(name), std::string_view(email), kT0, kT0});
    }));
  }

  std::int64_t Count(std::string_view sql) { return QueryInt(database(), sql); }
};

TEST_F(ActivityTest, SchemaIsIdempotent) {
  CAIRN_EXPECT_OK(activity::EnsureActivitySchema(database()));
  CAIRN_EXPECT_OK(activity::EnsureActivitySchema(database()));
  EXPECT_EQ(Count(R"(SELECT COUNT(*) FROM "_cairn_activity")"), 0);
}

TEST_F(ActivityTest, EntriesCommitAndRollBackWithTheirTransaction) {
  // Committed with the change it describes.
  CAIRN_ASSERT_OK(database().Transaction(db::Access::kWrite, [&](db::Connection& connection) {
    return activity::RecordActivity(connection, Entry("create", "notes", 1, "u1"));
  }));
  // Rolled back with it: the failing change takes its entry along.
  const Status failed =
      database().Transaction(db::Access::kWrite, [&](db::Connection& connection) -> Status {
        CAIRN_TRY(activity::RecordActivity(connection, Entry("update", "notes", 1, "u1")));
        return Error::Conflict("the change failed");
      });
  EXPECT_FALSE(failed.ok());
  EXPECT_EQ(Count(R"(SELECT COUNT(*) FROM "_cairn_activity")"), 1);
  EXPECT_EQ(Count(R"(SELECT COUNT(*) FROM "_cairn_activity" WHERE "action" = 'create')"), 1);
}

TEST_F(ActivityTest, StoresEveryColumnAndReadsItBackInFull) {
  ActivityEntry entry = Entry("update", "notes", 42, "u1");
  entry.changes_json = R"({"before":{"title":"a"},"after":{"title":"b"}})";
  entry.ip_address = "203.0.113.7";
  entry.user_agent = "agent/1.0";
  entry.metadata_json = R"({"reason":"test"})";
  const std::int64_t before = time::NowMillis();
  CAIRN_ASSERT_OK(database().Transaction(db::Access::kWrite, [&](db::Connection& connection) {
    return activity::RecordActivity(connection, entry);
  }));
  const std::int64_t id = Count(R"(SELECT MAX("id") FROM "_cairn_activity")");
  auto detail = activity::GetActivity(database(), id, Actors::kIdsOnly);
  ASSERT_TRUE(detail.ok()) << Describe(detail.error());
  ASSERT_TRUE(detail->has_value());
  const auto& found = **detail;
  EXPECT_EQ(found.item.id, id);
  EXPECT_EQ(found.item.action, "update");
  EXPECT_EQ(found.item.table_name, "notes");
  EXPECT_EQ(found.item.record_id, 42);
  EXPECT_EQ(found.item.user_id, "u1");
  EXPECT_FALSE(found.item.user_name);  // ids only: no join
  EXPECT_GE(found.item.created_at, before);
  EXPECT_LE(found.item.created_at, before + 60'000);
  EXPECT_EQ(found.item.changes_json, entry.changes_json);
  EXPECT_EQ(found.ip_address, "203.0.113.7");
  EXPECT_EQ(found.user_agent, "agent/1.0");
  EXPECT_EQ(found.metadata_json, entry.metadata_json);

  auto missing = activity::GetActivity(database(), id + 1000, Actors::kIdsOnly);
  ASSERT_TRUE(missing.ok());
  EXPECT_FALSE(missing->has_value());
}

TEST_F(ActivityTest, EmptyTextIsNullAndLongUserAgentsAreCut) {
  ActivityEntry entry = Entry("sign_in", std::string(), std::nullopt, std::string());
  entry.ip_address = "";
  // Multi-byte characters across the cut: the stored text stays valid UTF-8.
  std::string agent;
  while (agent.size() < activity::kMaxUserAgentLength + 10) agent += "\xC3\xA9";  // é
  entry.user_agent = "x" + agent;
  const std::int64_t id = Record(entry, kT0);
  auto detail = activity::GetActivity(database(), id, Actors::kIdsOnly);
  ASSERT_TRUE(detail.ok() && detail->has_value());
  const auto& found = **detail;
  EXPECT_FALSE(found.item.table_name);
  EXPECT_FALSE(found.item.record_id);
  EXPECT_FALSE(found.item.user_id);
  EXPECT_FALSE(found.ip_address);
  EXPECT_FALSE(found.metadata_json);
  EXPECT_FALSE(found.item.changes_json);
  ASSERT_TRUE(found.user_agent);
  EXPECT_LE(found.user_agent->size(), activity::kMaxUserAgentLength);
  EXPECT_GE(found.user_agent->size(), activity::kMaxUserAgentLength - 2);
  // Ends on a whole character: "x" then pairs.
  EXPECT_EQ(found.user_agent->size() % 2, 1u);
}

TEST_F(ActivityTest, ListsNewestFirstWithTiesBrokenById) {
  const std::int64_t a = Record(Entry("create", "notes", 1), kT0);
  const std::int64_t b = Record(Entry("create", "notes", 2), kT0 + kMinute);
  const std::int64_t c = Record(Entry("create", "notes", 3), kT0 + kMinute);  // same time as b
  const std::int64_t d = Record(Entry("create", "notes", 4), kT0 - kMinute);  // older, newer id
  std::int64_t total = 0;
  EXPECT_EQ(Ids({}, &total), (std::vector<std::int64_t>{c, b, a, d}));
  EXPECT_EQ(total, 4);
}

TEST_F(ActivityTest, FiltersByTableActionUserAndTimeTogether) {
  const std::int64_t n1 = Record(Entry("create", "notes", 1, "alice"), kT0);
  const std::int64_t n2 = Record(Entry("update", "notes", 1, "bob"), kT0 + 1 * kMinute);
  const std::int64_t t1 = Record(Entry("create", "tasks", 7, "alice"), kT0 + 2 * kMinute);
  const std::int64_t s1 = Record(Entry("sign_in", {}, {}, "alice"), kT0 + 3 * kMinute);
  const std::int64_t n3 = Record(Entry("delete", "notes", 1, "alice"), kT0 + 4 * kMinute);
  const std::int64_t sys = Record(Entry("user.create"), kT0 + 5 * kMinute);

  ActivityQuery by_table;
  by_table.table_name = "notes";
  EXPECT_EQ(Ids(by_table), (std::vector<std::int64_t>{n3, n2, n1}));
  by_table.table_name = "Notes";  // exact names only
  EXPECT_TRUE(Ids(by_table).empty());

  ActivityQuery by_action;
  by_action.action = "create";
  EXPECT_EQ(Ids(by_action), (std::vector<std::int64_t>{t1, n1}));

  ActivityQuery by_user;
  by_user.user_id = "alice";
  EXPECT_EQ(Ids(by_user), (std::vector<std::int64_t>{n3, s1, t1, n1}));

  // Both bounds are inclusive, to the millisecond.
  ActivityQuery window;
  window.from_millis = kT0 + 1 * kMinute;
  window.to_millis = kT0 + 3 * kMinute;
  EXPECT_EQ(Ids(window), (std::vector<std::int64_t>{s1, t1, n2}));
  window.from_millis = kT0 + 1 * kMinute + 1;
  window.to_millis = kT0 + 3 * kMinute - 1;
  EXPECT_EQ(Ids(window), (std::vector<std::int64_t>{t1}));

  ActivityQuery only_from;
  only_from.from_millis = kT0 + 4 * kMinute;
  EXPECT_EQ(Ids(only_from), (std::vector<std::int64_t>{sys, n3}));
  ActivityQuery only_to;
  only_to.to_millis = kT0;
  EXPECT_EQ(Ids(only_to), (std::vector<std::int64_t>{n1}));

  ActivityQuery all;
  all.table_name = "notes";
  all.action = "create";
  all.user_id = "alice";
  all.from_millis = kT0;
  all.to_millis = kT0;
  std::int64_t total = -1;
  EXPECT_EQ(Ids(all, &total), (std::vector<std::int64_t>{n1}));
  EXPECT_EQ(total, 1);
  all.user_id = "bob";
  EXPECT_TRUE(Ids(all, &total).empty());
  EXPECT_EQ(total, 0);
}

TEST_F(ActivityTest, PagesCountEveryMatchAndRunEmptyPastTheEnd) {
  std::vector<std::int64_t> ids;  // oldest first
  for (int i = 0; i < 7; ++i) ids.push_back(Record(Entry("create", "notes", i), kT0 + i));
  Record(Entry("update", "notes", 0), kT0 + 100);  // filtered out below
  ActivityQuery query;
  query.action = "create";
  query.page_size = 3;
  std::int64_t total = 0;
  query.page = 1;
  EXPECT_EQ(Ids(query, &total), (std::vector<std::int64_t>{ids[6], ids[5], ids[4]}));
  EXPECT_EQ(total, 7);
  query.page = 2;
  EXPECT_EQ(Ids(query, &total), (std::vector<std::int64_t>{ids[3], ids[2], ids[1]}));
  query.page = 3;
  EXPECT_EQ(Ids(query, &total), (std::vector<std::int64_t>{ids[0]}));
  EXPECT_EQ(total, 7);
  query.page = 4;
  EXPECT_TRUE(Ids(query, &total).empty());
  EXPECT_EQ(total, 7);
  query.page = 2'000'000'000;  // far past the end: still no error
  EXPECT_TRUE(Ids(query, &total).empty());
  EXPECT_EQ(total, 7);
  query.page = 1;
  query.page_size = activity::kMaxPageSize;
  EXPECT_EQ(Ids(query, &total).size(), 7u);
}

TEST_F(ActivityTest, RefusesPagesAndPageSizesOutOfRange) {
  const auto field_of = [&](const ActivityQuery& query) -> std::string {
    auto page = activity::ListActivity(database(), query, Actors::kIdsOnly);
    if (page.ok()) return "ok";
    EXPECT_EQ(page.error().code, ErrorCode::kValidation);
    return page.error().errors.empty() ? "" : page.error().errors.front().field;
  };
  ActivityQuery query;
  query.page = 0;
  EXPECT_EQ(field_of(query), "page");
  query.page = 1;
  query.page_size = 0;
  EXPECT_EQ(field_of(query), "pageSize");
  query.page_size = activity::kMaxPageSize + 1;
  EXPECT_EQ(field_of(query), "pageSize");
  query.page_size = activity::kDefaultPageSize;
  EXPECT_EQ(field_of(query), "ok");
}

TEST_F(ActivityTest, JoinsActorsAndLosesThemWhenTheAccountIsErased) {
  CAIRN_ASSERT_OK(auth::EnsureAuthSchema(database()));
  AddUser("alice", "Alice Anders", "alice@example.com");
  AddUser("bob", "Bob Brown", "bob@example.com");
  const std::int64_t by_alice = Record(Entry("create", "notes", 1, "alice"), kT0);
  const std::int64_t by_bob = Record(Entry("update", "notes", 1, "bob"), kT0 + 1);
  const std::int64_t by_system = Record(Entry("user.create"), kT0 + 2);

  auto page = activity::ListActivity(database(), {}, Actors::kJoinAuthUsers);
  ASSERT_TRUE(page.ok()) << Describe(page.error());
  ASSERT_EQ(page->entries.size(), 3u);
  EXPECT_EQ(page->entries[0].id, by_system);
  EXPECT_FALSE(page->entries[0].user_id);
  EXPECT_FALSE(page->entries[0].user_name);
  EXPECT_EQ(page->entries[1].id, by_bob);
  EXPECT_EQ(page->entries[1].user_name, "Bob Brown");
  EXPECT_EQ(page->entries[2].id, by_alice);
  EXPECT_EQ(page->entries[2].user_id, "alice");
  EXPECT_EQ(page->entries[2].user_name, "Alice Anders");
  EXPECT_EQ(page->entries[2].user_email, "alice@example.com");

  // A user deleted without ForgetActor: the LEFT JOIN still shows no user, and the entry stays.
  CAIRN_ASSERT_OK(database().Transaction(db::Access::kWrite, [&](db::Connection& connection) {
    return Exec(connection, R"(DELETE FROM "_cairn_auth_users" WHERE "id" = 'bob')", {});
  }));
  auto detail = activity::GetActivity(database(), by_bob);
  ASSERT_TRUE(detail.ok() && detail->has_value());
  EXPECT_FALSE((*detail)->item.user_id);
  EXPECT_FALSE((*detail)->item.user_name);
  EXPECT_EQ((*detail)->item.action, "update");

  // Erasure proper: the reference itself goes (D50 rule 2), the entries stay (rule 3).
  CAIRN_ASSERT_OK(database().Transaction(db::Access::kWrite, [&](db::Connection& connection) {
    return activity::ForgetActor(connection, "alice");
  }));
  EXPECT_EQ(Count(R"(SELECT COUNT(*) FROM "_cairn_activity" WHERE "user_id" = 'alice')"), 0);
  EXPECT_EQ(Count(R"(SELECT COUNT(*) FROM "_cairn_activity")"), 3);
  ActivityQuery by_alice_query;
  by_alice_query.user_id = "alice";
  EXPECT_TRUE(Ids(by_alice_query).empty());
}

TEST_F(ActivityTest, ReadsWithoutTheAuthTablesWhenAskedForIdsOnly) {
  // No auth section: `_cairn_auth_users` does not exist and must not be named.
  const std::int64_t id = Record(Entry("create", "notes", 1, "someone"), kT0);
  auto page = activity::ListActivity(database(), {}, Actors::kIdsOnly);
  ASSERT_TRUE(page.ok()) << Describe(page.error());
  ASSERT_EQ(page->entries.size(), 1u);
  EXPECT_EQ(page->entries[0].user_id, "someone");
  EXPECT_FALSE(page->entries[0].user_name);
  auto detail = activity::GetActivity(database(), id, Actors::kIdsOnly);
  ASSERT_TRUE(detail.ok() && detail->has_value());
  auto history = activity::ListRecordHistory(database(), "notes", 1, 10, 0, Actors::kIdsOnly);
  ASSERT_TRUE(history.ok()) << Describe(history.error());
  EXPECT_EQ(history->total, 1);
}

TEST_F(ActivityTest, RecordHistoryHoldsOnlyThatRecordsEventsNewestFirst) {
  ActivityEntry created = Entry("create", "notes", 5, "alice");
  created.changes_json = R"({"before":null,"after":{"title":"a"}})";
  const std::int64_t c = Record(created, kT0);
  ActivityEntry updated = Entry("update", "notes", 5, "alice");
  updated.changes_json = R"({"before":{"title":"a"},"after":{"title":"b"}})";
  const std::int64_t u = Record(updated, kT0 + 1);
  Record(Entry("create", "notes", 6), kT0 + 2);          // another record
  Record(Entry("create", "tasks", 5), kT0 + 3);          // another table
  Record(Entry("comment.create", "notes", 5), kT0 + 4);  // not a record event
  const std::int64_t r = Record(Entry("restore", "notes", 5), kT0 + 5);

  auto history = activity::ListRecordHistory(database(), "notes", 5, 10, 0, Actors::kIdsOnly);
  ASSERT_TRUE(history.ok()) << Describe(history.error());
  EXPECT_EQ(history->total, 3);
  ASSERT_EQ(history->entries.size(), 3u);
  EXPECT_EQ(history->entries[0].id, r);
  EXPECT_EQ(history->entries[1].id, u);
  EXPECT_EQ(history->entries[1].changes_json, updated.changes_json);
  EXPECT_EQ(history->entries[2].id, c);

  history = activity::ListRecordHistory(database(), "notes", 5, 1, 1, Actors::kIdsOnly);
  ASSERT_TRUE(history.ok());
  EXPECT_EQ(history->total, 3);
  ASSERT_EQ(history->entries.size(), 1u);
  EXPECT_EQ(history->entries[0].id, u);
  history = activity::ListRecordHistory(database(), "notes", 5, 10, 3, Actors::kIdsOnly);
  ASSERT_TRUE(history.ok());
  EXPECT_TRUE(history->entries.empty());
  EXPECT_EQ(history->total, 3);
}

}  // namespace
}  // namespace cairn::test
