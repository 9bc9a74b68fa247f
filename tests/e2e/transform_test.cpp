// Image transforms over HTTP (interface.md "Storage: image transforms", D46) on the local and
// bytea providers and the database backend of the run: every fit × format read back with
// libvips, one-sided sizes, negotiation, quality, crops, presets, every 400, SVG and non-images,
// EXIF orientation and stripping, the hostile corpus (bombs, truncated, corrupt, polyglots,
// wrong extensions), the cache (hit, 304, eviction, a replaced original), single flight under 32
// identical requests, the queue's 503, and transforms signed into tokens.
#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <thread>

#include "e2e/auth_test_support.hpp"
#include "e2e/expect_envelope.hpp"
#include "e2e/storage_support.hpp"
#include "transform/image.hpp"

namespace cairn::test {
namespace {

using transform::Output;

std::string Sample(int width, int height, Output output, bool noise = false, int orientation = 1) {
  auto bytes = transform::SampleImage(width, height, output, noise, orientation);
  if (!bytes) throw std::runtime_error("SampleImage: " + bytes.error().message);
  return *bytes;
}

transform::ImageFacts Facts(const std::string& bytes) {
  auto facts = transform::InspectImage(bytes);
  if (!facts) return {};
  return *facts;
}

// The corpus of hostile files, by name (tests/fixtures/hostile_images, made by make_corpus.py).
std::string Fixture(const std::string& name) {
  std::ifstream in(std::filesystem::path(CAIRN_HOSTILE_IMAGES) / name, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

// `jpeg` with its frame header (SOF) claiming width × height: a decompression bomb's header.
std::string ClaimSize(std::string jpeg, int width, int height) {
  for (std::size_t i = 2; i + 9 < jpeg.size(); ++i) {
    const auto marker = static_cast<unsigned char>(jpeg[i + 1]);
    if (static_cast<unsigned char>(jpeg[i]) == 0xff && (marker == 0xc0 || marker == 0xc2)) {
      jpeg[i + 5] = static_cast<char>(height >> 8);
      jpeg[i + 6] = static_cast<char>(height & 0xff);
      jpeg[i + 7] = static_cast<char>(width >> 8);
      jpeg[i + 8] = static_cast<char>(width & 0xff);
      break;
    }
  }
  return jpeg;
}

class TransformTest : public ::testing::TestWithParam<std::string> {
 protected:
  StorageAppOptions Options() {
    StorageAppOptions options;
    options.provider = GetParam();
    options.before_transform = [this](std::string_view /*key*/) { transforms_.fetch_add(1); };
    options.tune_settings = [](app::Settings& settings) {
      settings.storage_transform_cache_dir = settings.data_dir + "/transform-cache";
      settings.storage_transform_presets = R"({"thumb":{"width":64,"height":64,"fit":"cover"}})";
    };
    return options;
  }

  // GET of the signed URL of `path` in `docs` with `query` appended.
  static HttpResult Get(StorageApp& app, const std::string& path, const std::string& query,
                        const Headers& headers = {}) {
    return app.app().Client().Request("GET", app.SignedTarget("docs", path) + query, {}, headers);
  }

  std::atomic<int> transforms_{0};
};

// Contain letterboxes to the box, cover and fill fill it, inside never upscales, outside never
// downscales (then crops to the box like cover); every output really is the format asked.
TEST_P(TransformTest, EveryFitTimesFormat) {
  StorageApp app(Options());
  ASSERT_EQ(app.Upload("docs", "p/a.jpg", Sample(400, 300, Output::kJpeg)).status, 201);
  struct Expected {
    const char* fit;
    int small_w, small_h;  // for a 200×200 box
    int large_w, large_h;  // for an 800×800 box
  };
  const Expected fits[] = {{"contain", 200, 200, 800, 800},
                           {"cover", 200, 200, 800, 800},
                           {"fill", 200, 200, 800, 800},
                           {"inside", 200, 150, 400, 300},
                           {"outside", 200, 200, 800, 800}};
  const std::pair<const char*, const char*> formats[] = {{"avif", "VipsForeignLoadHeif"},
                                                         {"webp", "VipsForeignLoadWebp"},
                                                         {"jpeg", "VipsForeignLoadJpeg"},
                                                         {"png", "VipsForeignLoadPng"}};
  for (const auto& fit : fits) {
    for (const auto& [format, loader] : formats) {
      for (const bool large : {false, true}) {
        const std::string box = large ? "800" : "200";
        const auto got =
            Get(app, "p/a.jpg",
                "&width=" + box + "&height=" + box + "&fit=" + fit.fit + "&format=" + format);
        SCOPED_TRACE(std::string(fit.fit) + " " + format + " " + box);
        ASSERT_EQ(got.status, 200) << got.body;
        EXPECT_EQ(got.Header("Content-Type"), std::string("image/") + format);
        const auto facts = Facts(got.body);
        EXPECT_TRUE(facts.loader.starts_with(loader)) << facts.loader;
        EXPECT_EQ(facts.width, large ? fit.large_w : fit.small_w);
        EXPECT_EQ(facts.height, large ? fit.large_h : fit.small_h);
        EXPECT_EQ(got.Header("Cache-Control"), "public, max-age=31536000, immutable");
        EXPECT_TRUE(got.Header("Vary").empty());
      }
    }
  }
}

TEST_P(TransformTest, OneSideKeepsTheAspectRatioAndOriginKeepsTheFormat) {
  StorageApp app(Options());
  ASSERT_EQ(app.Upload("docs", "p/a.png", Sample(400, 300, Output::kPng)).status, 201);
  ASSERT_EQ(app.Upload("docs", "p/a.gif", Sample(40, 30, Output::kGif)).status, 201);
  auto got = Get(app, "p/a.png", "&width=100&format=origin");
  ASSERT_EQ(got.status, 200) << got.body;
  EXPECT_EQ(got.Header("Content-Type"), "image/png");
  EXPECT_EQ(Facts(got.body).width, 100);
  EXPECT_EQ(Facts(got.body).height, 75);
  got = Get(app, "p/a.png", "&height=150&format=webp");
  EXPECT_EQ(Facts(got.body).width, 200);
  EXPECT_EQ(Facts(got.body).height, 150);
  got = Get(app, "p/a.gif", "&width=20&format=origin");
  ASSERT_EQ(got.status, 200) << got.body;
  EXPECT_EQ(got.Header("Content-Type"), "image/gif");
  EXPECT_EQ(Facts(got.body).width, 20);
  // No transform parameter: the original bytes.
  got = Get(app, "p/a.png", "");
  EXPECT_EQ(got.body, Sample(400, 300, Output::kPng));
}

// libvips reads the source from storage as it decodes (never the whole file in memory): every
// source type, each larger than the head read for type detection, so reads go past it, and
// TIFF's seeks (its directory comes after the pixels) reopen the object at an offset.
TEST_P(TransformTest, EverySourceTypeIsReadFromStorageAsItDecodes) {
  StorageApp app(Options());
  const std::pair<const char*, Output> sources[] = {
      {"jpg", Output::kJpeg}, {"png", Output::kPng}, {"webp", Output::kWebp},
      {"avif", Output::kAvif}, {"gif", Output::kGif}, {"tiff", Output::kTiff}};
  for (const auto& [extension, type] : sources) {
    SCOPED_TRACE(extension);
    const std::string bytes = Sample(600, 400, type, /*noise=*/true);
    ASSERT_GT(bytes.size(), 64U * 1024);
    const std::string path = std::string("big/a.") + extension;
    ASSERT_EQ(app.Upload("docs", path, bytes).status, 201);
    const auto got = Get(app, path, "&width=150&format=webp");
    ASSERT_EQ(got.status, 200) << got.body;
    const auto facts = Facts(got.body);
    EXPECT_TRUE(facts.loader.starts_with("VipsForeignLoadWebp")) << facts.loader;
    EXPECT_EQ(facts.width, 150);
    EXPECT_EQ(facts.height, 100);
  }
}

TEST_P(TransformTest, FormatIsNegotiatedFromAccept) {
  StorageApp app(Options());
  ASSERT_EQ(app.Upload("docs", "p/a.jpg", Sample(200, 100, Output::kJpeg)).status, 201);
  const std::pair<const char*, const char*> cases[] = {
      {"image/avif,image/webp,*/*", "image/avif"},  // ECO_IMAGE_FORMAT's default, avif
      {"image/webp,*/*;q=0.8", "image/webp"},
      {"image/avif;q=0,image/webp", "image/webp"},
      {"*/*", "image/jpeg"},
      {"", "image/jpeg"}};
  for (const auto& [accept, type] : cases) {
    Headers headers;
    if (*accept != '\0') headers.emplace_back("Accept", accept);
    const auto got = Get(app, "p/a.jpg", "&width=50", headers);
    ASSERT_EQ(got.status, 200) << got.body;
    EXPECT_EQ(got.Header("Content-Type"), type) << accept;
    EXPECT_EQ(got.Header("Vary"), "Accept");
  }
}

TEST_P(TransformTest, QualityCropAndPresets) {
  StorageApp app(Options());
  ASSERT_EQ(app.Upload("docs", "p/n.png", Sample(300, 200, Output::kPng, true)).status, 201);
  const auto low = Get(app, "p/n.png", "&width=200&format=jpeg&quality=10");
  const auto high = Get(app, "p/n.png", "&width=200&format=jpeg&quality=95");
  ASSERT_EQ(low.status, 200);
  EXPECT_LT(low.body.size() * 2, high.body.size());
  // PNG ignores quality.
  EXPECT_EQ(Get(app, "p/n.png", "&width=200&format=png&quality=10").body,
            Get(app, "p/n.png", "&width=200&format=png&quality=95").body);
  // Focal points pick different windows; crop means nothing without cover.
  const auto left = Get(app, "p/n.png", "&width=100&height=100&fit=cover&crop=0,0&format=png");
  const auto right = Get(app, "p/n.png", "&width=100&height=100&fit=cover&crop=100,100&format=png");
  ASSERT_EQ(left.status, 200) << left.body;
  EXPECT_NE(left.body, right.body);
  for (const char* crop : {"entropy", "attention", "center"}) {
    const auto got =
        Get(app, "p/n.png", std::string("&width=80&height=60&fit=cover&format=png&crop=") + crop);
    ASSERT_EQ(got.status, 200) << got.body;
    EXPECT_EQ(Facts(got.body).width, 80);
    EXPECT_EQ(Facts(got.body).height, 60);
  }
  EXPECT_EQ(Get(app, "p/n.png", "&width=80&fit=contain&crop=0,0&format=png").body,
            Get(app, "p/n.png", "&width=80&fit=contain&format=png").body);
  // A preset, and URL parameters over it.
  auto got = Get(app, "p/n.png", "&preset=thumb&format=png");
  EXPECT_EQ(Facts(got.body).width, 64);
  EXPECT_EQ(Facts(got.body).height, 64);
  got = Get(app, "p/n.png", "&preset=thumb&format=png&height=32");
  EXPECT_EQ(Facts(got.body).width, 64);
  EXPECT_EQ(Facts(got.body).height, 32);
}

TEST_P(TransformTest, EveryBadValueIsA400NamingItsParameter) {
  StorageApp app(Options());
  ASSERT_EQ(app.Upload("docs", "p/a.jpg", Sample(40, 30, Output::kJpeg)).status, 201);
  const std::pair<const char*, const char*> cases[] = {
      {"&width=0", "width"},       {"&width=2501", "width"},
      {"&width=abc", "width"},     {"&width=", "width"},
      {"&height=-1", "height"},    {"&height=1.5", "height"},
      {"&fit=zoom", "fit"},        {"&format=bmp", "format"},
      {"&format=svg", "format"},   {"&quality=0", "quality"},
      {"&quality=101", "quality"}, {"&crop=middle", "crop"},
      {"&crop=50", "crop"},        {"&crop=101,5", "crop"},
      {"&crop=5,-1", "crop"},      {"&crop=a,b", "crop"},
      {"&preset=nope", "preset"},  {"&preset=thumb&width=9999", "width"}};
  for (const auto& [query, field] : cases) {
    const auto got = Get(app, "p/a.jpg", query);
    SCOPED_TRACE(query);
    ExpectEnvelope(got, 400, "VALIDATION_ERROR");
    const boost::json::value body = got.Json();
    const auto& errors = body.at("errors").as_array();
    ASSERT_FALSE(errors.empty());
    EXPECT_EQ(errors[0].at("field"), boost::json::value(field));
  }
  EXPECT_EQ(transforms_.load(), 0);
}

TEST_P(TransformTest, PresetWithoutAnyConfiguredIsA400) {
  StorageAppOptions options = Options();
  options.tune_settings = [](app::Settings& settings) {
    settings.storage_transform_cache_dir = settings.data_dir + "/transform-cache";
  };
  StorageApp app(options);
  ASSERT_EQ(app.Upload("docs", "p/a.jpg", Sample(40, 30, Output::kJpeg)).status, 201);
  const auto got = Get(app, "p/a.jpg", "&preset=thumb");
  ExpectEnvelope(got, 400, "VALIDATION_ERROR");
  EXPECT_EQ(got.Json().at("errors").as_array()[0].at("field"), "preset");
}

TEST_P(TransformTest, SvgPassesThroughAndNonImagesAreRefused) {
  StorageApp app(Options());
  const std::string svg =
      R"(<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>)";
  ASSERT_EQ(app.Upload("docs", "p/a.svg", svg).status, 201);
  ASSERT_EQ(app.Upload("docs", "p/a.pdf", TinyPdf()).status, 201);
  ASSERT_EQ(app.Upload("docs", "p/a.csv", "a,b\n1,2\n").status, 201);
  auto got = Get(app, "p/a.svg", "&width=100&format=png");
  ASSERT_EQ(got.status, 200) << got.body;
  EXPECT_EQ(got.body, svg);
  EXPECT_EQ(got.Header("Content-Type"), "image/svg+xml");
  EXPECT_TRUE(got.Header("Content-Disposition").starts_with("attachment"));
  for (const char* path : {"p/a.pdf", "p/a.csv"}) {
    got = Get(app, path, "&width=100");
    ExpectEnvelope(got, 400, "VALIDATION_ERROR");
    EXPECT_EQ(got.Json().at("errors").as_array()[0].at("field"), "file");
  }
  EXPECT_EQ(transforms_.load(), 0);
}

// EXIF orientation 6 (rotated 90°) is applied, and nothing of the source's metadata leaves.
TEST_P(TransformTest, OrientationIsAppliedAndMetadataStripped) {
  StorageApp app(Options());
  const std::string source = Sample(200, 100, Output::kJpeg, false, 6);
  ASSERT_TRUE(Facts(source).has_exif);
  ASSERT_TRUE(Facts(source).has_gps);
  ASSERT_EQ(app.Upload("docs", "p/r.jpg", source).status, 201);
  for (const char* format : {"jpeg", "webp", "png", "avif"}) {
    const auto got = Get(app, "p/r.jpg", std::string("&width=50&format=") + format);
    ASSERT_EQ(got.status, 200) << got.body;
    const auto facts = Facts(got.body);
    EXPECT_EQ(facts.width, 50) << format;
    EXPECT_EQ(facts.height, 100) << format;
    EXPECT_FALSE(facts.has_gps) << format;
    EXPECT_EQ(facts.orientation, 1) << format;
    // libvips 8.14's webpsave writes a minimal EXIF block of its own (resolution, orientation 1)
    // even when stripping; every other output carries none.
    if (std::string_view(format) != "webp") {
      EXPECT_FALSE(facts.has_exif) << format;
    }
    EXPECT_FALSE(facts.has_icc) << format;
  }
}

// Whatever the bytes, a transform answers 400 (or a real image), never 5xx, never a hang.
TEST_P(TransformTest, HostileCorpusAnswers400) {
  StorageApp app(Options());
  const std::string jpeg = Sample(300, 200, Output::kJpeg);
  const std::string png = Sample(300, 200, Output::kPng, true);
  std::map<std::string, std::string> refused = {
      {"bomb-dimensions.png", Fixture("bomb-dimensions.png")},
      {"bomb-dimensions.jpg", ClaimSize(jpeg, 65000, 65000)},
      {"bomb-dimensions.gif", Fixture("bomb-dimensions.gif")},
      {"bomb-zeros.png", Fixture("bomb-zeros.png")},
      {"header-only.png", Fixture("header-only.png")},
      {"pdf-named.png", TinyPdf()},
      {"truncated.jpg", jpeg.substr(0, jpeg.size() / 2)},
      {"truncated.png", png.substr(0, png.size() / 2)},
      {"corrupt.jpg", jpeg.substr(0, 200) + std::string(jpeg.size() - 200, '\x5a')},
      {"corrupt.png", png.substr(0, 100) + std::string(png.size() - 100, '\x00')},
      {"png-signature-over-jpeg.png", Fixture("png-signature-over-jpeg.png")},
  };
  for (const auto& [name, bytes] : refused) {
    ASSERT_EQ(app.Upload("docs", "h/" + name, bytes).status, 201) << name;
    const auto got = Get(app, "h/" + name, "&width=100&format=webp");
    SCOPED_TRACE(name);
    ExpectEnvelope(got, 400, "VALIDATION_ERROR");
  }
  // Wrong extensions: the type comes from the bytes.
  ASSERT_EQ(app.Upload("docs", "h/png-named.jpg", png).status, 201);
  auto got = Get(app, "h/png-named.jpg", "&width=30&format=origin");
  ASSERT_EQ(got.status, 200) << got.body;
  EXPECT_EQ(got.Header("Content-Type"), "image/png");
  // A JPEG with a page appended: the output is a fresh encoding without it.
  ASSERT_EQ(app.Upload("docs", "h/jpeg-html.jpg", jpeg + "<html><script>alert(1)</script>").status,
            201);
  got = Get(app, "h/jpeg-html.jpg", "&width=30&format=jpeg");
  ASSERT_EQ(got.status, 200) << got.body;
  EXPECT_EQ(got.body.find("<script>"), std::string::npos);
}

TEST_P(TransformTest, SourcesAboveTheMaxPixelsAreRefused) {
  StorageAppOptions options = Options();
  options.tune_settings = [](app::Settings& settings) {
    settings.storage_transform_cache_dir = settings.data_dir + "/transform-cache";
    settings.storage_transform_max_pixels = 10'000;
  };
  StorageApp app(options);
  ASSERT_EQ(app.Upload("docs", "p/a.jpg", Sample(200, 100, Output::kJpeg)).status, 201);
  ASSERT_EQ(app.Upload("docs", "p/s.jpg", Sample(100, 100, Output::kJpeg)).status, 201);
  ExpectEnvelope(Get(app, "p/a.jpg", "&width=10"), 400, "VALIDATION_ERROR");
  EXPECT_EQ(Get(app, "p/s.jpg", "&width=10").status, 200);
  // Nor may the output pass it (an upscale).
  ExpectEnvelope(Get(app, "p/s.jpg", "&width=2000"), 400, "VALIDATION_ERROR");
}

TEST_P(TransformTest, CacheHitEtagAndReplacedOriginal) {
  StorageApp app(Options());
  ASSERT_EQ(app.Upload("docs", "p/a.jpg", Sample(400, 300, Output::kJpeg)).status, 201);
  const auto first = Get(app, "p/a.jpg", "&width=100&format=webp");
  ASSERT_EQ(first.status, 200) << first.body;
  EXPECT_EQ(transforms_.load(), 1);
  // Another spelling of the same transform is the same entry.
  const auto second = Get(app, "p/a.jpg", "&format=webp&width=100&fit=contain&quality=80");
  EXPECT_EQ(second.body, first.body);
  EXPECT_EQ(second.Header("ETag"), first.Header("ETag"));
  EXPECT_EQ(transforms_.load(), 1);
  const auto head = app.app().Client().Request(
      "HEAD", app.SignedTarget("docs", "p/a.jpg") + "&width=100&format=webp");
  EXPECT_EQ(head.status, 200);
  EXPECT_EQ(head.Header("Content-Length"), std::to_string(first.body.size()));
  const auto not_modified =
      Get(app, "p/a.jpg", "&width=100&format=webp", {{"If-None-Match", first.Header("ETag")}});
  EXPECT_EQ(not_modified.status, 304);
  EXPECT_TRUE(not_modified.body.empty());
  // A new original: a new ETag and a new transform, never the old one.
  ASSERT_EQ(app.Upload("docs", "p/a.jpg", Sample(200, 300, Output::kJpeg)).status, 201);
  const auto replaced =
      Get(app, "p/a.jpg", "&width=100&format=webp", {{"If-None-Match", first.Header("ETag")}});
  ASSERT_EQ(replaced.status, 200);
  EXPECT_NE(replaced.Header("ETag"), first.Header("ETag"));
  EXPECT_EQ(Facts(replaced.body).height, 150);
  EXPECT_EQ(transforms_.load(), 2);
}

TEST_P(TransformTest, CacheEvictsLeastRecentlyUsedWithinItsSize) {
  StorageAppOptions options = Options();
  options.tune_settings = [](app::Settings& settings) {
    settings.storage_transform_cache_dir = settings.data_dir + "/transform-cache";
    settings.storage_transform_cache_max_mb = 1;
  };
  StorageApp app(options);
  ASSERT_EQ(app.Upload("docs", "p/n.png", Sample(500, 400, Output::kPng, true)).status, 201);
  // Each is ~400 KB of noise as PNG: two fit in 1 MB, three do not.
  const auto a = Get(app, "p/n.png", "&width=410&format=png");
  const auto b = Get(app, "p/n.png", "&width=411&format=png");
  ASSERT_GT(a.body.size(), 350'000U);
  ASSERT_LT(a.body.size() * 2, 1'000'000U);
  Get(app, "p/n.png", "&width=410&format=png");  // a is now the most recent
  Get(app, "p/n.png", "&width=412&format=png");  // evicts b
  EXPECT_EQ(transforms_.load(), 3) << a.body.size() << " " << b.body.size();
  Get(app, "p/n.png", "&width=410&format=png");
  EXPECT_EQ(transforms_.load(), 3);  // a survived
  Get(app, "p/n.png", "&width=411&format=png");
  EXPECT_EQ(transforms_.load(), 4);  // b did not
  std::uint64_t total = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator(app.app().data_dir() / "transform-cache")) {
    total += entry.file_size();
  }
  EXPECT_LE(total, 1'000'000U);
}

TEST_P(TransformTest, ThirtyTwoIdenticalRequestsTransformOnce) {
  StorageApp app(Options());
  ASSERT_EQ(app.Upload("docs", "p/big.jpg", Sample(2000, 1500, Output::kJpeg)).status, 201);
  const std::string target = app.SignedTarget("docs", "p/big.jpg") + "&width=400&format=webp";
  std::vector<HttpResult> results(32);
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < results.size(); ++i) {
    threads.emplace_back(
        [&, i] { results[i] = app.app().Client().Request("GET", target, {}, {}); });
  }
  for (auto& thread : threads) thread.join();
  for (const auto& result : results) {
    ASSERT_EQ(result.status, 200) << result.body;
    EXPECT_EQ(result.body, results[0].body);
  }
  EXPECT_EQ(transforms_.load(), 1);
}

TEST_P(TransformTest, AFullQueueAnswers503WithRetryAfter) {
  std::mutex mutex;
  std::condition_variable changed;
  bool holding = false;
  bool release = false;
  StorageAppOptions options = Options();
  options.tune_settings = [](app::Settings& settings) {
    settings.storage_transform_cache_dir = settings.data_dir + "/transform-cache";
    settings.transform_threads = 1;
    settings.transform_queue = 0;
    settings.worker_threads = 4;
  };
  options.before_transform = [&](std::string_view /*key*/) {
    std::unique_lock lock(mutex);
    holding = true;
    changed.notify_all();
    changed.wait(lock, [&] { return release; });
  };
  StorageApp app(options);
  ASSERT_EQ(app.Upload("docs", "p/a.jpg", Sample(100, 100, Output::kJpeg)).status, 201);
  const std::string first = app.SignedTarget("docs", "p/a.jpg") + "&width=10";
  const std::string second = app.SignedTarget("docs", "p/a.jpg") + "&width=11";
  HttpResult held;
  std::thread holder([&] { held = app.app().Client().Request("GET", first, {}, {}); });
  {
    std::unique_lock lock(mutex);
    changed.wait(lock, [&] { return holding; });
  }
  const auto refused = app.app().Client().Request("GET", second, {}, {});
  ExpectEnvelope(refused, 503, "SERVICE_UNAVAILABLE");
  EXPECT_EQ(refused.Header("Retry-After"), "1");
  {
    const std::lock_guard lock(mutex);
    release = true;
  }
  changed.notify_all();
  holder.join();
  EXPECT_EQ(held.status, 200) << held.body;
}

TEST_P(TransformTest, SignedUrlsCarryTheirTransform) {
  StorageApp app(Options());
  ASSERT_EQ(app.Upload("docs", "p/a.jpg", Sample(400, 300, Output::kJpeg)).status, 201);
  ASSERT_EQ(app.Upload("docs", "p/a.pdf", TinyPdf()).status, 201);
  auto signed_url = app.Sign(app.admin(), "docs",
                             R"({"path":"p/a.jpg","transform":{"width":40,"format":"png"}})");
  ASSERT_EQ(signed_url.status, 200) << signed_url.body;
  const std::string target = TargetOf(std::string(signed_url.Json().at("signedUrl").as_string()));
  auto got = app.app().Client().Request("GET", target, {}, {});
  ASSERT_EQ(got.status, 200) << got.body;
  EXPECT_EQ(got.Header("Content-Type"), "image/png");
  EXPECT_EQ(Facts(got.body).width, 40);
  // The URL cannot change the signed transform, nor strip it.
  ExpectEnvelope(app.app().Client().Request("GET", target + "&width=400", {}, {}), 403,
                 "FORBIDDEN");
  // Bad transforms when signing: 400 naming the member; uploads and non-images take none.
  auto bad = app.Sign(app.admin(), "docs", R"({"path":"p/a.jpg","transform":{"width":0}})");
  ExpectEnvelope(bad, 400, "VALIDATION_ERROR");
  EXPECT_EQ(bad.Json().at("errors").as_array()[0].at("field"), "transform.width");
  bad = app.Sign(app.admin(), "docs", R"({"path":"p/a.pdf","transform":{"width":10}})");
  ExpectEnvelope(bad, 400, "VALIDATION_ERROR");
  bad = app.Sign(app.admin(), "docs",
                 R"({"path":"p/b.jpg","operation":"upload","transform":{"width":10}})");
  ExpectEnvelope(bad, 400, "VALIDATION_ERROR");
  // A plain token takes transform parameters from the URL.
  got = Get(app, "p/a.jpg", "&width=30&format=png");
  EXPECT_EQ(Facts(got.body).width, 30);
}

// An attachment value may carry a transform (issue 16 item 4): checked on write like the sign
// body's (errors under `fields.<name>.transform`), stored with the value, and signed into the
// URL a read embeds. sign/batch items take one too.
TEST_P(TransformTest, AttachmentValuesAndBatchSigningCarryTransforms) {
  StorageAppOptions options = Options();
  std::string config = kStorageConfig;
  const std::string title = "      - { id: 1, name: title, type: single-line-text }\n";
  config.replace(config.find(title), title.size(),
                 title +
                     "      - { id: 2, name: photo, type: attachment, bucket: docs }\n"
                     "      - { id: 3, name: photos, type: multiple-attachments, bucket: docs }\n");
  options.config = config;
  StorageApp app(options);
  ASSERT_EQ(app.Upload("docs", "p/a.jpg", Sample(400, 300, Output::kJpeg)).status, 201);
  ASSERT_EQ(app.Upload("docs", "p/b.jpg", Sample(200, 100, Output::kJpeg)).status, 201);
  ASSERT_EQ(app.Upload("docs", "p/a.pdf", TinyPdf()).status, 201);
  const auto created = app.Send(
      app.admin(), "POST", "/api/tables/notes/records",
      R"({"fields":{"title":"t","photo":{"path":"p/a.jpg","transform":{"width":40,"format":"png"}},
          "photos":[{"path":"p/b.jpg"},{"path":"p/a.jpg","transform":{"preset":"thumb","format":"webp"}}]}})");
  ASSERT_EQ(created.status, 201) << created.body;
  const auto check = [&](const boost::json::value& record) {
    const auto& photo = record.at("fields").at("photo");
    EXPECT_EQ(photo.at("transform").at("width"), 40);
    const auto got = app.app().Client().Request(
        "GET", TargetOf(std::string(photo.at("signedUrl").as_string())), {}, {});
    ASSERT_EQ(got.status, 200) << got.body;
    EXPECT_EQ(got.Header("Content-Type"), "image/png");
    EXPECT_TRUE(Facts(got.body).loader.starts_with("VipsForeignLoadPng"));
    EXPECT_EQ(Facts(got.body).width, 40);
    EXPECT_EQ(Facts(got.body).height, 30);
    const auto& photos = record.at("fields").at("photos").as_array();
    ASSERT_EQ(photos.size(), 2U);
    const auto original = app.app().Client().Request(
        "GET", TargetOf(std::string(photos[0].at("signedUrl").as_string())), {}, {});
    EXPECT_EQ(Facts(original.body).width, 200);  // no transform: the original
    const auto thumb = app.app().Client().Request(
        "GET", TargetOf(std::string(photos[1].at("signedUrl").as_string())), {}, {});
    EXPECT_EQ(thumb.Header("Content-Type"), "image/webp");
    EXPECT_EQ(Facts(thumb.body).width, 64);  // the preset: 64x64 cover
    EXPECT_EQ(Facts(thumb.body).height, 64);
  };
  check(created.Json());
  const auto read =
      app.Send(app.admin(), "GET",
               "/api/tables/notes/records/" + std::string(created.Json().at("id").as_string()));
  ASSERT_EQ(read.status, 200) << read.body;
  check(read.Json());

