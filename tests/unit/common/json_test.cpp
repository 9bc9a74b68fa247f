#include "common/json.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace cairn::json {
namespace {

TEST(JsonTest, DoublesPrintInShortestForm) {
  EXPECT_EQ(Serialize(boost::json::value(2.5)), "2.5");
  EXPECT_EQ(Serialize(boost::json::value(0.1)), "0.1");
  EXPECT_EQ(Serialize(boost::json::value(1e21)), "1e+21");
  EXPECT_EQ(Serialize(boost::json::value(3.0)), "3");
  EXPECT_EQ(Serialize(boost::json::value(-0.000001)), "-1e-06");
}

TEST(JsonTest, NonFiniteBecomesNull) {
  std::string out;
  AppendDouble(out, std::numeric_limits<double>::infinity());
  EXPECT_EQ(out, "null");
}

TEST(JsonTest, StringsAreEscaped) {
  std::string out;
  AppendString(out, std::string("a\"b\\c\n\x01", 7));
  EXPECT_EQ(out, R"("a\"b\\c\n\u0001")");
  // Round-trips through a real parser.
  EXPECT_EQ(boost::json::parse(out).as_string(), std::string("a\"b\\c\n\x01", 7));
}

TEST(JsonTest, NestedValuesRoundTrip) {
  auto value = boost::json::parse(
      R"({"a":[1,-2,3.25,true,null,"x"],"b":{"c":{}},"d":18446744073709551615})");
  EXPECT_EQ(boost::json::parse(Serialize(value)), value);
  EXPECT_EQ(boost::json::parse(SerializePretty(value)), value);
}

TEST(JsonTest, KeyPaths) {
  EXPECT_EQ(PathKey("", "tables"), "tables");
  EXPECT_EQ(PathIndex("tables", 1), "tables[1]");
  EXPECT_EQ(PathKey("tables[1]", "fields"), "tables[1].fields");
  EXPECT_EQ(PathKey("a", "with space"), "a[\"with space\"]");
}

}  // namespace
}  // namespace cairn::json
