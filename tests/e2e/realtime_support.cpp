#include "e2e/realtime_support.hpp"

#include <stdexcept>

namespace cairn::test {
namespace {

std::string HeadersJson(const std::map<std::string, std::string>& headers) {
  boost::json::object object;
  for (const auto& [name, value] : headers) object[name] = value;
  return boost::json::serialize(object);
}

}  // namespace

std::map<std::string, std::string> Bearer(const std::string& token) {
  return {{"Authorization", "Bearer " + token}};
}

WsClient::WsClient(std::uint16_t port, const std::string& target,
                   const std::map<std::string, std::string>& headers, int count)
    : process_("ws_client.mjs", {"ws://127.0.0.1:" + std::to_string(port) + target,
                                 HeadersJson(headers), std::to_string(count)}) {}

WsClient::WsClient(const std::string& script, const std::vector<std::string>& args)
    : process_(script, args) {}

std::unique_ptr<WsClient> WsClient::EventStream(std::uint16_t port, const std::string& target,
                                                const std::map<std::string, std::string>& headers) {
  return std::unique_ptr<WsClient>(
      new WsClient("sse_client.mjs",
                   {"http://127.0.0.1:" + std::to_string(port) + target, HeadersJson(headers)}));
}

boost::json::object WsClient::Next(int timeout_ms) {
  const std::string line = process_.ReadLine(timeout_ms);
  boost::json::value value = boost::json::parse(line);
  if (!value.is_object()) throw std::runtime_error("ws client printed " + line);
  return std::move(value.get_object());
}

void WsClient::ExpectSubscribed(const std::string& table) {
  const boost::json::object open = Next();
  if (open.at("event") != "open") {
    throw std::runtime_error("expected open, got " + boost::json::serialize(open));
  }
  const boost::json::object message = NextMessage();
  if (message.at("type") != "subscribed" || message.at("table") != table.c_str()) {
    throw std::runtime_error("expected subscribed, got " + boost::json::serialize(message));
  }
}

boost::json::object WsClient::NextMessage(int timeout_ms) {
  while (true) {
    const boost::json::object event = Next(timeout_ms);
    if (event.at("event") != "message") {
      throw std::runtime_error("expected a message, got " + boost::json::serialize(event));
    }
    boost::json::value data = boost::json::parse(event.at("data").as_string());
    if (data.at("type") == "heartbeat") continue;
    return std::move(data.as_object());
  }
}

boost::json::object WsClient::NextClose(int timeout_ms) {
  while (true) {
    boost::json::object event = Next(timeout_ms);
    if (event.at("event") == "message") continue;
    if (event.at("event") != "close") {
      throw std::runtime_error("expected close, got " + boost::json::serialize(event));
    }
    return event;
  }
}

}  // namespace cairn::test
