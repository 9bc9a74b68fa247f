// Table and field permissions (D20, D21): the defaults per action and role, `all`,
// `authenticated` and role lists, custom roles, the admin override, field rules, unknown roles,
// and the precomputed index agreeing with direct evaluation.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>

#include "access/access_index.hpp"
#include "access/table_access.hpp"
#include "config/loader.hpp"

namespace cairn::access {
namespace {

using config::PermissionRule;

config::AppConfig Load(const std::string& yaml) {
  auto outcome = config::LoadConfigText(yaml, true, std::filesystem::temp_directory_path(),
                                        "access_test.yaml");
  if (!outcome.ok()) {
    std::string message = "invalid test config:";
    for (const auto& issue : outcome.issues) message += "\n  " + config::FormatIssue(issue);
    throw std::runtime_error(message);
  }
  return std::move(*outcome.config);
}

constexpr const char* kAuth = R"(
auth:
  strategies:
    - type: emailAndPassword
  roles:
    - name: editor
    - name: auditor
)";

std::string WithAuth(const std::string& tables) {
  return "name: access-test\n" + tables + kAuth;
}

// `defaults` has no permissions block; the others set one rule each.
const std::string kTables = WithAuth(R"(
tables:
  - name: defaults
    fields:
      - name: title
        type: single-line-text
  - name: open
    fields:
      - name: title
        type: single-line-text
    permissions:
      read: all
      create: all
      update: authenticated
      delete: authenticated
      restore: all
      permanentDelete: authenticated
      comment: all
  - name: listed
    fields:
      - name: title
        type: single-line-text
    permissions:
      read: [editor, viewer]
      create: [editor]
      update: [editor, member]
      delete: [viewer]
      restore: []
      permanentDelete: [editor]
      comment: [auditor]
  - name: admin only
    fields:
      - name: title
        type: single-line-text
    permissions:
      read: [admin]
  - name: people
    fields:
      - name: name
        type: single-line-text
      - name: salary
        type: integer
      - name: notes
        type: long-text
      - name: rating
        type: integer
      - name: status
        type: single-select
        options: [new, done]
    permissions:
      fields:
        - field: salary
          read: [admin, auditor]
          write: [admin]
        - field: notes
          write: [editor]
        - field: rating
          read: authenticated
          write: all
        - field: status
          read: [editor]
)");

class AccessTest : public ::testing::Test {
 protected:
  void SetUp() override { config_ = Load(kTables); }
  const config::Table& Table(const std::string& name) const {
    const config::Table* table = config_.FindTable(name);
    if (table == nullptr) throw std::runtime_error("no table " + name);
    return *table;
  }
  // The actions `role` may take on `table`, as a string like "read,create".
  std::string Actions(const std::string& table, std::string_view role) const {
    TableAccess access(Table(table), role);
    std::string out;
    for (Action action : AllActions()) {
      if (!access.Can(action)) continue;
      if (!out.empty()) out += ',';
      out += ActionName(action);
    }
    return out;
  }

