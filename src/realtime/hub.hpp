// The realtime hub (D53): receives committed record changes (records::ChangeSink), reads a
// round's changed records once per group of subscribers that see them alike (role, filter,
// fields) through RecordService's read path, and hands the messages to the subscribers'
// connections. One dispatcher thread does the reads, in the order the changes committed, so
// neither a network thread nor the writing request waits for them. The same thread checks every
// subscription's session every kRevalidateInterval.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "common/result.hpp"
#include "db/notification_channel.hpp"
#include "realtime/subscription.hpp"
#include "records/change_sink.hpp"
#include "records/record_service.hpp"

namespace cairn::realtime {

class Hub final : public records::ChangeSink {
 public:
  // The role of the live session behind `token` now, or nothing when it was revoked, expired or
  // its user banned; an error when that cannot be told now (the database is down), which keeps
  // the subscription. Called on the hub's thread (it may read the database).
  using SessionRole = std::function<Result<std::optional<std::string>>(std::string_view token)>;

  explicit Hub(SessionRole session_role);
  ~Hub() override;
  Hub(const Hub&) = delete;
  Hub& operator=(const Hub&) = delete;

  // The records service and config changes are read through; set before the first subscription
  // and again whenever the served schema changes. `owner` keeps both alive (the served schema
  // snapshot): a change being dispatched holds it, so a swap never frees them under a read.
  void SetRecords(std::shared_ptr<const void> owner, records::RecordService* records,
                  const config::AppConfig* config);

  // With several nodes on one database (PostgreSQL): changes go out through `channel` and come
  // back from it, this node's too, so every node sends them in the database's commit order. A
  // lost listening connection is opened again and the subscribers of every table get `resync`.
  // Without a channel (SQLite) changes go straight to the dispatcher.
  Status UseChannel(db::NotificationChannel& channel);

  // A slot for one more subscription of `user_id`, or null when it has kMaxSubscriptionsPerUser.
  std::unique_ptr<SubscriptionSlot> Reserve(const std::string& user_id);

  void Committed(std::vector<records::RecordChange> changes) override;

  // Closes every subscription with 1001 and waits up to kShutdownGrace for them to end.
  // Subscriptions that arrive later are closed at once.
  void Shutdown();

 private:
  friend class Subscription;
  friend class SubscriptionSlot;
  void Release(const std::string& user_id);
  bool Register(Subscription* subscription);
  void Unregister(Subscription* subscription);

  void Loop();
  void SendOut(std::deque<records::RecordChange> changes);
  void Received(std::string_view payload);
  // With mutex_ held. Queues `change` for the dispatcher (dropped when nobody on this node
  // listens to its table); true when the dispatcher had nothing to dispatch and must be woken.
  bool Enqueue(records::RecordChange change);
  // One round: every change of `batch`, in order, to the subscribers of its table.
  void Dispatch(const std::deque<records::RecordChange>& batch);
  // The message `change` gives subscribers seeing it as `subscriber` does, or nothing when they
  // are not told (not visible to them). `read`: the round's records as they read them;
  // `matched`: whether the round's deleted rows match their filter (null: could not be told).
  static std::optional<std::string> Render(
      records::RecordService& service, const config::Table& table,
      const records::RecordChange& change, const Subscription& subscriber,
      const records::RecordService::SubscriberRecords& read,
      const records::RecordService::SubscriberMatches* matched);
  void Resync(const std::set<std::string>& tables);
  void Revalidate();
  std::vector<std::shared_ptr<Subscription>> SubscribersOf(const std::string& table) const;

  SessionRole session_role_;
  std::shared_ptr<const void> records_owner_;  // guarded by mutex_
  records::RecordService* records_ = nullptr;  // guarded by mutex_
  const config::AppConfig* config_ = nullptr;  // guarded by mutex_

  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable emptied_;
  std::unordered_map<std::string, int> per_user_;
  std::unordered_map<std::string, std::unordered_set<Subscription*>> by_table_;
  std::size_t live_ = 0;
  std::deque<records::RecordChange> pending_;   // to dispatch here
  std::deque<records::RecordChange> outgoing_;  // to send through the channel
  db::NotificationChannel* channel_ = nullptr;
  std::unique_ptr<db::NotificationChannel::Listening> listening_;
  std::set<std::string> overflowed_;  // tables whose changes were dropped: resync
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace cairn::realtime
