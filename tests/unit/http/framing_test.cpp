#include "http/framing.hpp"

#include <gtest/gtest.h>

namespace cairn::http {
namespace {

namespace bhttp = boost::beast::http;

BeastRequest RequestWith(std::initializer_list<std::pair<const char*, const char*>> fields,
                         unsigned version = 11) {
  BeastRequest request{bhttp::verb::post, "/x", version};
  for (const auto& [name, value] : fields) request.insert(name, value);
  return request;
}

TEST(Framing, PlainRequestsPass) {
  EXPECT_FALSE(CheckFraming(RequestWith({{"Host", "example.com"}})));
  EXPECT_FALSE(CheckFraming(RequestWith({{"Host", "example.com:8080"}, {"Content-Length", "3"}})));
  EXPECT_FALSE(CheckFraming(RequestWith({{"Host", "[::1]"}, {"Transfer-Encoding", "chunked"}})));
  EXPECT_FALSE(CheckFraming(RequestWith({{"Host", "x"}, {"Transfer-Encoding", " CHUNKED "}})));
  EXPECT_FALSE(CheckFraming(RequestWith({}, 10)));  // HTTP/1.0 has no Host requirement
}

TEST(Framing, TransferEncodingOtherThanExactlyChunkedIsRefused) {
  for (const char* value :
       {"gzip", "identity", "chunked, chunked", "gzip, chunked", "chunked;x", "", "chunkedx"}) {
    EXPECT_TRUE(CheckFraming(RequestWith({{"Host", "x"}, {"Transfer-Encoding", value}}))) << value;
  }
  EXPECT_TRUE(CheckFraming(RequestWith(
      {{"Host", "x"}, {"Transfer-Encoding", "chunked"}, {"Transfer-Encoding", "chunked"}})));
  EXPECT_TRUE(CheckFraming(
      RequestWith({{"Host", "x"}, {"Transfer-Encoding", "chunked"}, {"Content-Length", "4"}})));
  EXPECT_TRUE(CheckFraming(RequestWith({{"Transfer-Encoding", "chunked"}}, 10)));
}

TEST(Framing, Http11NeedsExactlyOneValidHost) {
  EXPECT_TRUE(CheckFraming(RequestWith({})));
  EXPECT_TRUE(CheckFraming(RequestWith({{"Host", "a"}, {"Host", "a"}})));
  for (const char* host : {"", "a b", "user@host", "host:port", "[::1", "a/b"}) {
    EXPECT_TRUE(CheckFraming(RequestWith({{"Host", host}}))) << host;
  }
}

}  // namespace
}  // namespace cairn::http
