#include "realtime/framing.hpp"

#include <cstdint>

#include "realtime/limits.hpp"

namespace cairn::realtime {
namespace {

constexpr std::string_view kEventStart = "data: ";
constexpr std::string_view kEventEnd = "\n\n";

void AppendWebSocketHeader(std::size_t size, std::string& out) {
  out.push_back(static_cast<char>(0x81));  // FIN, text
  if (size < 126) {
    out.push_back(static_cast<char>(size));
  } else if (size <= 0xffff) {
    out.push_back(static_cast<char>(126));
    out.push_back(static_cast<char>(size >> 8));
    out.push_back(static_cast<char>(size & 0xff));
  } else {
    out.push_back(static_cast<char>(127));
    for (int shift = 56; shift >= 0; shift -= 8) {
      out.push_back(static_cast<char>((static_cast<std::uint64_t>(size) >> shift) & 0xff));
    }
  }
}

constexpr std::size_t kMaxFrameOverhead = 10;  // the longest WebSocket header; SSE's is 8

}  // namespace

void AppendFrame(Transport transport, std::string_view message, std::string& out) {
  if (transport == Transport::kWebSocket) {
    AppendWebSocketHeader(message.size(), out);
    out += message;
  } else {
    out += kEventStart;
    out += message;
    out += kEventEnd;
  }
}

SharedFrames FrameAll(Transport transport, const std::vector<std::string>& messages) {
  auto frames = std::make_shared<Frames>();
  std::size_t size = 0;
  for (const std::string& message : messages) size += message.size() + kMaxFrameOverhead;
  frames->bytes.reserve(size);
  for (const std::string& message : messages) AppendFrame(transport, message, frames->bytes);
  frames->messages = messages.size();
  return frames;
}

SharedFrames FrameOne(Transport transport, std::string_view message) {
  auto frames = std::make_shared<Frames>();
  frames->bytes.reserve(message.size() + kMaxFrameOverhead);
  AppendFrame(transport, message, frames->bytes);
  frames->messages = 1;
  return frames;
}

bool FallenBehind(std::size_t queued_messages, std::size_t queued_bytes, const Frames& incoming) {
  if (queued_messages == 0) return false;
  return queued_messages + incoming.messages > kMaxQueuedMessages ||
         queued_bytes + incoming.bytes.size() > kMaxQueuedBytes;
}

const SharedFrames& FramesByTransport::For(Transport transport) {
  SharedFrames& framed = framed_[static_cast<std::size_t>(transport)];
  if (!framed) framed = FrameAll(transport, messages_);
  return framed;
}

}  // namespace cairn::realtime
