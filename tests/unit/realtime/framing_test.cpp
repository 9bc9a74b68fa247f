#include "realtime/framing.hpp"

#include <gtest/gtest.h>

#include "realtime/limits.hpp"

namespace cairn::realtime {
namespace {

std::string Bytes(std::initializer_list<int> values) {
  std::string out;
  for (int value : values) out.push_back(static_cast<char>(value));
  return out;
}

TEST(Framing, WebSocketHeadersFollowThePayloadLength) {
  // RFC 6455 5.2: 7 bits up to 125, then 126 + 16 bits, then 127 + 64 bits; FIN + text.
  const struct {
    std::size_t size;
    std::string header;
  } cases[] = {
      {0, Bytes({0x81, 0})},
      {125, Bytes({0x81, 125})},
      {126, Bytes({0x81, 126, 0, 126})},
      {65535, Bytes({0x81, 126, 0xff, 0xff})},
      {65536, Bytes({0x81, 127, 0, 0, 0, 0, 0, 1, 0, 0})},
  };
  for (const auto& test : cases) {
    const std::string message(test.size, 'x');
    std::string out;
    AppendFrame(Transport::kWebSocket, message, out);
    EXPECT_EQ(out, test.header + message) << test.size;
  }
}

TEST(Framing, EventStreamMessagesAreOneDataLineEach) {
  std::string out;
  AppendFrame(Transport::kEventStream, R"({"type":"pong"})", out);
  EXPECT_EQ(out, "data: {\"type\":\"pong\"}\n\n");
}

TEST(Framing, ARoundIsFramedOncePerTransportAndShared) {
  const std::vector<std::string> messages{"a", std::string(200, 'b')};
  FramesByTransport framed(messages);
  const SharedFrames& websocket = framed.For(Transport::kWebSocket);
  EXPECT_EQ(websocket->messages, 2u);
  EXPECT_EQ(websocket->bytes,
            Bytes({0x81, 1}) + "a" + Bytes({0x81, 126, 0, 200}) + std::string(200, 'b'));
  // Asked again: the same bytes, not a copy.
  EXPECT_EQ(framed.For(Transport::kWebSocket).get(), websocket.get());
  const SharedFrames& events = framed.For(Transport::kEventStream);
  EXPECT_EQ(events->messages, 2u);
  EXPECT_EQ(events->bytes, "data: a\n\ndata: " + std::string(200, 'b') + "\n\n");

  const SharedFrames one = FrameOne(Transport::kWebSocket, "ping");
  EXPECT_EQ(one->messages, 1u);
  EXPECT_EQ(one->bytes, Bytes({0x81, 4}) + "ping");
}

TEST(Framing, OnlyASubscriberHoldingEarlierMessagesFallsBehind) {
  Frames round;
  round.messages = kMaxQueuedMessages;  // a whole batch of records, say
  round.bytes.assign(kMaxQueuedBytes + 1, 'x');
  EXPECT_FALSE(FallenBehind(0, 0, round));  // an empty queue takes any round
  Frames one;
  one.messages = 1;
  one.bytes = "x";
  EXPECT_FALSE(FallenBehind(kMaxQueuedMessages - 1, 100, one));
  EXPECT_TRUE(FallenBehind(kMaxQueuedMessages, 100, one));
  EXPECT_TRUE(FallenBehind(1, kMaxQueuedBytes, one));
  EXPECT_TRUE(FallenBehind(1, 1, round));
}

}  // namespace
}  // namespace cairn::realtime
