#include "db/postgres/pg_notification_channel.hpp"

#include <poll.h>

#include <atomic>
#include <mutex>
#include <thread>

#include "common/crypto.hpp"
#include "common/log.hpp"
#include "db/limits.hpp"
#include "db/log_throttle.hpp"
#include "db/postgres/pg_connection.hpp"

namespace cairn::db::postgres {
namespace {

// A stored payload travels as this prefix and its row id; plain payloads never start with it
// (the realtime hub sends JSON objects).
constexpr std::string_view kReferencePrefix = "@ref:";

class PgListening final : public NotificationChannel::Listening {
 public:
  PgListening(Database& database, std::string url, PostgresOptions options, std::string channel,
              NotificationChannel::Handlers handlers)
      : database_(database),
        url_(std::move(url)),
        options_(options),
        channel_(std::move(channel)),
        handlers_(std::move(handlers)) {}

  // Connects once before returning, so a bad setup fails at startup.
  Status Start() {
    CAIRN_TRY(Connect());
    thread_ = std::thread([this] { Loop(); });
    return {};
  }

  ~PgListening() override {
    stopping_ = true;
    if (thread_.joinable()) thread_.join();
  }

 private:
  Status Connect() {
    CAIRN_ASSIGN_OR_RETURN(connection_, PgConnection::Connect(url_, options_));
    return connection_->ExecuteScript("LISTEN " + Identifier(channel_).quoted());
  }

  void Loop() {
    while (!stopping_) {
      if (!connection_) {
        if (auto status = Connect(); !status.ok()) {
          connection_.reset();
          log_.Warn("postgres listener: " + status.error().detail);
          Sleep(kListenReconnectInterval);
          continue;
        }
        log::Info("postgres listener: connected again to LISTEN " + channel_);
        handlers_.on_reconnected();
      }
      PGconn* conn = connection_->native();
      pollfd descriptor{PQsocket(conn), POLLIN, 0};
      const int ready = poll(&descriptor, 1, static_cast<int>(kListenPollInterval.count()));
      if (ready < 0) continue;  // EINTR
      if (ready > 0 && PQconsumeInput(conn) == 0) {
        log::Warn("postgres listener: connection lost: " + std::string(PQerrorMessage(conn)));
        connection_.reset();
        continue;
      }
      while (PGnotify* notify = PQnotifies(conn)) {
        std::string payload = notify->extra;
        PQfreemem(notify);
        Deliver(std::move(payload));
      }
    }
  }

  void Deliver(std::string payload) {
    if (!std::string_view(payload).starts_with(kReferencePrefix)) {
      handlers_.on_message(std::move(payload));
      return;
    }
    std::int64_t id = 0;
    try {
      id = std::stoll(payload.substr(kReferencePrefix.size()));
    } catch (const std::exception&) {
      return;  // not ours
    }
    std::string stored;
    auto status = database_.Transaction(Access::kRead, [&](Connection& connection) -> Status {
      CAIRN_TRY(connection.Execute(R"(SELECT "payload" FROM "_cairn_notifications" WHERE "id" = ?)",
                                   {id}, [&](const Row& row) { stored = row.GetText(0); }));
      return {};
    });
    if (!status.ok() || stored.empty()) {
      // Lost like a notification during a disconnection: tell the listener so.
      log::Warn("postgres listener: stored notification " + std::to_string(id) + " unreadable");
      handlers_.on_reconnected();
      return;
    }
    handlers_.on_message(std::move(stored));
  }

  void Sleep(std::chrono::milliseconds total) {
    for (auto slept = std::chrono::milliseconds(0); slept < total && !stopping_;
         slept += kListenPollInterval) {
      std::this_thread::sleep_for(kListenPollInterval);
    }
  }

