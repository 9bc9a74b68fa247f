// Messages between the nodes that share one database: PostgreSQL LISTEN/NOTIFY (realtime record
// changes reach every node, D53). SQLite is one process, so it has none
// (Database::notifications() is null).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "common/result.hpp"

namespace cairn::db {

class NotificationChannel {
 public:
  virtual ~NotificationChannel() = default;

  // Sends `payload` to every listener of `channel`, this node's included, once its transaction
  // commits; listeners get payloads in commit order. A payload of any size: past NOTIFY's limit
  // (db/limits.hpp kMaxNotifyPayloadBytes) it travels by reference to a row kept for
  // kNotificationRetentionSeconds.
  virtual Status Send(std::string_view channel, std::string_view payload) = 0;

  struct Handlers {
    std::function<void(std::string payload)> on_message;
    // The connection was lost and is back: messages sent meanwhile were missed.
    std::function<void()> on_reconnected;
  };
  // Listens on a connection of its own, on a thread of its own, until the returned object is
  // destroyed; a lost connection is opened again (every second) and `on_reconnected` called.
  class Listening {
   public:
    virtual ~Listening() = default;
  };
  virtual Result<std::unique_ptr<Listening>> Listen(std::string channel, Handlers handlers) = 0;
};

}  // namespace cairn::db
