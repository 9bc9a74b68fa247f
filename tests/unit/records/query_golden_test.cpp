// Golden SQL of the list query compilers (records/query: filter, sort, q, aggregates and groupBy)
// on both dialects: the exact text and bound values for a fixed table, so that any change to the
// SQL they build shows up here first. Expected strings are written out, never derived.
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <gtest/gtest.h>

#include "access/table_access.hpp"
#include "config/model.hpp"
#include "db/dialect.hpp"
#include "records/query/aggregate.hpp"
#include "records/query/filter.hpp"
#include "records/query/search.hpp"
#include "records/query/sort.hpp"

namespace cairn::records::query {
namespace {

using config::FieldType;

config::Field MakeField(std::int64_t id, std::string name, FieldType type) {
  config::Field field;
  field.id = id;
  field.name = std::move(name);
  field.type = type;
  return field;
}

// One field of each operand kind, a hidden one, and a one-to-many relationship.
config::Table MakeTable() {
  config::Table table;
  table.id = 1;
  table.name = "Deals";
  table.sql_name = "deals";
  table.fields.push_back(MakeField(1, "title", FieldType::kSingleLineText));
  table.fields.push_back(MakeField(2, "notes", FieldType::kLongText));
  table.fields.push_back(MakeField(3, "points", FieldType::kInteger));
  auto cost = MakeField(4, "cost", FieldType::kCurrency);
  cost.scale = 2;
  cost.currency = "USD";
  table.fields.push_back(cost);
  table.fields.push_back(MakeField(5, "due", FieldType::kDate));
  table.fields.push_back(MakeField(6, "closedAt", FieldType::kDatetime));
  table.fields.push_back(MakeField(7, "won", FieldType::kCheckbox));
  auto stage = MakeField(8, "stage", FieldType::kSingleSelect);
  stage.options = {"lead", "won"};
  table.fields.push_back(stage);
  auto tags = MakeField(9, "tags", FieldType::kMultiSelect);
  tags.options = {"red", "blue", "green"};
  table.fields.push_back(tags);
  auto owner = MakeField(10, "owner", FieldType::kRelationship);
  owner.related_table = "people";
  table.fields.push_back(owner);
  table.fields.push_back(MakeField(11, "extra", FieldType::kJson));
  table.fields.push_back(MakeField(12, "email", FieldType::kEmail));
  table.fields.push_back(MakeField(13, "secret", FieldType::kSingleLineText));
  config::FieldPermission hidden;
  hidden.field = "secret";
  hidden.read = config::PermissionRule{config::PermissionRule::Kind::kRoles, {"admin"}};
  table.permissions.fields.push_back(hidden);
  return table;
}

// A bound value as text: `'a'` for text, `7`, `ts(1000)`, `dec(1250,2)`, `json([..])`, `NULL`.
std::string Show(const db::Value& value) {
  return std::visit(
      [](const auto& v) -> std::string {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, db::Null>) {
          return "NULL";
        } else if constexpr (std::is_same_v<T, bool>) {
          return v ? "true" : "false";
        } else if constexpr (std::is_same_v<T, std::int64_t> || std::is_same_v<T, double>) {
          return std::to_string(v);
        } else if constexpr (std::is_same_v<T, std::string> ||
                             std::is_same_v<T, std::string_view>) {
          return "'" + std::string(v) + "'";
        } else if constexpr (std::is_same_v<T, db::Timestamp>) {
          return "ts(" + std::to_string(v.epoch_millis) + ")";
        } else if constexpr (std::is_same_v<T, db::Decimal>) {
          return "dec(" + std::to_string(v.units) + "," + std::to_string(v.scale) + ")";
        } else if constexpr (std::is_same_v<T, db::Json>) {
          return "json(" + v.text + ")";
        } else {
          return "blob";
        }
      },
      value);
}

std::vector<std::string> ShowAll(const std::vector<db::Value>& values) {
  std::vector<std::string> out;
  for (const auto& value : values) out.push_back(Show(value));
  return out;
}

struct Golden {
  std::string sql;
  std::vector<std::string> params;
};

// Per dialect: the expected SQL and values.
struct Case {
  std::string input;
  Golden sqlite;
  Golden postgres;
};

class QueryGolden : public ::testing::Test {
 protected:
  const config::Table table_ = MakeTable();
  const access::TableAccess member_{table_, "member"};

