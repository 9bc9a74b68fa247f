// Realtime subscriptions (D53) seen by a real WebSocket client: the npm package ws run by
// tests/node/ws_client.mjs, one process per WsClient (which may hold several sockets).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <boost/json.hpp>

#include "support/node_process.hpp"

namespace cairn::test {

class WsClient {
 public:
  // Opens `count` sockets to ws://127.0.0.1:<port><target> with these request headers.
  WsClient(std::uint16_t port, const std::string& target,
           const std::map<std::string, std::string>& headers, int count = 1);
  // The same subscription as Server-Sent Events (tests/node/sse_client.mjs: fetch with
  // Accept: text/event-stream); `open` carries the status and content type, the server's end
  // of the stream is `end`.
  static std::unique_ptr<WsClient> EventStream(std::uint16_t port, const std::string& target,
                                               const std::map<std::string, std::string>& headers);

  // The next event of any socket ({i, event, ...}); throws after `timeout_ms`.
  boost::json::object Next(int timeout_ms = 15'000);
  // The next event, which must be `open` followed by the `subscribed` message; throws otherwise.
  void ExpectSubscribed(const std::string& table);
  // The next message's JSON, skipping heartbeats; throws on any other event.
  boost::json::object NextMessage(int timeout_ms = 15'000);
  // Reads past messages to the close: {code, reason}; throws on another event or a timeout.
  boost::json::object NextClose(int timeout_ms = 15'000);
  void Command(const std::string& line) { process_.WriteLine(line); }

 private:
  WsClient(const std::string& script, const std::vector<std::string>& args);
  NodeProcess process_;
};

// Headers authenticating with a Bearer token.
std::map<std::string, std::string> Bearer(const std::string& token);

}  // namespace cairn::test