  // Each bad transform is a 400 naming it under the field; only images take one.
  const auto field_of = [](const HttpResult& result) {
    return std::string(result.Json().at("errors").as_array()[0].at("field").as_string());
  };
  auto bad = app.Send(app.admin(), "POST", "/api/tables/notes/records",
                      R"({"fields":{"photo":{"path":"p/a.jpg","transform":{"width":0}}}})");
  ExpectEnvelope(bad, 400, "VALIDATION_ERROR");
  EXPECT_EQ(field_of(bad), "fields.photo.transform.width");
  bad = app.Send(app.admin(), "POST", "/api/tables/notes/records",
                 R"({"fields":{"photo":{"path":"p/a.jpg","transform":{"fit":"squash"}}}})");
  EXPECT_EQ(field_of(bad), "fields.photo.transform.fit");
  bad = app.Send(app.admin(), "POST", "/api/tables/notes/records",
                 R"({"fields":{"photo":{"path":"p/a.jpg","transform":{"zoom":2}}}})");
  EXPECT_EQ(field_of(bad), "fields.photo.transform.zoom");
  bad = app.Send(app.admin(), "POST", "/api/tables/notes/records",
                 R"({"fields":{"photo":{"path":"p/a.pdf","transform":{"width":10}}}})");
  ExpectEnvelope(bad, 400, "VALIDATION_ERROR");
  EXPECT_EQ(field_of(bad), "fields.photo.transform");
  bad = app.Send(
      app.admin(), "POST", "/api/tables/notes/records",
      R"({"fields":{"photos":[{"path":"p/b.jpg"},{"path":"p/a.jpg","transform":{"quality":0}}]}})");
  EXPECT_EQ(field_of(bad), "fields.photos[1].transform.quality");

