// The typed model built from valid configs: ids, slugs, scales, defaults, lookups.
#include "config/model.hpp"

#include <gtest/gtest.h>

#include "config/loader.hpp"
#include "test_util.hpp"

namespace cairn::config {
namespace {

using testing::DescribeIssues;
using testing::FixturePath;
using testing::LoadYaml;

AppConfig MustLoad(const std::string& relative) {
  auto outcome = LoadConfigFile(FixturePath(relative));
  if (!outcome.ok()) {
    ADD_FAILURE() << relative << "\n" << DescribeIssues(outcome);
    return {};
  }
  return std::move(*outcome.config);
}

const Field& FieldOf(const Table& table, std::string_view name) {
  const Field* field = table.FindField(name);
  if (!field) {
    ADD_FAILURE() << "no field " << name;
    static const Field kNone;
    return kNone;
  }
  return *field;
}

TEST(FieldTypeTest, NamesRoundTrip) {
  EXPECT_EQ(AllFieldTypes().size(), 24u);
  for (FieldType type : AllFieldTypes()) {
    EXPECT_EQ(ParseFieldType(FieldTypeName(type)), type) << FieldTypeName(type);
  }
  EXPECT_EQ(FieldTypeName(FieldType::kMultipleAttachments), "multiple-attachments");
  EXPECT_EQ(ParseFieldType("Integer"), std::nullopt);
}

TEST(FieldTypeTest, ValidFixturesUseEveryType) {
  const AppConfig config = MustLoad("valid/all_field_types.yaml");
  for (FieldType type : AllFieldTypes()) {
    bool used = false;
    for (const Table& table : config.tables) {
      for (const Field& field : table.fields) used = used || field.type == type;
    }
    EXPECT_TRUE(used) << FieldTypeName(type);
  }
}

TEST(ModelTest, SlugsAndSqlNames) {
  EXPECT_EQ(TableSlug("Deal Items"), "deal-items");
  EXPECT_EQ(TableSlug("deal_items"), "deal-items");
  EXPECT_EQ(TableSqlName("Deal Items"), "deal_items");
  EXPECT_EQ(TableSqlName("deal-items"), "deal_items");
  const AppConfig config = MustLoad("valid/all_field_types.yaml");
  const Table* deal_items = config.FindTable("Deal Items");
  ASSERT_NE(deal_items, nullptr);
  EXPECT_EQ(deal_items->slug, "deal-items");
  EXPECT_EQ(deal_items->sql_name, "deal_items");
}

TEST(ModelTest, TableAndFieldIdsAreAssignedMaxPlusOneInOrder) {
  const AppConfig config = MustLoad("valid/all_field_types.yaml");
  ASSERT_EQ(config.tables.size(), 3u);
  // Tables: Everything (no id), Companies (id 7), Deal Items (no id).
  EXPECT_EQ(config.tables[0].id, 8);
  EXPECT_EQ(config.tables[1].id, 7);
  EXPECT_EQ(config.tables[2].id, 9);
  // Fields of Everything: text_plain (none), text_full (10), then none → 11, 12, …
  const Table& everything = config.tables[0];
  EXPECT_EQ(everything.fields[0].id, 11);
  EXPECT_EQ(everything.fields[1].id, 10);
  EXPECT_EQ(everything.fields[2].id, 12);
  // Companies: no ids → 1, 2.
  EXPECT_EQ(config.tables[1].fields[0].id, 1);
  EXPECT_EQ(config.tables[1].fields[1].id, 2);
  // A string id is accepted.
  EXPECT_EQ(MustLoad("valid/full_app.yaml").tables[0].id, 3);
}

TEST(ModelTest, FindTableByIdNameOrSlug) {
  const AppConfig config = MustLoad("valid/all_field_types.yaml");
  ASSERT_NE(config.FindTable("7"), nullptr);
  EXPECT_EQ(config.FindTable("7")->name, "Companies");
  EXPECT_EQ(config.FindTable("companies")->name, "Companies");
  EXPECT_EQ(config.FindTable("COMPANIES")->name, "Companies");
  EXPECT_EQ(config.FindTable("deal-items")->name, "Deal Items");
  EXPECT_EQ(config.FindTable("deal items")->name, "Deal Items");
  EXPECT_EQ(config.FindTable("99"), nullptr);
  EXPECT_EQ(config.FindTable("nope"), nullptr);
  EXPECT_EQ(config.FindTable(""), nullptr);
}

TEST(ModelTest, ScalesDefaultPerType) {
  const AppConfig config = MustLoad("valid/all_field_types.yaml");
  const Table& t = config.tables[0];
  EXPECT_EQ(FieldOf(t, "weight").scale, 2);         // decimal without precision
  EXPECT_EQ(FieldOf(t, "ratio").scale, 4);          // decimal with precision
  EXPECT_EQ(FieldOf(t, "price_usd").scale, 2);      // ICU: USD 2
  EXPECT_EQ(FieldOf(t, "price_yen").scale, 0);      // ICU: JPY 0
  EXPECT_EQ(FieldOf(t, "price_precise").scale, 4);  // explicit precision wins
  EXPECT_EQ(FieldOf(t, "discount").scale, 0);       // percentage default
  EXPECT_EQ(FieldOf(t, "growth").scale, 2);
  EXPECT_EQ(FieldOf(t, "price_yen").currency, "JPY");
}

TEST(ModelTest, TypedViewsOfProperties) {
  const AppConfig config = MustLoad("valid/all_field_types.yaml");
  const Table& t = config.tables[0];
  const Field& quantity = FieldOf(t, "quantity");
  EXPECT_EQ(quantity.type, FieldType::kInteger);
  EXPECT_EQ(quantity.min, -5);
  EXPECT_EQ(quantity.max, 500);
  EXPECT_EQ(quantity.default_value, boost::json::value(3));
  EXPECT_TRUE(quantity.properties.contains("min"));
  EXPECT_FALSE(quantity.properties.contains("name")) << "common keys are not properties";

  const Field& text_full = FieldOf(t, "text_full");
  EXPECT_TRUE(text_full.required);
  EXPECT_TRUE(text_full.unique);
  EXPECT_TRUE(text_full.indexed);
  EXPECT_TRUE(FieldOf(t, "text_plain").default_value.is_null());

  const Field& labels = FieldOf(t, "labels");
  EXPECT_EQ(labels.options, (std::vector<std::string>{"a", "b", "c", "d"}));
  EXPECT_EQ(labels.max_selections, 3);
  EXPECT_EQ(FieldOf(t, "status").max_selections, std::nullopt);

  const Field& owner = FieldOf(t, "owner_company");
  EXPECT_EQ(owner.related_table, "Companies") << "relatedTable is resolved to the table's name";
  EXPECT_EQ(owner.relation_type, RelationType::kManyToOne);
  EXPECT_EQ(owner.on_delete, OnDelete::kCascade);
  const Field& partners = FieldOf(t, "partners");
  EXPECT_EQ(partners.relation_type, RelationType::kManyToMany);
  EXPECT_EQ(partners.on_delete, OnDelete::kSetNull);
  EXPECT_EQ(FieldOf(config.tables[1], "staff").relation_type, RelationType::kOneToMany);

  EXPECT_EQ(FieldOf(t, "cover").bucket, "media");
  EXPECT_EQ(FieldOf(t, "scan").bucket, "default");
  EXPECT_EQ(FieldOf(t, "spent").default_value, boost::json::value(3600));
}

TEST(ModelTest, ViewsIndexesAndPermissions) {
  const AppConfig config = MustLoad("valid/all_field_types.yaml");
  const Table& t = config.tables[0];
  ASSERT_EQ(t.views.size(), 3u);
  EXPECT_EQ(t.views[0].id, "1");
  EXPECT_EQ(t.views[0].name, "Live");
  EXPECT_TRUE(t.views[0].filters.is_object());
  ASSERT_EQ(t.views[0].sorts.size(), 2u);
  EXPECT_EQ(t.views[0].sorts[0].field, "due");
  EXPECT_TRUE(t.views[0].sorts[0].descending);
  EXPECT_FALSE(t.views[0].sorts[1].descending);
  EXPECT_EQ(t.views[1].id, "by-price");
  EXPECT_TRUE(t.views[1].filters.is_null());

  ASSERT_EQ(t.indexes.size(), 2u);
  EXPECT_EQ(t.indexes[0].fields, (std::vector<std::string>{"status", "due"}));
  EXPECT_FALSE(t.indexes[0].unique);
  EXPECT_TRUE(t.indexes[1].unique);

  const TablePermissions& p = t.permissions;
  ASSERT_TRUE(p.read && p.create && p.update && p.remove && p.restore && p.permanent_delete &&
              p.comment);
  EXPECT_EQ(p.read->kind, PermissionRule::Kind::kAll);
  EXPECT_EQ(p.create->kind, PermissionRule::Kind::kAuthenticated);
  EXPECT_EQ(p.update->kind, PermissionRule::Kind::kRoles);
  EXPECT_EQ(p.update->roles, (std::vector<std::string>{"admin", "member"}));
  ASSERT_EQ(p.fields.size(), 3u);
  EXPECT_EQ(p.fields[0].field, "price_usd");
  ASSERT_TRUE(p.fields[0].write);
  EXPECT_EQ(p.fields[0].write->roles, std::vector<std::string>{"admin"});
  EXPECT_FALSE(p.fields[1].write.has_value());
  EXPECT_FALSE(config.tables[1].permissions.read.has_value());
}

TEST(ModelTest, DefaultBucketIsAlwaysPresent) {
  const AppConfig minimal = MustLoad("valid/minimal.yaml");
  ASSERT_EQ(minimal.buckets.size(), 1u);
  EXPECT_EQ(minimal.buckets[0].name, "default");
  EXPECT_FALSE(minimal.buckets[0].is_public);
  EXPECT_FALSE(minimal.buckets[0].permissions.has_value());

  const AppConfig types = MustLoad("valid/all_field_types.yaml");
  ASSERT_NE(types.FindBucket("default"), nullptr);
  const Bucket* media = types.FindBucket("media");
  ASSERT_NE(media, nullptr);
  EXPECT_TRUE(media->is_public);
  EXPECT_EQ(media->max_file_size, 5242880);
  EXPECT_EQ(media->allowed_mime_types.size(), 3u);
  EXPECT_EQ(types.FindBucket("nope"), nullptr);

  // A declared `default` bucket is kept once, with its permissions.
  const AppConfig full = MustLoad("valid/full_app.yaml");
  EXPECT_EQ(full.buckets.size(), 3u);
  const Bucket* fallback = full.FindBucket("default");
  ASSERT_NE(fallback, nullptr);
  ASSERT_TRUE(fallback->permissions.has_value());
  EXPECT_EQ(fallback->permissions->sign->kind, PermissionRule::Kind::kAuthenticated);
  EXPECT_EQ(fallback->permissions->remove->roles, std::vector<std::string>{"admin"});
}

TEST(ModelTest, AuthConfig) {
  const AppConfig full = MustLoad("valid/full_app.yaml");
  ASSERT_TRUE(full.auth.has_value());
  const AuthConfig& auth = *full.auth;
  ASSERT_EQ(auth.strategies.size(), 4u);
  EXPECT_EQ(auth.strategies[0].type, "emailAndPassword");
  EXPECT_FALSE(auth.strategies[0].properties.contains("type"));
  EXPECT_EQ(auth.strategies[3].properties.at("providers").as_array().size(), 2u);
  EXPECT_FALSE(auth.allow_sign_up);
  EXPECT_EQ(auth.default_role, "reviewer");
  EXPECT_TRUE(auth.two_factor);
  EXPECT_TRUE(auth.require_email_verification);
  EXPECT_EQ(auth.min_password_length, 12);
  EXPECT_EQ(auth.max_password_length, 64);
  ASSERT_EQ(auth.roles.size(), 3u);
  EXPECT_EQ(auth.roles[0].name, "reviewer");
  EXPECT_EQ(auth.roles[0].storage_sign, true);
  EXPECT_EQ(auth.roles[0].storage_sign_upload, false);
  EXPECT_EQ(auth.roles[1].storage_sign, std::nullopt);
  EXPECT_EQ(auth.roles[2].description, "");
  ASSERT_TRUE(full.analytics.has_value());
  EXPECT_EQ(full.analytics->retention_days, 90);
  EXPECT_EQ(full.analytics->session_timeout_minutes, 15);
  EXPECT_TRUE(full.analytics->respect_do_not_track);
  EXPECT_EQ(full.analytics->excluded_paths, std::vector<std::string>{"/admin/*"});

  const AppConfig minimal = MustLoad("valid/minimal.yaml");
  EXPECT_FALSE(minimal.auth.has_value());
  EXPECT_FALSE(minimal.analytics.has_value());
  // `true` is every default; an object with `enabled: false` is off.
  const auto on = LoadYaml("name: app\nanalytics: true\n");
  ASSERT_TRUE(on.ok()) << DescribeIssues(on);
  ASSERT_TRUE(on.config->analytics.has_value());
  EXPECT_EQ(on.config->analytics->retention_days, 365);
  EXPECT_EQ(on.config->analytics->session_timeout_minutes, 30);
  EXPECT_FALSE(on.config->analytics->respect_do_not_track);
  const auto off = LoadYaml("name: app\nanalytics: {enabled: false, retentionDays: 5}\n");
  ASSERT_TRUE(off.ok()) << DescribeIssues(off);
  EXPECT_FALSE(off.config->analytics.has_value());

  const auto defaults = LoadYaml("name: app\nauth:\n  strategies: [{type: emailAndPassword}]\n");
  ASSERT_TRUE(defaults.ok()) << DescribeIssues(defaults);
  EXPECT_TRUE(defaults.config->auth->allow_sign_up);
  EXPECT_EQ(defaults.config->auth->default_role, "member");
  EXPECT_EQ(defaults.config->auth->min_password_length, 8);
  EXPECT_EQ(defaults.config->auth->max_password_length, 128);
  EXPECT_FALSE(defaults.config->auth->organizations);

  const auto organizations = LoadYaml(
      "name: app\nauth:\n  strategies: [{type: emailAndPassword}]\n  organizations: true\n");
  ASSERT_TRUE(organizations.ok()) << DescribeIssues(organizations);
  EXPECT_TRUE(organizations.config->auth->organizations);
  EXPECT_FALSE(LoadYaml("name: app\nauth:\n  strategies: [{type: emailAndPassword}]\n"
                        "  organizations: yes please\n")
                   .ok());
}

TEST(ModelTest, RootScalarsAndDocument) {
  const AppConfig config = MustLoad("valid/all_field_types.yaml");
  EXPECT_EQ(config.name, "all-field-types");
  EXPECT_EQ(config.version, "2.1.0-beta.1+build.7");
  EXPECT_EQ(config.description, "Every field type and property in one place");
  EXPECT_TRUE(config.document.is_object());
  const AppConfig json = MustLoad("valid/minimal.json");
  EXPECT_EQ(json.name, "minimal-json");
  EXPECT_FALSE(json.analytics.has_value());
  EXPECT_EQ(json.tables[0].FindField("score")->scale, 3);
}

TEST(ModelTest, IncludesFixture) {
  const AppConfig config = MustLoad("valid/with_includes.yaml");
  ASSERT_EQ(config.tables.size(), 2u);
  EXPECT_EQ(config.tables[0].name, "people");
  ASSERT_NE(config.tables[0].FindField("email"), nullptr);
  EXPECT_TRUE(config.tables[0].FindField("email")->unique);
  EXPECT_EQ(config.tables[1].FindField("assignee")->related_table, "people");
  ASSERT_TRUE(config.auth.has_value());
}

}  // namespace
}  // namespace cairn::config
