// Messages as they go on the wire. A dispatch round's messages for one group of subscribers are
// framed once per transport and the same bytes are written to every member's socket: fan-out to
// N subscribers costs N writes of shared bytes, not N copies and N framings.
#pragma once

#include <array>
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace cairn::realtime {

enum class Transport { kWebSocket, kEventStream };

// One or more messages framed for one transport, back to back.
struct Frames {
  std::string bytes;
  std::size_t messages = 0;
};
using SharedFrames = std::shared_ptr<const Frames>;

// `message` framed for `transport`, appended to `out`: a final unmasked text frame (RFC 6455
// 5.2, no extension negotiated) or an event `data: <message>` (the messages are compact JSON,
// one line each).
void AppendFrame(Transport transport, std::string_view message, std::string& out);
SharedFrames FrameAll(Transport transport, const std::vector<std::string>& messages);
SharedFrames FrameOne(Transport transport, std::string_view message);

// Whether a subscriber whose send queue holds `queued_messages` (`queued_bytes`) has fallen too
// far behind to take `incoming` (kMaxQueuedMessages, kMaxQueuedBytes). A round goes whole into
// an empty queue, however large (a batch of 1,000 records, or many writes within one dispatch
// window): its frames are shared, so it costs the connection a pointer. Only a subscriber still
// holding earlier messages has fallen behind.
bool FallenBehind(std::size_t queued_messages, std::size_t queued_bytes, const Frames& incoming);

// The same messages framed for each transport on first use.
class FramesByTransport {
 public:
  explicit FramesByTransport(const std::vector<std::string>& messages) : messages_(messages) {}
  const SharedFrames& For(Transport transport);

 private:
  const std::vector<std::string>& messages_;
  std::array<SharedFrames, 2> framed_;
};

}  // namespace cairn::realtime