  // sign/batch: a transform per item, checked up front; a non-image item fails alone.
  auto batch = app.Send(app.admin(), "POST", "/api/buckets/docs/sign/batch",
                        R"({"files":[{"path":"p/a.jpg","transform":{"width":20,"format":"webp"}},
                                     {"path":"p/a.pdf","transform":{"width":10}},
                                     {"path":"p/a.jpg"}]})");
  ASSERT_EQ(batch.status, 200) << batch.body;
  const boost::json::value batch_json = batch.Json();
  const auto& items = batch_json.at("files").as_array();
  auto got = app.app().Client().Request(
      "GET", TargetOf(std::string(items[0].at("signedUrl").as_string())), {}, {});
  ASSERT_EQ(got.status, 200) << got.body;
  EXPECT_EQ(got.Header("Content-Type"), "image/webp");
  EXPECT_EQ(Facts(got.body).width, 20);
  ExpectEnvelope(
      app.app().Client().Request(
          "GET", TargetOf(std::string(items[0].at("signedUrl").as_string())) + "&width=9", {}, {}),
      403, "FORBIDDEN");
  EXPECT_EQ(items[1].at("error"), "not_an_image");
  got = app.app().Client().Request(
      "GET", TargetOf(std::string(items[2].at("signedUrl").as_string())), {}, {});
  EXPECT_EQ(Facts(got.body).width, 400);
  batch =
      app.Send(app.admin(), "POST", "/api/buckets/docs/sign/batch",
               R"({"files":[{"path":"p/a.jpg"},{"path":"p/a.jpg","transform":{"height":9999}}]})");
  ExpectEnvelope(batch, 400, "VALIDATION_ERROR");
  EXPECT_EQ(field_of(batch), "files[1].transform.height");
}