  Database& database_;
  const std::string url_;
  const PostgresOptions options_;
  const std::string channel_;
  NotificationChannel::Handlers handlers_;
  std::unique_ptr<PgConnection> connection_;  // the listener thread's once started
  std::atomic<bool> stopping_{false};
  LogThrottle log_{kReconnectLogInterval};
  std::thread thread_;
};

class PgNotificationChannel final : public NotificationChannel {
 public:
  PgNotificationChannel(Database& database, std::string url, PostgresOptions options)
      : database_(database), url_(std::move(url)), options_(options) {}

  Status Send(std::string_view name, std::string_view payload) override {
    CAIRN_ASSIGN_OR_RETURN(const std::string channel, Scoped(name));
    Status status = database_.Transaction(Access::kWrite, [&](Connection& connection) -> Status {
      if (payload.size() <= kMaxNotifyPayloadBytes) {
        CAIRN_TRY(connection.Execute("SELECT pg_notify(?, ?)",
                                     {std::string(channel), std::string(payload)}));
        return {};
      }
      if (!table_ready_) {
        CAIRN_TRY(
            connection.ExecuteScript(R"(CREATE TABLE IF NOT EXISTS "_cairn_notifications" ()"
                                     R"("id" BIGSERIAL PRIMARY KEY, "payload" TEXT NOT NULL, )"
                                     R"("created_at" TIMESTAMPTZ NOT NULL DEFAULT now()))"));
      }
      std::int64_t id = 0;
      CAIRN_TRY(connection.Execute(
          R"(INSERT INTO "_cairn_notifications" ("payload") VALUES (?) RETURNING "id")",
          {std::string(payload)}, [&](const Row& row) { id = row.GetInt64(0); }));
      CAIRN_TRY(connection.Execute(
          R"(DELETE FROM "_cairn_notifications" WHERE "created_at" < now() - make_interval(secs => ?))",
          {static_cast<std::int64_t>(kNotificationRetentionSeconds)}));
      CAIRN_TRY(connection.Execute(
          "SELECT pg_notify(?, ?)",
          {std::string(channel), std::string(kReferencePrefix) + std::to_string(id)}));
      return {};
    });
    if (status.ok() && payload.size() > kMaxNotifyPayloadBytes) table_ready_ = true;
    return status;
  }

  Result<std::unique_ptr<Listening>> Listen(std::string name, Handlers handlers) override {
    CAIRN_ASSIGN_OR_RETURN(std::string channel, Scoped(name));
    auto listening = std::make_unique<PgListening>(database_, url_, options_, std::move(channel),
                                                   std::move(handlers));
    CAIRN_TRY(listening->Start());
    return std::unique_ptr<Listening>(std::move(listening));
  }

 private:
  // Channels belong to a database, tables to a schema: apps on other schemas of the same database
  // (test runs, several apps on one server) must not hear each other, so the channel's name
  // carries the schema's (hashed: channel names are identifiers of at most 63 bytes).
  Result<std::string> Scoped(std::string_view name) {
    std::lock_guard lock(mutex_);
    if (scope_.empty()) {
      std::string schema;
      CAIRN_TRY(database_.Transaction(Access::kRead, [&](Connection& connection) -> Status {
        CAIRN_TRY(connection.Execute("SELECT current_schema()", {},
                                     [&](const Row& row) { schema = row.GetText(0); }));
        return {};
      }));
      scope_ = crypto::Sha256Hex(schema).substr(0, 16);
    }
    return std::string(name) + "_" + scope_;
  }

  Database& database_;
  const std::string url_;
  const PostgresOptions options_;
  std::mutex mutex_;
  std::string scope_;  // guarded by mutex_
  // `_cairn_notifications` is created with the first payload that needs it.
  std::atomic<bool> table_ready_{false};
};

}  // namespace

std::unique_ptr<NotificationChannel> MakeNotificationChannel(Database& database, std::string url,
                                                             const PostgresOptions& options) {
  return std::make_unique<PgNotificationChannel>(database, std::move(url), options);
}

}  // namespace cairn::db::postgres
