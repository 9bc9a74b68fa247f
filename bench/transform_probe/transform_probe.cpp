// cairn_transform_probe: the in-process side of bench/run's image transform workloads.
//
//   cairn_transform_probe source WIDTH HEIGHT jpeg|png OUT
//       writes a synthetic source (random pixels, so it neither compresses nor decodes
//       unrealistically fast) of WIDTH x HEIGHT to OUT (transform::SampleImage).
//   cairn_transform_probe time SOURCE.jpg COUNT
//       runs COUNT transforms of SOURCE with the parameters of the `transform-miss` workload
//       (width 300 + i mod 200, height 1000 + i / 200, fit inside, format webp: the same values
//       bench/wrk/report.lua puts in `{w}` and `{h}`) through transform::TransformImage, the call
//       cairn makes for a cache miss, and prints
//       `PROBE_RESULT count=N median_us=… mean_us=… p99_us=…`.
//
// Only the libvips call is timed: no HTTP, no reading of the source from storage, no detection of
// its type, no cache write. What cairn adds on top of it is what the bench measures.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "transform/image.hpp"
#include "transform/params.hpp"

namespace {

using cairn::transform::Output;

int Fail(std::string_view message) {
  std::fprintf(stderr, "cairn_transform_probe: %.*s\n", static_cast<int>(message.size()),
               message.data());
  return 1;
}

int Source(int width, int height, std::string_view type, const char* out_path) {
  const Output output = type == "png" ? Output::kPng : Output::kJpeg;
  auto bytes = cairn::transform::SampleImage(width, height, output, /*noise=*/true);
  if (!bytes) return Fail(bytes.error().detail);
  std::ofstream out(out_path, std::ios::binary);
  out.write(bytes->data(), static_cast<std::streamsize>(bytes->size()));
  return out ? 0 : Fail("cannot write the source");
}

int Time(const char* source_path, int count) {
  std::ifstream in(source_path, std::ios::binary);
  const std::string source{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  if (source.empty()) return Fail("cannot read the source");
  if (auto started = cairn::transform::InitImageLibrary(); !started) {
    return Fail(started.error().detail);
  }
  std::vector<double> micros;
  micros.reserve(static_cast<std::size_t>(count));
  const cairn::transform::ImageLimits limits;
  for (int i = 0; i < count; ++i) {
    cairn::transform::Params params;
    params.width = 300 + (i % 200);
    params.height = 1000 + (i / 200);
    params.fit = cairn::transform::Fit::kInside;
    params.format = cairn::transform::Format::kWebp;
    const auto start = std::chrono::steady_clock::now();
    auto encoded = cairn::transform::TransformImage(source, cairn::transform::SourceType::kJpeg,
                                                    params, Output::kWebp, limits);
    const auto stop = std::chrono::steady_clock::now();
    if (!encoded) return Fail(encoded.error().detail);
    micros.push_back(std::chrono::duration<double, std::micro>(stop - start).count());
  }
  double total = 0;
  for (const double m : micros) total += m;
  std::sort(micros.begin(), micros.end());
  const auto at = [&micros](double q) {
    return micros[std::min(micros.size() - 1, static_cast<std::size_t>(q * micros.size()))];
  };
  std::printf("PROBE_RESULT count=%d median_us=%.0f mean_us=%.0f p99_us=%.0f\n", count, at(0.5),
              total / static_cast<double>(micros.size()), at(0.99));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::span<char*> args(argv, static_cast<std::size_t>(argc));
  const std::string_view mode = argc > 1 ? args[1] : "";
  if (mode == "source" && argc == 6) {
    return Source(std::stoi(args[2]), std::stoi(args[3]), args[4], args[5]);
  }
  if (mode == "time" && argc == 4) return Time(args[2], std::stoi(args[3]));
  return Fail(
      "usage: cairn_transform_probe source WIDTH HEIGHT jpeg|png OUT | time SOURCE.jpg COUNT");
}
