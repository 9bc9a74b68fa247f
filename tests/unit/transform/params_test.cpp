// Transform parameters (interface.md "Storage: image transforms"): query parsing with every bad
// value named, presets (URL wins), the normalized form and its round trip, Accept negotiation.
#include "transform/params.hpp"

#include <gtest/gtest.h>

#include <map>

namespace cairn::transform {
namespace {

QueryLookup Query(std::map<std::string, std::string> values) {
  return [values = std::move(values)](std::string_view name) -> std::optional<std::string_view> {
    const auto it = values.find(std::string(name));
    if (it == values.end()) return std::nullopt;
    return std::string_view(it->second);
  };
}

TEST(TransformParams, ParsesEveryParameter) {
  auto params = ParseQuery(Query({{"width", "400"},
                                  {"height", "300"},
                                  {"fit", "cover"},
                                  {"crop", "10,90"},
                                  {"quality", "55"},
                                  {"format", "webp"}}),
                           {});
  ASSERT_TRUE(params) << params.error().message;
  EXPECT_EQ(Normalize(*params), "w=400;h=300;fit=cover;crop=10,90;q=55;f=webp");
  EXPECT_EQ(*ParseNormalized(Normalize(*params)), *params);
}

TEST(TransformParams, NormalizeWritesDefaultsAndDropsCropWithoutCover) {
  auto a = ParseQuery(Query({{"width", "10"}}), {});
  auto b = ParseQuery(
      Query({{"width", "10"}, {"fit", "contain"}, {"quality", "80"}, {"crop", "entropy"}}), {});
  EXPECT_EQ(Normalize(*a), Normalize(*b));
  EXPECT_EQ(Normalize(*a), "w=10;fit=contain;q=80");
}

TEST(TransformParams, EveryBadValueIsNamedAtOnce) {
  auto params = ParseQuery(Query({{"width", "0"},
                                  {"height", "2501"},
                                  {"fit", "x"},
                                  {"quality", "101"},
                                  {"crop", "1,101"},
                                  {"format", "gif"},
                                  {"preset", "p"}}),
                           {});
  ASSERT_FALSE(params);
  std::vector<std::string> fields;
  for (const auto& error : params.error().errors) fields.push_back(error.field);
  EXPECT_EQ(fields, (std::vector<std::string>{"preset", "width", "height", "fit", "format",
                                              "quality", "crop"}));
}

TEST(TransformParams, PresetsAreValidatedAndUrlParametersWin) {
  auto presets = ParsePresets(R"({"thumb":{"width":64,"fit":"cover","crop":"attention"}})");
  ASSERT_TRUE(presets);
  auto params = ParseQuery(Query({{"preset", "thumb"}, {"width", "32"}}), *presets);
  ASSERT_TRUE(params);
  EXPECT_EQ(params->width, 32);
  EXPECT_EQ(params->fit, Fit::kCover);
  EXPECT_EQ(params->crop->kind, CropKind::kAttention);
  for (const char* bad :
       {R"([])", R"({"a b":{}})", R"({"t":{"width":0}})", R"({"t":{"width":"64"}})",
        R"({"t":{"fit":"zoom"}})", R"({"t":{"size":1}})", R"({"t":5})", "{"}) {
    EXPECT_FALSE(ParsePresets(bad)) << bad;
  }
}

TEST(TransformParams, NegotiatesFromAccept) {
  EXPECT_EQ(Negotiate("image/avif,image/webp,*/*", Format::kAvif), Format::kAvif);
  EXPECT_EQ(Negotiate("image/avif,image/webp,*/*", Format::kWebp), Format::kWebp);
  EXPECT_EQ(Negotiate("image/webp,*/*", Format::kAvif), Format::kWebp);
  EXPECT_EQ(Negotiate("image/avif;q=0, image/webp;q=0.5", Format::kAvif), Format::kWebp);
  EXPECT_EQ(Negotiate("*/*", Format::kAvif), Format::kJpeg);
  EXPECT_EQ(Negotiate("", Format::kPng), Format::kPng);
  EXPECT_EQ(Negotiate("IMAGE/WEBP", Format::kJpeg), Format::kWebp);
}

}  // namespace
}  // namespace cairn::transform
