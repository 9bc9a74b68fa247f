// NotificationChannel over PostgreSQL LISTEN/NOTIFY (db/notification_channel.hpp). Sends go
// through the pool; each listener has a connection and a thread of its own.
#pragma once

#include <memory>
#include <string>

#include "db/database.hpp"

namespace cairn::db::postgres {

// `database` sends (its pool) and reads stored payloads; `url` and `options` open listeners.
// `_cairn_notifications` (payloads past NOTIFY's limit) is created when first needed.
std::unique_ptr<NotificationChannel> MakeNotificationChannel(Database& database, std::string url,
                                                             const PostgresOptions& options);

}  // namespace cairn::db::postgres