  void ExpectCondition(const Result<Condition>& condition, const Golden& golden) {
    ASSERT_TRUE(condition.ok()) << condition.error().message;
    EXPECT_EQ(condition->sql, golden.sql);
    EXPECT_EQ(ShowAll(condition->params), golden.params);
  }

  void ExpectFilters(const std::vector<Case>& cases) {
    for (const Case& c : cases) {
      SCOPED_TRACE(c.input);
      ExpectCondition(
          CompileFilter(std::string_view(c.input), table_, member_, db::Dialect::Sqlite()),
          c.sqlite);
      ExpectCondition(
          CompileFilter(std::string_view(c.input), table_, member_, db::Dialect::Postgres()),
          c.postgres);
    }
  }

  void ExpectSearches(const std::vector<Case>& cases) {
    for (const Case& c : cases) {
      SCOPED_TRACE(c.input);
      ExpectCondition(CompileSearch(c.input, table_, member_, db::Dialect::Sqlite()), c.sqlite);
      ExpectCondition(CompileSearch(c.input, table_, member_, db::Dialect::Postgres()), c.postgres);
    }
  }
};

TEST_F(QueryGolden, FlatFilters) {
  ExpectFilters({
      {R"({"title":"Acme","points":7})",
       {R"("title" = ? AND "points" = ?)", {"'Acme'", "7"}},
       {R"("title" = ? AND "points" = ?)", {"'Acme'", "7"}}},
      // A flat multi-select key means containsAll, a single value included.
      {R"({"tags":"red"})",
       {R"((EXISTS (SELECT 1 FROM json_each("tags") WHERE json_each.value = ?)))", {"'red'"}},
       {R"((("tags") @> jsonb_build_array(CAST(? AS text))))", {"'red'"}}},
      {R"({"tags":["red","blue"]})",
       {R"((EXISTS (SELECT 1 FROM json_each("tags") WHERE json_each.value = ?) AND )"
        R"(EXISTS (SELECT 1 FROM json_each("tags") WHERE json_each.value = ?)))",
        {"'red'", "'blue'"}},
       {R"((("tags") @> jsonb_build_array(CAST(? AS text)) AND )"
        R"(("tags") @> jsonb_build_array(CAST(? AS text))))",
        {"'red'", "'blue'"}}},
      {R"({})", {"1 = 1", {}}, {"1 = 1", {}}},
  });
}

TEST_F(QueryGolden, AndOrTrees) {
  ExpectFilters({
      {R"({"or":[{"field":"title","operator":"contains","value":"a%b"},{"and":[)"
       R"({"field":"points","operator":"greaterThan","value":3},)"
       R"({"field":"won","operator":"isFalse"}]}]})",
       {R"(("title" LIKE ? ESCAPE '\' OR ("points" > ? AND ("won" = 0 OR "won" IS NULL))))",
        {R"('%a\%b%')", "3"}},
       {R"(("title" ILIKE ? ESCAPE '\' OR ("points" > ? AND ("won" = FALSE OR "won" IS NULL))))",
        {R"('%a\%b%')", "3"}}},
  });
}

TEST_F(QueryGolden, EqualityOperators) {
  const std::string sql =
      R"(("title" IS NULL AND ("notes" <> ? OR "notes" IS NULL) AND "stage" IN (?, ?) AND )"
      R"(("stage" NOT IN (?) OR "stage" IS NULL) AND 1 = 0))";
  const std::vector<std::string> params{"'x'", "'lead'", "'won'", "'won'"};
  ExpectFilters({
      {R"({"and":[{"field":"title","operator":"equals","value":null},)"
       R"({"field":"notes","operator":"notEquals","value":"x"},)"
       R"({"field":"stage","operator":"in","value":["lead","won"]},)"
       R"({"field":"stage","operator":"notIn","value":["won"]},)"
       R"({"field":"owner","operator":"in","value":[]}]})",
       {sql, params},
       {sql, params}},
  });
}

TEST_F(QueryGolden, OrderingOperatorsBindTheColumnsKind) {
  const std::string sql =
      R"(("cost" >= ? AND "cost" < ? AND "due" <= ? AND "closedAt" > ? AND "created_at" < ? AND )"
      R"(("id" <> ? OR "id" IS NULL)))";
  const std::vector<std::string> params{"dec(1250,2)",       "dec(10000,2)",      "'2026-01-31'",
                                        "ts(1767225600000)", "ts(1769904000000)", "9"};
  ExpectFilters({
      {R"({"and":[{"field":"cost","operator":"greaterThanOrEqual","value":"12.5"},)"
       R"({"field":"cost","operator":"lessThan","value":100},)"
       R"({"field":"due","operator":"lessThanOrEqual","value":"2026-01-31"},)"
       R"({"field":"closedAt","operator":"greaterThan","value":"2026-01-01T00:00:00Z"},)"
       R"({"field":"createdAt","operator":"lessThan","value":"2026-02-01T00:00:00.000Z"},)"
       R"({"field":"id","operator":"notEquals","value":"9"}]})",
       {sql, params},
       {sql, params}},
  });
}

TEST_F(QueryGolden, TextMatchOperators) {
  ExpectFilters({
      {R"({"and":[{"field":"title","operator":"notContains","value":"x_y"},)"
       R"({"field":"email","operator":"startsWith","value":"ann"},)"
       R"({"field":"email","operator":"endsWith","value":"@example.com"}]})",
       {R"((("title" IS NULL OR "title" NOT LIKE ? ESCAPE '\') AND "email" LIKE ? ESCAPE '\' AND )"
        R"("email" LIKE ? ESCAPE '\'))",
        {R"('%x\_y%')", "'ann%'", "'%@example.com'"}},
       {R"((("title" IS NULL OR "title" NOT ILIKE ? ESCAPE '\') AND "email" ILIKE ? ESCAPE '\' )"
        R"(AND "email" ILIKE ? ESCAPE '\'))",
        {R"('%x\_y%')", "'ann%'", "'%@example.com'"}}},
  });
}

TEST_F(QueryGolden, EmptinessOperators) {
  ExpectFilters({
      {R"({"and":[{"field":"notes","operator":"isEmpty"},)"
       R"({"field":"title","operator":"isNotEmpty"},)"
       R"({"field":"tags","operator":"isEmpty"},{"field":"tags","operator":"isNotEmpty"}]})",
       {R"((("notes" IS NULL OR "notes" = '') AND ("title" IS NOT NULL AND NOT ("title" = '')) )"
        R"(AND ("tags" IS NULL OR json_array_length("tags") = 0) AND ("tags" IS NOT NULL AND )"
        R"(NOT (json_array_length("tags") = 0))))",
        {}},
       {R"((("notes" IS NULL OR "notes" = '') AND ("title" IS NOT NULL AND NOT ("title" = '')) )"
        R"(AND ("tags" IS NULL OR jsonb_array_length("tags") = 0) AND ("tags" IS NOT NULL AND )"
        R"(NOT (jsonb_array_length("tags") = 0))))",
        {}}},
  });
}

TEST_F(QueryGolden, NullCheckboxAndReferenceOperators) {
  ExpectFilters({
      {R"({"and":[{"field":"extra","operator":"isNull"},)"
       R"({"field":"owner","operator":"isNotNull"},{"field":"won","operator":"isTrue"},)"
       R"({"field":"won","operator":"equals","value":false},)"
       R"({"field":"owner","operator":"equals","value":"12"},)"
       R"({"field":"createdBy","operator":"equals","value":"u1"}]})",
       {R"(("extra" IS NULL AND "owner" IS NOT NULL AND "won" = 1 AND "won" = ? AND "owner" = ? )"
        R"(AND "created_by" = ?))",
        {"false", "12", "'u1'"}},
       {R"(("extra" IS NULL AND "owner" IS NOT NULL AND "won" = TRUE AND "won" = ? AND )"
        R"("owner" = ? AND "created_by" = ?))",
        {"false", "12", "'u1'"}}},
  });
}

TEST_F(QueryGolden, MultiSelectContainsAnyAndAll) {
  const std::string sqlite_has =
      R"(EXISTS (SELECT 1 FROM json_each("tags") WHERE json_each.value = ?))";
  const std::string postgres_has = R"(("tags") @> jsonb_build_array(CAST(? AS text)))";
  ExpectFilters({
      {R"({"or":[{"field":"tags","operator":"containsAny","value":["red","green"]},)"
       R"({"field":"tags","operator":"containsAll","value":["blue"]}]})",
       {"((" + sqlite_has + " OR " + sqlite_has + ") OR (" + sqlite_has + "))",
        {"'red'", "'green'", "'blue'"}},
       {"((" + postgres_has + " OR " + postgres_has + ") OR (" + postgres_has + "))",
        {"'red'", "'green'", "'blue'"}}},
  });
}

// `q` covers the searchable fields the caller may read (not `secret`); on SQLite, 3+ characters
// go through the trigram index, whose name is fixed by the table and all its searchable columns.
TEST_F(QueryGolden, Search) {
  const std::string sqlite_scan =
      R"(("title" LIKE ? ESCAPE '\' OR "notes" LIKE ? ESCAPE '\' OR "stage" LIKE ? ESCAPE '\' OR )"
      R"("tags" LIKE ? ESCAPE '\' OR "email" LIKE ? ESCAPE '\'))";
  const std::string postgres_scan =
      R"(("title" ILIKE ? ESCAPE '\' OR "notes" ILIKE ? ESCAPE '\' OR "stage" ILIKE ? ESCAPE '\' )"
      R"(OR "tags"::text ILIKE ? ESCAPE '\' OR "email" ILIKE ? ESCAPE '\'))";
  const std::string sqlite_index =
      R"("id" IN (SELECT rowid FROM "_cairn_search_3774dc4a4f56" WHERE )"
      R"("_cairn_search_3774dc4a4f56" MATCH ?))";
  const std::string quoted = R"('%O'Neil "x" 50\%%')";
  ExpectSearches({
      {"ac",
       {sqlite_scan, std::vector<std::string>(5, "'%ac%'")},
       {postgres_scan, std::vector<std::string>(5, "'%ac%'")}},
      {"acme",
       {sqlite_index, {R"('{title notes stage tags email} : "acme"')"}},
       {postgres_scan, std::vector<std::string>(5, "'%acme%'")}},
      {R"(O'Neil "x" 50%)",
       {sqlite_index, {R"('{title notes stage tags email} : "O'Neil ""x"" 50%"')"}},
       {postgres_scan, std::vector<std::string>(5, quoted)}},
  });
}

TEST_F(QueryGolden, SearchWithoutSearchableFieldsMatchesNothing) {
  config::Table numbers;
  numbers.name = numbers.sql_name = "numbers";
  numbers.fields.push_back(MakeField(1, "n", FieldType::kInteger));
  const access::TableAccess access(numbers, "member");
  for (const auto* dialect : {&db::Dialect::Sqlite(), &db::Dialect::Postgres()}) {
    ExpectCondition(CompileSearch("abc", numbers, access, *dialect), {"1 = 0", {}});
  }
}

// Sorting and aggregates build the same SQL on both databases.
TEST_F(QueryGolden, MultiKeySorts) {
  const auto sort = [&](std::optional<std::string_view> keys,
                        std::optional<std::string_view> order) {
    auto compiled = CompileSort(keys, order, table_, member_);
    return compiled.ok() ? *compiled : "error: " + compiled.error().message;
  };
  EXPECT_EQ(sort(std::nullopt, std::nullopt), R"("id" ASC)");
  EXPECT_EQ(sort(std::nullopt, "desc"), R"("id" DESC)");
  EXPECT_EQ(sort("title", "desc"), R"("title" DESC NULLS FIRST, "id" ASC)");
  EXPECT_EQ(sort("stage:asc,cost:desc,createdAt", std::nullopt),
            R"("stage" ASC NULLS LAST, "cost" DESC NULLS FIRST, "created_at" ASC NULLS LAST, )"
            R"("id" ASC)");
  EXPECT_EQ(sort("due:desc,id:asc", std::nullopt),
            R"("due" DESC NULLS FIRST, "id" ASC NULLS LAST)");
}

TEST_F(QueryGolden, AggregatesAndGroupBy) {
  const auto plan = [&](std::optional<std::string_view> aggregate,
                        std::optional<std::string_view> group_by) {
    auto planned = PlanAggregates(aggregate, group_by, table_, member_);
    if (!planned.ok()) return "error: " + planned.error().message;
    return (planned->group_by ? planned->group_by->column_sql : std::string("-")) + " | " +
           planned->SelectSql();
  };
  EXPECT_EQ(plan("count", std::nullopt), "- | COUNT(*)");
  EXPECT_EQ(plan("sum:cost,avg:points,min:due,max:title,count:email,count", "stage"),
            R"("stage" | COUNT(*), SUM("cost"), COUNT("cost"), SUM("points"), COUNT("points"), )"
            R"(MIN("due"), MAX("title"), COUNT("email"))");
  EXPECT_EQ(plan(std::nullopt, "owner"), R"("owner" | COUNT(*))");
  EXPECT_EQ(plan("cost:sum", std::nullopt), R"(- | COUNT(*), SUM("cost"), COUNT("cost"))");
}

}  // namespace
}  // namespace cairn::records::query