  config::AppConfig config_;
};

constexpr const char* kEverything = "read,create,update,delete,restore,permanentDelete,comment";

TEST_F(AccessTest, DefaultsPerActionAndRole) {
  EXPECT_EQ(Actions("defaults", "admin"), kEverything);
  EXPECT_EQ(Actions("defaults", "member"), "read,create,update,delete,restore,comment");
  EXPECT_EQ(Actions("defaults", "viewer"), "read");
  EXPECT_EQ(Actions("defaults", "editor"), "read");  // custom roles: read only by default
}

TEST_F(AccessTest, AllAndAuthenticatedAdmitEverySignedInRole) {
  for (std::string_view role : {"admin", "member", "viewer", "editor", "auditor", "ghost"}) {
    EXPECT_EQ(Actions("open", role), kEverything) << role;
  }
}

TEST_F(AccessTest, RoleListsAdmitTheirRolesAndAdmin) {
  EXPECT_EQ(Actions("listed", "editor"), "read,create,update,permanentDelete");
  EXPECT_EQ(Actions("listed", "viewer"), "read,delete");
  EXPECT_EQ(Actions("listed", "member"), "update");  // may update, yet cannot read the table
  EXPECT_EQ(Actions("listed", "auditor"), "comment");
  // An empty list admits nobody but admin, who may always do everything.
  EXPECT_EQ(Actions("listed", "admin"), kEverything);
}

TEST_F(AccessTest, AdminOverridesEveryRule) {
  EXPECT_EQ(Actions("admin only", "admin"), kEverything);
  EXPECT_EQ(Actions("admin only", "member"), "create,update,delete,restore,comment");
  EXPECT_EQ(Actions("admin only", "viewer"), "");
  const TableAccess admin(Table("people"), "admin");
  EXPECT_EQ(admin.ReadableFields().size(), 5U);
  EXPECT_EQ(admin.WritableFields().size(), 5U);
}

TEST_F(AccessTest, RoleNamesMatchExactly) {
  EXPECT_EQ(Actions("defaults", "Admin"), "read");
  EXPECT_EQ(Actions("defaults", "MEMBER"), "read");
  EXPECT_EQ(Actions("listed", "editor "), "");
}

TEST_F(AccessTest, UnknownRoleIsSignedInButInNoList) {
  EXPECT_EQ(Actions("defaults", "ghost"), "read");
  EXPECT_EQ(Actions("listed", "ghost"), "");
  EXPECT_EQ(Actions("admin only", "ghost"), "");
  EXPECT_EQ(Actions("defaults", ""), "read");
}

TEST_F(AccessTest, FieldRules) {
  const config::Table& people = Table("people");
  struct Expect {
    const char* role;
    std::map<std::string, std::pair<bool, bool>> fields;  // name → (read, write)
  };
  const Expect cases[] = {
      {"member",
       {{"name", {true, true}},
        {"salary", {false, false}},
        {"notes", {true, false}},
        {"rating", {true, true}},
        {"status", {false, true}}}},
      {"auditor",
       {{"name", {true, true}},
        {"salary", {true, false}},
        {"notes", {true, false}},
        {"rating", {true, true}},
        {"status", {false, true}}}},
      {"editor",
       {{"name", {true, true}},
        {"salary", {false, false}},
        {"notes", {true, true}},
        {"rating", {true, true}},
        {"status", {true, true}}}},
      {"ghost",
       {{"name", {true, true}},
        {"salary", {false, false}},
        {"notes", {true, false}},
        {"rating", {true, true}},
        {"status", {false, true}}}},
  };
  for (const Expect& expect : cases) {
    const TableAccess access(people, expect.role);
    std::vector<std::string> readable;
    for (const config::Field& field : people.fields) {
      const auto [read, write] = expect.fields.at(field.name);
      EXPECT_EQ(access.CanReadField(field.name), read) << expect.role << " " << field.name;
      EXPECT_EQ(access.CanWriteField(field.name), write) << expect.role << " " << field.name;
      EXPECT_EQ(access.CanReadField(field), read) << expect.role << " " << field.name;
      EXPECT_EQ(access.CanWriteField(field), write) << expect.role << " " << field.name;
      if (read) readable.push_back(field.name);
    }
    // ReadableFields: config order, pointers into the table.
    ASSERT_EQ(access.ReadableFields().size(), readable.size()) << expect.role;
    for (std::size_t i = 0; i < readable.size(); ++i) {
      EXPECT_EQ(access.ReadableFields()[i]->name, readable[i]);
      EXPECT_EQ(access.ReadableFields()[i], people.FindField(readable[i]));
    }
  }
}

TEST_F(AccessTest, UnknownFieldsAreNeitherReadableNorWritable) {
  const TableAccess admin(Table("people"), "admin");
  EXPECT_FALSE(admin.CanReadField("nope"));
  EXPECT_FALSE(admin.CanWriteField("nope"));
  EXPECT_FALSE(admin.CanReadField("id"));
  // A field of another table is not one of this table's fields.
  const config::Field& other = Table("defaults").fields.front();
  EXPECT_FALSE(admin.CanReadField(other));
  EXPECT_FALSE(admin.CanWriteField(other));
}

TEST_F(AccessTest, AnInvisibleTableHasNoReadableOrWritableField) {
  const TableAccess viewer(Table("admin only"), "viewer");
  EXPECT_FALSE(viewer.Can(Action::kRead));
  EXPECT_FALSE(viewer.CanReadField("title"));
  EXPECT_FALSE(viewer.CanWriteField("title"));
  EXPECT_TRUE(viewer.ReadableFields().empty());
  EXPECT_TRUE(viewer.WritableFields().empty());
  // member may create there (D20 default) but still sees no field: the table is a 404 to it.
  const TableAccess member(Table("admin only"), "member");
  EXPECT_TRUE(member.Can(Action::kCreate));
  EXPECT_TRUE(member.ReadableFields().empty());
}

TEST(AccessRules, DefaultAndEffectiveRules) {
  EXPECT_EQ(DefaultRule(Action::kRead).kind, PermissionRule::Kind::kAuthenticated);
  EXPECT_EQ(DefaultRule(Action::kPermanentDelete).roles, std::vector<std::string>{"admin"});
  for (Action action :
       {Action::kCreate, Action::kUpdate, Action::kDelete, Action::kRestore, Action::kComment}) {
    EXPECT_EQ(DefaultRule(action).kind, PermissionRule::Kind::kRoles);
    EXPECT_EQ(DefaultRule(action).roles, (std::vector<std::string>{"admin", "member"}));
  }
  config::TablePermissions permissions;
  permissions.remove = PermissionRule{PermissionRule::Kind::kAll, {}};
  EXPECT_EQ(EffectiveRule(permissions, Action::kDelete).kind, PermissionRule::Kind::kAll);
  EXPECT_FALSE(ConfiguredRule(permissions, Action::kUpdate).has_value());
  EXPECT_EQ(&EffectiveRule(permissions, Action::kUpdate), &DefaultRule(Action::kUpdate));
}

TEST(AccessRules, ActionNamesAreTheConfigKeys) {
  std::string names;
  for (Action action : AllActions()) names += std::string(ActionName(action)) + " ";
  EXPECT_EQ(names, "read create update delete restore permanentDelete comment ");
}

TEST(AccessRules, MatchesRule) {
  const PermissionRule editors{PermissionRule::Kind::kRoles, {"editor"}};
  EXPECT_TRUE(Matches(editors, "editor"));
  EXPECT_TRUE(Matches(editors, "admin"));
  EXPECT_FALSE(Matches(editors, "member"));
  EXPECT_TRUE(Matches(PermissionRule{PermissionRule::Kind::kAll, {}}, "anyone"));
  EXPECT_TRUE(Matches(PermissionRule{PermissionRule::Kind::kAuthenticated, {}}, "anyone"));
  EXPECT_TRUE(MatchesRule(std::nullopt, "member", DefaultRule(Action::kCreate)));
  EXPECT_FALSE(MatchesRule(std::nullopt, "viewer", DefaultRule(Action::kCreate)));
  EXPECT_FALSE(MatchesRule(editors, "member", DefaultRule(Action::kCreate)));
}

TEST_F(AccessTest, IndexAgreesWithDirectEvaluation) {
  const AccessIndex index = AccessIndex::Build(config_);
  EXPECT_EQ(index.roles(),
            (std::vector<std::string>{"admin", "auditor", "editor", "member", "viewer"}));
  for (const config::Table& table : config_.tables) {
    for (std::string_view role :
         {"admin", "member", "viewer", "editor", "auditor", "ghost", "", "Admin"}) {
      const TableAccess direct(table, role);
      const TableAccess& indexed = index.For(table, role);
      EXPECT_EQ(&indexed.table(), &table);
      for (Action action : AllActions()) {
        EXPECT_EQ(indexed.Can(action), direct.Can(action))
            << table.name << " " << role << " " << ActionName(action);
      }
      for (const config::Field& field : table.fields) {
        EXPECT_EQ(indexed.CanReadField(field), direct.CanReadField(field));
        EXPECT_EQ(indexed.CanWriteField(field), direct.CanWriteField(field));
      }
      EXPECT_EQ(indexed.ReadableFields(), direct.ReadableFields());
      EXPECT_EQ(indexed.WritableFields(), direct.WritableFields());
    }
  }
  // Roles no list names share one entry per table.
  const config::Table& listed = *config_.FindTable("listed");
  EXPECT_EQ(&index.For(listed, "ghost"), &index.For(listed, "phantom"));
  EXPECT_NE(&index.For(listed, "ghost"), &index.For(listed, "viewer"));
}

TEST_F(AccessTest, IndexFindReadableAnswersUnknownAndUnreadableAlike) {
  const AccessIndex index = AccessIndex::Build(config_);
  const config::Table& admin_only = *config_.FindTable("admin only");
  // By id, name (any case) or slug.
  for (const std::string& id : {std::to_string(admin_only.id), std::string("admin only"),
                                std::string("ADMIN ONLY"), std::string("admin-only")}) {
    const TableAccess* admin = index.FindReadable(id, "admin");
    ASSERT_NE(admin, nullptr) << id;
    EXPECT_EQ(&admin->table(), &admin_only);
    EXPECT_EQ(index.FindReadable(id, "member"), nullptr) << id;
  }
  EXPECT_EQ(index.FindReadable("no-such-table", "admin"), nullptr);
  EXPECT_EQ(index.FindReadable("", "admin"), nullptr);
  EXPECT_EQ(index.FindReadable("999", "admin"), nullptr);
  EXPECT_NE(index.FindReadable("defaults", "ghost"), nullptr);
}

TEST_F(AccessTest, IndexRefusesATableOfAnotherConfig) {
  const AccessIndex index = AccessIndex::Build(config_);
  const config::AppConfig other = Load(kTables);
  EXPECT_THROW((void)index.For(other.tables.front(), "admin"), std::logic_error);
  const AccessIndex empty;
  EXPECT_THROW((void)empty.For(config_.tables.front(), "admin"), std::logic_error);
  EXPECT_EQ(empty.FindReadable("defaults", "admin"), nullptr);
}

// A config built in code (not through validation) may list a role auth.roles does not declare;
// the index still gives that role its own entry.
TEST(AccessIndexBuild, RolesNamedOnlyInListsGetTheirOwnEntry) {
  config::AppConfig app;
  config::Table table;
  table.id = 1;
  table.name = "things";
  table.slug = "things";
  table.fields.push_back(config::Field{.id = 1, .name = "secret"});
  table.permissions.read = PermissionRule{PermissionRule::Kind::kRoles, {"robot"}};
  table.permissions.fields.push_back(
      {"secret", PermissionRule{PermissionRule::Kind::kRoles, {"oracle", "robot"}}, std::nullopt});
  app.tables.push_back(std::move(table));
  const AccessIndex index = AccessIndex::Build(app);
  EXPECT_EQ(index.roles(),
            (std::vector<std::string>{"admin", "member", "oracle", "robot", "viewer"}));
  const config::Table& things = app.tables.front();
  EXPECT_TRUE(index.For(things, "robot").Can(Action::kRead));
  EXPECT_TRUE(index.For(things, "robot").CanReadField("secret"));
  EXPECT_FALSE(index.For(things, "oracle").Can(Action::kRead));
  EXPECT_FALSE(index.For(things, "oracle").CanReadField("secret"));
  EXPECT_FALSE(index.For(things, "member").Can(Action::kRead));
  EXPECT_FALSE(index.For(things, "stranger").Can(Action::kRead));
}

}  // namespace
}  // namespace cairn::access
