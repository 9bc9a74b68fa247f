#include "records/fields/exact_number.hpp"

#include <gtest/gtest.h>

namespace cairn::records::fields {
namespace {

ExactNumber N(std::string_view text) {
  auto number = ParseExactNumber(text);
  EXPECT_TRUE(number.has_value()) << text;
  return number.value_or(ExactNumber{});
}

TEST(ExactNumber, ParsesAndNormalizes) {
  EXPECT_EQ(ToText(N("0012.5000")), "12.5");
  EXPECT_EQ(ToText(N("-0.000")), "0");
  EXPECT_EQ(ToText(N("1.5e3")), "1500");
  EXPECT_EQ(ToText(N("15E-4")), "0.0015");
  EXPECT_EQ(ToText(N("+7")), "7");
  EXPECT_EQ(N("12.50").FractionDigits(), 1);
  for (const char* bad : {"", "-", ".5", "5.", "1e", "1e+", "1.2.3", "0x1", " 1", "1 ", "∞"}) {
    EXPECT_FALSE(ParseExactNumber(bad).has_value()) << bad;
  }
}

TEST(ExactNumber, DoublesReadAsTheirShortestDecimal) {
  EXPECT_EQ(ToText(ExactFromDouble(0.1)), "0.1");
  EXPECT_EQ(ToText(ExactFromDouble(19.99)), "19.99");
  EXPECT_EQ(ToText(ExactFromDouble(1e21)), "1000000000000000000000");
  EXPECT_EQ(ToText(ExactFromDouble(-2.5e-7)), "-0.00000025");
  EXPECT_EQ(ToText(ExactFromDouble(0.1 + 0.2)), "0.30000000000000004");
}

TEST(ExactNumber, ComparesExactly) {
  EXPECT_EQ(Compare(N("19.99"), ExactFromDouble(19.99)), 0);
  EXPECT_LT(Compare(N("9007199254740992"), N("9007199254740993")), 0);
  EXPECT_GT(Compare(N("-1"), N("-1.5")), 0);
  EXPECT_LT(Compare(N("-100"), N("0.001")), 0);
  EXPECT_EQ(Compare(N("0"), N("-0.0")), 0);
  EXPECT_GT(Compare(N("10"), N("9.999")), 0);
  EXPECT_LT(Compare(N("0.0999"), N("0.1")), 0);
}

TEST(ExactNumber, ScalesWithoutRounding) {
  std::int64_t units = 0;
  EXPECT_EQ(ToUnits(N("19.99"), 2, units), ScaleOutcome::kOk);
  EXPECT_EQ(units, 1999);
  EXPECT_EQ(ToUnits(N("-0.5"), 3, units), ScaleOutcome::kOk);
  EXPECT_EQ(units, -500);
  EXPECT_EQ(ToUnits(N("19.999"), 2, units), ScaleOutcome::kTooManyPlaces);
  EXPECT_EQ(ToUnits(N("9223372036854775807"), 0, units), ScaleOutcome::kOk);
  EXPECT_EQ(units, INT64_MAX);
  EXPECT_EQ(ToUnits(N("-9223372036854775808"), 0, units), ScaleOutcome::kOk);
  EXPECT_EQ(units, INT64_MIN);
  EXPECT_EQ(ToUnits(N("9223372036854775808"), 0, units), ScaleOutcome::kOutOfRange);
  EXPECT_EQ(ToUnits(N("1e19"), 0, units), ScaleOutcome::kOutOfRange);
  EXPECT_EQ(ToUnits(N("1e100000"), 2, units), ScaleOutcome::kOutOfRange);
  EXPECT_EQ(ToUnits(N("1e-100000"), 2, units), ScaleOutcome::kTooManyPlaces);
}

TEST(ExactNumber, HugeExponentsStayShortInMessages) {
  EXPECT_EQ(ToText(N("1e100000")), "1e100000");
  EXPECT_EQ(ToText(N("-1.25e-500")), "-1.25e-500");
}

}  // namespace
}  // namespace cairn::records::fields