// A restart on the same data directory (issue 16, rule 10): the transform made before is a
// cache hit (nothing transforms again) and the cache's size accounting is rebuilt from the
// directory, so the next entry still evicts within STORAGE_TRANSFORM_CACHE_MAX_SIZE.
TEST_P(TransformTest, ARestartKeepsTheCacheAndRebuildsItsAccounting) {
  StorageAppOptions options = Options();
  options.tune_settings = [](app::Settings& settings) {
    settings.storage_transform_cache_dir = settings.data_dir + "/transform-cache";
    settings.storage_transform_cache_max_mb = 1;
  };
  StorageApp first(options);
  ASSERT_EQ(first.Upload("docs", "p/n.png", Sample(500, 400, Output::kPng, true)).status, 201);
  // ~400 KB of noise each: two fit in 1 MB, three do not.
  const std::string a_target =
      first.SignedTarget("docs", "p/n.png", "download", R"(,"expiresIn":3600)");
  const auto a = first.app().Client().Request("GET", a_target + "&width=410&format=png", {}, {});
  ASSERT_EQ(a.status, 200) << a.body;
  const auto b = first.app().Client().Request("GET", a_target + "&width=411&format=png", {}, {});
  ASSERT_EQ(b.status, 200) << b.body;
  ASSERT_EQ(transforms_.load(), 2);
  first.app().app().Shutdown();

  options.share_database_with = &first.app();
  StorageApp second(options);
  const auto again =
      second.app().Client().Request("GET", a_target + "&width=410&format=png", {}, {});
  ASSERT_EQ(again.status, 200) << again.body;
  EXPECT_EQ(again.body, a.body);
  EXPECT_EQ(again.Header("ETag"), a.Header("ETag"));
  EXPECT_EQ(transforms_.load(), 2);  // a hit: nothing transformed
  // A third entry: with the two old ones counted, one of them must go to stay within 1 MB.
  const auto c = second.app().Client().Request("GET", a_target + "&width=412&format=png", {}, {});
  ASSERT_EQ(c.status, 200) << c.body;
  EXPECT_EQ(transforms_.load(), 3);
  std::uint64_t total = 0;
  int entries = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator(second.app().data_dir() / "transform-cache")) {
    total += entry.file_size();
    ++entries;
  }
  EXPECT_LE(total, 1'000'000U);
  EXPECT_EQ(entries, 2);
  // `a` was used last before `c`, so `b` went.
  second.app().Client().Request("GET", a_target + "&width=410&format=png", {}, {});
  EXPECT_EQ(transforms_.load(), 3);
  second.app().Client().Request("GET", a_target + "&width=411&format=png", {}, {});
  EXPECT_EQ(transforms_.load(), 4);
}

INSTANTIATE_TEST_SUITE_P(Providers, TransformTest, ::testing::Values("local", "bytea"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace cairn::test
