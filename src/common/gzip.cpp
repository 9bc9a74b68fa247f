#include "common/gzip.hpp"

#include <zlib.h>

#include <stdexcept>

#include <boost/algorithm/string/predicate.hpp>

#include "common/text.hpp"

namespace cairn::gzip {
namespace {

constexpr int kGzipWindowBits = 15 + 16;  // 2^15 window, gzip header and trailer
constexpr int kMemoryLevel = 9;

// The q value of one Accept-Encoding member's parameters (`;q=0.5`); 1 when absent.
bool QualityIsZero(std::string_view parameters) {
  while (!parameters.empty()) {
    const std::size_t semicolon = parameters.find(';');
    std::string_view parameter = text::TrimOws(parameters.substr(0, semicolon));
    parameters =
        semicolon == std::string_view::npos ? std::string_view() : parameters.substr(semicolon + 1);
    if (parameter.size() < 2 || (parameter[0] != 'q' && parameter[0] != 'Q') ||
        parameter[1] != '=') {
      continue;
    }
    parameter.remove_prefix(2);
    // q=0, q=0.0, q=0.00, q=0.000 refuse; any other value accepts.
    if (parameter.empty() || parameter.front() != '0') return false;
    return parameter.find_first_not_of("0.", 0) == std::string_view::npos;
  }
  return false;
}

}  // namespace

std::string Compress(std::string_view data) {
  z_stream stream{};
  if (deflateInit2(&stream, Z_BEST_COMPRESSION, Z_DEFLATED, kGzipWindowBits, kMemoryLevel,
                   Z_DEFAULT_STRATEGY) != Z_OK) {
    throw std::runtime_error("deflateInit2 failed");
  }
  std::string out(deflateBound(&stream, data.size()), '\0');
  // zlib's API is not const-correct; deflate only reads the input.
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  stream.avail_in = static_cast<uInt>(data.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  const int status = deflate(&stream, Z_FINISH);
  deflateEnd(&stream);
  if (status != Z_STREAM_END) throw std::runtime_error("deflate did not finish");
  out.resize(stream.total_out);
  return out;
}

bool Accepted(std::string_view accept_encoding) {
  while (!accept_encoding.empty()) {
    const std::size_t comma = accept_encoding.find(',');
    const std::string_view member = accept_encoding.substr(0, comma);
    accept_encoding =
        comma == std::string_view::npos ? std::string_view() : accept_encoding.substr(comma + 1);
    const std::size_t semicolon = member.find(';');
    const std::string_view coding = text::TrimOws(member.substr(0, semicolon));
    if (!boost::algorithm::iequals(coding, "gzip") &&
        !boost::algorithm::iequals(coding, "x-gzip")) {
      continue;
    }
    return semicolon == std::string_view::npos || !QualityIsZero(member.substr(semicolon + 1));
  }
  return false;
}

}  // namespace cairn::gzip
