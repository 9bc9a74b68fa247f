#include <gtest/gtest.h>

#include "codec_test_util.hpp"
#include "records/fields/registry.hpp"

namespace cairn::records::testing {
namespace {

using config::FieldType;

config::Field FieldOf(FieldType type) {
  auto field = MakeField(type);
  field.options = {"a", "b"};
  field.related_table = "others";
  field.scale = 2;
  return field;
}

TEST(FieldRegistry, EveryTypeHasACodec) {
  for (const FieldType type : config::AllFieldTypes()) {
    SCOPED_TRACE(std::string(config::FieldTypeName(type)));
    const FieldCodec* codec = fields::FindCodec(type);
    ASSERT_NE(codec, nullptr);
    EXPECT_EQ(&CodecOf(type), codec);
  }
}

TEST(FieldRegistry, WritableFlags) {
  for (const FieldType type : config::AllFieldTypes()) {
    SCOPED_TRACE(std::string(config::FieldTypeName(type)));
    const auto field = FieldOf(type);
    const bool server_controlled = type == FieldType::kCreatedBy || type == FieldType::kUpdatedBy ||
                                   type == FieldType::kDeletedBy || type == FieldType::kUpdatedAt;
    EXPECT_EQ(CodecOf(field).Writable(field), !server_controlled);
    if (!server_controlled) {
      // JSON null binds NULL; `required` is checked by the record service.
      auto parsed = CodecOf(field).Parse(field, nullptr);
      ASSERT_TRUE(parsed.ok()) << parsed.error().message;
      EXPECT_TRUE(std::holds_alternative<db::Null>(*parsed));
    }
  }
  auto relationship = FieldOf(FieldType::kRelationship);
  for (auto [relation, writable] : {std::pair{config::RelationType::kManyToOne, true},
                                    std::pair{config::RelationType::kManyToMany, true},
                                    std::pair{config::RelationType::kOneToMany, false}}) {
    relationship.relation_type = relation;
    EXPECT_EQ(CodecOf(relationship).Writable(relationship), writable);
  }
}

TEST(FieldRegistry, EverySchemaCompilesAndNullabilityFollowsRequired) {
  for (const FieldType type : config::AllFieldTypes()) {
    SCOPED_TRACE(std::string(config::FieldTypeName(type)));
    auto field = FieldOf(type);
    for (const bool required : {false, true}) {
      field.required = required;
      const boost::json::value schema = CodecOf(field).JsonSchema(field);
      auto compiled = json::JsonSchema::Compile(schema);
      ASSERT_TRUE(compiled.ok()) << compiled.error().message;
      if (type != FieldType::kJson) {  // json without a schema: any value, null included
        EXPECT_EQ(compiled->IsValid(nullptr), !required) << boost::json::serialize(schema);
      }
    }
  }
}

// Parse's value kinds match the column each type is stored in (FieldCodec::Column).
TEST(FieldRegistry, ParsedValuesMatchTheColumnKind) {
  struct Sample {
    FieldType type;
    const char* input;
  };
  const Sample samples[] = {
      {FieldType::kSingleLineText, R"("x")"},
      {FieldType::kLongText, R"("x")"},
      {FieldType::kPhoneNumber, R"("555 0100")"},
      {FieldType::kEmail, R"("a@b.co")"},
      {FieldType::kUrl, R"("https://a.b")"},
      {FieldType::kInteger, "1"},
      {FieldType::kDecimal, "1.5"},
      {FieldType::kCurrency, "1.5"},
      {FieldType::kPercentage, "1.5"},
      {FieldType::kDate, R"("2024-01-01")"},
      {FieldType::kDatetime, R"("2024-01-01T00:00:00Z")"},
      {FieldType::kTime, R"("10:00")"},
      {FieldType::kCheckbox, "true"},
      {FieldType::kSingleSelect, R"("a")"},
      {FieldType::kMultiSelect, R"(["a"])"},
      {FieldType::kRelationship, R"("1")"},
      {FieldType::kAttachment, R"("a.pdf")"},
      {FieldType::kMultipleAttachments, R"(["a.pdf"])"},
      {FieldType::kDuration, "60"},
      {FieldType::kJson, "{}"},
  };
  for (const auto& sample : samples) {
    SCOPED_TRACE(std::string(config::FieldTypeName(sample.type)));
    const auto field = FieldOf(sample.type);
    auto parsed = Parse(field, sample.input);
    ASSERT_TRUE(parsed.ok()) << parsed.error().message;
    const auto column = CodecOf(field).Column(field);
    ASSERT_TRUE(column.has_value());
    switch (column->kind) {
      case db::ColumnKind::kText:
        EXPECT_TRUE(std::holds_alternative<std::string>(*parsed));
        break;
      case db::ColumnKind::kInt64:
        EXPECT_TRUE(std::holds_alternative<std::int64_t>(*parsed));
        break;
      case db::ColumnKind::kDecimal:
        ASSERT_TRUE(std::holds_alternative<db::Decimal>(*parsed));
        EXPECT_EQ(std::get<db::Decimal>(*parsed).scale, column->scale);
        break;
      case db::ColumnKind::kTimestamp:
        EXPECT_TRUE(std::holds_alternative<db::Timestamp>(*parsed));
        break;
      case db::ColumnKind::kBool:
        EXPECT_TRUE(std::holds_alternative<bool>(*parsed));
        break;
      case db::ColumnKind::kJson:
        EXPECT_TRUE(std::holds_alternative<db::Json>(*parsed));
        break;
      default:
        ADD_FAILURE() << "unexpected column kind";
    }
  }
}

// What each type declares about itself: its column, how it compares in filters, whether `q`
// searches it. Written out, so a change to any of them is a visible change here.
TEST(FieldRegistry, EveryTypeDeclaresItsColumnComparisonAndSearch) {
  using db::ColumnKind;
  struct Expected {
    FieldType type;
    ColumnKind column;
    OperandKind comparison;
    bool searchable;
  };
  const Expected expected[] = {
      {FieldType::kSingleLineText, ColumnKind::kText, OperandKind::kText, true},
      {FieldType::kLongText, ColumnKind::kText, OperandKind::kText, true},
      {FieldType::kPhoneNumber, ColumnKind::kText, OperandKind::kText, true},
      {FieldType::kEmail, ColumnKind::kText, OperandKind::kText, true},
      {FieldType::kUrl, ColumnKind::kText, OperandKind::kText, true},
      {FieldType::kInteger, ColumnKind::kInt64, OperandKind::kNumber, false},
      {FieldType::kDecimal, ColumnKind::kDecimal, OperandKind::kNumber, false},
      {FieldType::kCurrency, ColumnKind::kDecimal, OperandKind::kNumber, false},
      {FieldType::kPercentage, ColumnKind::kDecimal, OperandKind::kNumber, false},
      {FieldType::kDate, ColumnKind::kText, OperandKind::kTemporal, false},
      {FieldType::kDatetime, ColumnKind::kTimestamp, OperandKind::kTemporal, false},
      {FieldType::kTime, ColumnKind::kText, OperandKind::kTemporal, false},
      {FieldType::kCheckbox, ColumnKind::kBool, OperandKind::kCheckbox, false},
      {FieldType::kSingleSelect, ColumnKind::kText, OperandKind::kOption, true},
      {FieldType::kMultiSelect, ColumnKind::kJson, OperandKind::kOptions, true},
      {FieldType::kRelationship, ColumnKind::kInt64, OperandKind::kReference, false},
      {FieldType::kCreatedBy, ColumnKind::kText, OperandKind::kReference, false},
      {FieldType::kUpdatedBy, ColumnKind::kText, OperandKind::kReference, false},
      {FieldType::kDeletedBy, ColumnKind::kText, OperandKind::kReference, false},
      {FieldType::kUpdatedAt, ColumnKind::kTimestamp, OperandKind::kTemporal, false},
      {FieldType::kAttachment, ColumnKind::kText, OperandKind::kOpaque, false},
      {FieldType::kMultipleAttachments, ColumnKind::kJson, OperandKind::kOpaque, false},
      {FieldType::kDuration, ColumnKind::kInt64, OperandKind::kNumber, false},
      {FieldType::kJson, ColumnKind::kJson, OperandKind::kOpaque, false},
  };
  EXPECT_EQ(std::size(expected), config::AllFieldTypes().size());
  for (const Expected& e : expected) {
    SCOPED_TRACE(std::string(config::FieldTypeName(e.type)));
    const auto field = FieldOf(e.type);  // relationships: many-to-one by default
    const FieldCodec& codec = CodecOf(field);
    const auto column = codec.Column(field);
    ASSERT_TRUE(column.has_value());
    EXPECT_EQ(column->kind, e.column);
    EXPECT_EQ(column->scale, e.column == ColumnKind::kDecimal ? field.scale : 0);
    EXPECT_EQ(codec.Comparison(), e.comparison);
    EXPECT_EQ(codec.Searchable(), e.searchable);
  }
  // One-to-many and many-to-many relationships have no column of their own.
  auto relationship = FieldOf(FieldType::kRelationship);
  for (const auto relation :
       {config::RelationType::kOneToMany, config::RelationType::kManyToMany}) {
    relationship.relation_type = relation;
    EXPECT_FALSE(CodecOf(relationship).Column(relationship).has_value());
  }
}

}  // namespace
}  // namespace cairn::records::testing
