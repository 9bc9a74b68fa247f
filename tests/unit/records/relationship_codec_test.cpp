#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "codec_test_util.hpp"

namespace cairn::records::testing {
namespace {

using config::FieldType;
using config::RelationType;
using ::testing::HasSubstr;

config::Field Relationship(RelationType relation) {
  auto field = MakeField(FieldType::kRelationship, "company");
  field.related_table = "companies";
  field.relation_type = relation;
  return field;
}

TEST(RelationshipCodec, ManyToOneTakesAnIdStringOrIntegerAndWritesAString) {
  const auto field = Relationship(RelationType::kManyToOne);
  EXPECT_TRUE(CodecOf(field).Writable(field));
  auto parsed = Parse(field, R"("7")");
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(std::get<std::int64_t>(*parsed), 7);
  EXPECT_EQ(RoundTrip(field, R"("7")"), R"("7")");
  EXPECT_EQ(RoundTrip(field, "7"), R"("7")");
  EXPECT_EQ(RoundTrip(field, R"("9223372036854775807")"), R"("9223372036854775807")");
  EXPECT_EQ(RoundTrip(field, "null"), "null");
}

TEST(RelationshipCodec, ManyToOneRefusesWhatCannotBeAnId) {
  const auto field = Relationship(RelationType::kManyToOne);
  ExpectRefused(field, {R"("0")", "0", "-3", R"("-3")", R"("07")", R"("7a")", R"("")", "7.5",
                        R"("9223372036854775808")", "18446744073709551615", "true", R"(["7"])",
                        R"({"id":"7"})"});
  EXPECT_THAT(
      ErrorOf(field, R"("abc")"),
      HasSubstr("must be a record id (such as \"7\"): a positive whole number; got \"abc\""));
  EXPECT_THAT(ErrorOf(field, "true"),
              HasSubstr("must be a record id (such as \"7\"), not a boolean"));
}

TEST(RelationshipCodec, ManyToManyReturnsTheNormalizedIdArray) {
  const auto field = Relationship(RelationType::kManyToMany);
  EXPECT_TRUE(CodecOf(field).Writable(field));
  auto parsed = Parse(field, R"(["3", 7, "12"])");
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  ASSERT_TRUE(std::holds_alternative<db::Json>(*parsed));
  EXPECT_EQ(std::get<db::Json>(*parsed).text, "[3,7,12]");
  EXPECT_EQ(std::get<db::Json>(Parse(field, "[]").value()).text, "[]");
  EXPECT_TRUE(std::holds_alternative<db::Null>(Parse(field, "null").value()));
}

TEST(RelationshipCodec, ManyToManyRefusesBadArrays) {
  const auto field = Relationship(RelationType::kManyToMany);
  EXPECT_THAT(ErrorOf(field, R"(["3", 3])"),
              HasSubstr("item 1: record id \"3\" is listed twice; ids must be distinct"));
  EXPECT_THAT(ErrorOf(field, R"(["3", "x"])"), HasSubstr("item 1: must be a record id"));
  EXPECT_THAT(ErrorOf(field, R"("3")"), HasSubstr("must be an array of record ids"));
  ExpectRefused(field, {"[0]", "[null]", "{}", "3"});
}

TEST(RelationshipCodec, ManyReadsWriteIdStringsFromTheAggregatedColumn) {
  for (auto relation : {RelationType::kManyToMany, RelationType::kOneToMany}) {
    const auto field = Relationship(relation);
    EXPECT_EQ(Output(field, db::Json{"[3, 7]"}), R"(["3","7"])");  // json_agg spacing
    EXPECT_EQ(Output(field, std::string(R"(["12","5"])")), R"(["12","5"])");
    EXPECT_EQ(Output(field, std::string("[null]")), "[]");  // aggregate over no rows
    EXPECT_EQ(Output(field, db::Null{}), "[]");
  }
}

TEST(RelationshipCodec, OneToManyIsReadOnly) {
  const auto field = Relationship(RelationType::kOneToMany);
  EXPECT_FALSE(CodecOf(field).Writable(field));
  EXPECT_THAT(ErrorOf(field, R"(["1"])"),
              HasSubstr("is read-only: a one-to-many relationship is computed from the related "
                        "table \"companies\""));
  EXPECT_EQ(CodecOf(field).JsonSchema(field).at("readOnly"), true);
}

TEST(RelationshipCodec, Schemas) {
  EXPECT_EQ(CodecOf(Relationship(RelationType::kManyToOne))
                .JsonSchema(Relationship(RelationType::kManyToOne)),
            J(R"({"type":["string","null"],"pattern":"^[1-9][0-9]*$"})"));
  const auto many = Relationship(RelationType::kManyToMany);
  EXPECT_EQ(CodecOf(many).JsonSchema(many),
            J(R"({"type":["array","null"],"items":{"type":"string","pattern":"^[1-9][0-9]*$"},
                  "uniqueItems":true})"));
}

}  // namespace
}  // namespace cairn::records::testing
