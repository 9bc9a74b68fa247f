// One live subscription (D53): who subscribed to which table with which filter and fields, and
// the way to its connection. Connections (WebSocket, SSE) derive from it; the Hub holds weak
// references and calls Deliver/Close from its own thread, so both only queue work onto the
// connection's network thread.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "config/model.hpp"
#include "realtime/framing.hpp"

namespace cairn::realtime {

class Hub;

// What the subscribe request asked for, checked by the route before it is accepted.
struct SubscriptionSpec {
  const config::Table* table = nullptr;
  std::string user_id;
  std::string role;
  std::string session_token;          // re-resolved every kRevalidateInterval (never logged)
  std::optional<std::string> filter;  // the list filter language (JSON text)
  std::optional<std::string> fields;  // comma-separated
};

// A user's slot among its kMaxSubscriptionsPerUser; given back when destroyed.
class SubscriptionSlot {
 public:
  SubscriptionSlot(Hub& hub, std::string user_id) : hub_(hub), user_id_(std::move(user_id)) {}
  ~SubscriptionSlot();
  SubscriptionSlot(const SubscriptionSlot&) = delete;
  SubscriptionSlot& operator=(const SubscriptionSlot&) = delete;

 private:
  Hub& hub_;
  std::string user_id_;
};

class Subscription : public std::enable_shared_from_this<Subscription> {
 public:
  Subscription(SubscriptionSpec spec, std::unique_ptr<SubscriptionSlot> slot);
  virtual ~Subscription();
  Subscription(const Subscription&) = delete;
  Subscription& operator=(const Subscription&) = delete;

  const SubscriptionSpec& spec() const { return spec_; }
  // Subscribers with the same key see the same messages: the record is read once per key.
  const std::string& group_key() const { return group_key_; }
  // The names of `fields=`, empty when absent.
  const std::vector<std::string>& field_names() const { return field_names_; }

  // How its messages are framed (framing.hpp).
  virtual Transport transport() const = 0;
  // Both may be called from any thread; they must not block. `frames` is framed for
  // transport() and shared with the other subscribers that get the same messages; the hub hands
  // each subscriber all its messages of one dispatch round at once.
  virtual void Deliver(SharedFrames frames) = 0;
  // Many subscribers' messages at once. `batch` holds subscribers on this one's network thread
  // (same thread() as this): one hop onto that thread for all of them, rather than one each.
  using Batch = std::vector<std::pair<std::shared_ptr<Subscription>, SharedFrames>>;
  virtual void DeliverAll(Batch batch) = 0;
  // Which network thread the connection lives on (an identity only; null before it is live).
  virtual const void* thread() const = 0;
  virtual void Close(std::uint16_t code, std::string reason) = 0;

 protected:
  // Called by the connection once it can take messages; it stops with the destructor.
  void GoLive(Hub& hub);

 private:
  SubscriptionSpec spec_;
  std::unique_ptr<SubscriptionSlot> slot_;
  std::string group_key_;
  std::vector<std::string> field_names_;
  Hub* hub_ = nullptr;  // set once live
};

}  // namespace cairn::realtime
