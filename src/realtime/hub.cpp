#include "realtime/hub.hpp"

#include <algorithm>
#include <chrono>
#include <map>

#include "common/log.hpp"
#include "realtime/change_codec.hpp"
#include "realtime/limits.hpp"
#include "realtime/messages.hpp"

namespace cairn::realtime {

Hub::Hub(SessionRole session_role) : session_role_(std::move(session_role)) {
  thread_ = std::thread([this] { Loop(); });
}

void Hub::SetRecords(std::shared_ptr<const void> owner, records::RecordService* records,
                     const config::AppConfig* config) {
  std::lock_guard lock(mutex_);
  records_owner_ = std::move(owner);
  records_ = records;
  config_ = config;
}

Hub::~Hub() {
  Shutdown();
}

std::unique_ptr<SubscriptionSlot> Hub::Reserve(const std::string& user_id) {
  std::lock_guard lock(mutex_);
  int& count = per_user_[user_id];
  if (count >= kMaxSubscriptionsPerUser) return nullptr;
  ++count;
  return std::make_unique<SubscriptionSlot>(*this, user_id);
}

void Hub::Release(const std::string& user_id) {
  std::lock_guard lock(mutex_);
  auto found = per_user_.find(user_id);
  if (found != per_user_.end() && --found->second <= 0) per_user_.erase(found);
}

bool Hub::Register(Subscription* subscription) {
  std::lock_guard lock(mutex_);
  if (stopping_) return false;
  by_table_[subscription->spec().table->name].insert(subscription);
  ++live_;
  return true;
}

void Hub::Unregister(Subscription* subscription) {
  std::lock_guard lock(mutex_);
  auto found = by_table_.find(subscription->spec().table->name);
  if (found == by_table_.end() || found->second.erase(subscription) == 0) return;
  if (found->second.empty()) by_table_.erase(found);
  if (--live_ == 0) emptied_.notify_all();
}

Status Hub::UseChannel(db::NotificationChannel& channel) {
  CAIRN_ASSIGN_OR_RETURN(auto listening,
                         channel.Listen(std::string(kChangeChannel),
                                        {[this](std::string payload) { Received(payload); },
                                         [this] {
                                           std::lock_guard lock(mutex_);
                                           for (const auto& [table, members] : by_table_)
                                             overflowed_.insert(table);
                                           wake_.notify_one();
                                         }}));
  std::lock_guard lock(mutex_);
  channel_ = &channel;
  listening_ = std::move(listening);
  return {};
}

bool Hub::Enqueue(records::RecordChange change) {
  if (by_table_.find(change.table) == by_table_.end()) return false;  // nobody listens here
  const bool idle = pending_.empty() && overflowed_.empty();
  if (pending_.size() >= kMaxPendingChanges) {
    overflowed_.insert(change.table);
  } else {
    pending_.push_back(std::move(change));
  }
  return idle;
}

void Hub::Committed(std::vector<records::RecordChange> changes) {
  // The dispatcher is woken only when it had nothing of the kind to do: otherwise it already
  // waits for the end of that window (a context switch per write saved).
  bool wake = false;
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return;
    for (records::RecordChange& change : changes) {
      if (channel_ == nullptr) {
        wake = Enqueue(std::move(change)) || wake;
      } else if (outgoing_.size() >= kMaxPendingChanges) {
        wake = overflowed_.empty() || wake;
        overflowed_.insert(change.table);  // other nodes cannot be told: this one resyncs
      } else {
        wake = outgoing_.empty() || wake;
        outgoing_.push_back(std::move(change));  // other nodes may have subscribers
      }
    }
  }
  if (wake) wake_.notify_one();
}

void Hub::SendOut(std::deque<records::RecordChange> changes) {
  // One notification per batch of changes, however many: one round trip for the lot.
  std::string payload = EncodeChanges(changes);
  if (auto sent = channel_->Send(kChangeChannel, payload); !sent.ok()) {
    log::Warn("realtime: changes not sent to the other nodes: " + sent.error().detail);
    std::lock_guard lock(mutex_);
    for (const records::RecordChange& change : changes) overflowed_.insert(change.table);
  }
}

void Hub::Received(std::string_view payload) {
  auto changes = DecodeChanges(payload);
  if (!changes) {
    log::Warn("realtime: ignored a notification that is not a change list");
    return;
  }
  bool wake = false;  // as in Committed
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return;
    for (records::RecordChange& change : *changes) wake = Enqueue(std::move(change)) || wake;
  }
  if (wake) wake_.notify_one();
}

std::vector<std::shared_ptr<Subscription>> Hub::SubscribersOf(const std::string& table) const {
  std::vector<std::shared_ptr<Subscription>> out;
  std::lock_guard lock(mutex_);
  auto found = by_table_.find(table);
  if (found == by_table_.end()) return out;
  out.reserve(found->second.size());
  for (Subscription* subscription : found->second) {
    if (auto alive = subscription->weak_from_this().lock()) out.push_back(std::move(alive));
  }
  return out;
}

void Hub::Dispatch(const std::deque<records::RecordChange>& batch) {
  std::shared_ptr<const void> owner;  // keeps `service` and the tables alive through the reads
  records::RecordService* service = nullptr;
  const config::AppConfig* config = nullptr;
  {
    std::lock_guard lock(mutex_);
    owner = records_owner_;
    service = records_;
    config = config_;
  }
  if (service == nullptr || config == nullptr) return;
  // Subscribers that see a change alike (same group key) share one read and one message. The
  // groups of a table are formed once per round, and each group reads the round's records of
  // that table in one go, whatever the number of its changes.
  struct Group {
    std::vector<Subscription*> members;
    std::vector<std::string> messages;  // this round's, in commit order
  };
  struct TableRound {
    const config::Table* table = nullptr;
    std::vector<const records::RecordChange*> changes;  // in commit order
    std::map<std::string, Group> groups;
  };
  std::unordered_map<std::string, TableRound> rounds;
  std::vector<std::shared_ptr<Subscription>> alive;  // the members, alive through the round
  for (const records::RecordChange& change : batch) {
    const config::Table* table = config->FindTable(change.table);
    if (table == nullptr) continue;
    auto [found, fresh] = rounds.try_emplace(change.table);
    TableRound& round = found->second;
    if (fresh) {
      round.table = table;
      for (auto& subscriber : SubscribersOf(change.table)) {
        round.groups[subscriber->group_key()].members.push_back(subscriber.get());
        alive.push_back(std::move(subscriber));
      }
    }
    round.changes.push_back(&change);
  }
  const auto distinct = [](std::vector<std::int64_t>& ids) {
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  };
  for (auto& [name, round] : rounds) {
    std::vector<std::int64_t> changed;  // records to read: a delete has none left to show
    std::vector<std::int64_t> deleted;  // rows a filter is checked on
    for (const records::RecordChange* change : round.changes) {
      (change->kind == records::ChangeKind::kDelete ? deleted : changed).push_back(change->id);
    }
    distinct(changed);
    distinct(deleted);
    for (auto& [key, group] : round.groups) {
      const Subscription& subscriber = *group.members.front();
      const SubscriptionSpec& spec = subscriber.spec();
      auto read =
          service->ReadAsSubscriber(*round.table, spec.role, changed, spec.filter, spec.fields);
      if (!read.ok()) continue;  // read access lost: Revalidate closes them
      Result<records::RecordService::SubscriberMatches> matched =
          records::RecordService::SubscriberMatches{};
      if (spec.filter) {
        matched = service->MatchesAsSubscriber(*round.table, spec.role, deleted, *spec.filter);
      }
      for (const records::RecordChange* change : round.changes) {
        auto message = Render(*service, *round.table, *change, subscriber, read.value(),
                              matched.ok() ? &matched.value() : nullptr);
        if (message) group.messages.push_back(std::move(*message));
      }
    }
  }
  // A group's messages are framed once per transport, and its members share those bytes. One
  // hand-over per network thread: posting to each connection apart costs a wake-up of its thread
  // and an allocation per subscriber.
  std::unordered_map<const void*, Subscription::Batch> by_thread;
  for (auto& [name, round] : rounds) {
    for (auto& [key, group] : round.groups) {
      if (group.messages.empty()) continue;
      FramesByTransport framed(group.messages);
      for (Subscription* member : group.members) {
        by_thread[member->thread()].emplace_back(member->shared_from_this(),
                                                 framed.For(member->transport()));
      }
    }
  }
  for (auto& [thread, batch] : by_thread) {
    Subscription& first = *batch.front().first;
    first.DeliverAll(std::move(batch));
  }
}

std::optional<std::string> Hub::Render(records::RecordService& service, const config::Table& table,
                                       const records::RecordChange& change,
                                       const Subscription& subscriber,
                                       const records::RecordService::SubscriberRecords& read,
                                       const records::RecordService::SubscriberMatches* matched) {
  const SubscriptionSpec& spec = subscriber.spec();
  std::optional<std::string_view> record;
  if (change.kind != records::ChangeKind::kDelete) {
    // Not read: not visible to them (outside the filter, or gone again since): nothing to tell.
    auto found = read.find(change.id);
    if (found == read.end()) return std::nullopt;
    record = found->second;
  } else if (spec.filter) {
    // A delete only for a record the filter let through: the trashed row still holds the values
    // it had. A row gone for good cannot be asked: such a delete goes out (see docs/realtime.md).
    if (matched == nullptr) return std::nullopt;  // could not be told
    auto found = matched->find(change.id);
    if (found != matched->end() && !found->second) return std::nullopt;
  }
  std::optional<std::string> old_record;
  if (!change.old_fields_json.empty()) {
    std::string old = R"({"id":")" + std::to_string(change.id) + R"(","fields":)";
    const std::vector<std::string>& names = subscriber.field_names();
    service.AppendStoredFields(table, spec.role, change.old_fields_json,
                               spec.fields ? &names : nullptr, old);
    old.push_back('}');
    old_record = std::move(old);
  }
  return ChangeMessage(change, record, old_record);
}

void Hub::Resync(const std::set<std::string>& tables) {
  for (const std::string& table : tables) {
    const std::vector<std::string> messages{ResyncMessage({table})};
    FramesByTransport framed(messages);
    for (const auto& subscriber : SubscribersOf(table)) {
      subscriber->Deliver(framed.For(subscriber->transport()));
    }
  }
}

void Hub::Revalidate() {
  std::vector<std::shared_ptr<Subscription>> all;
  {
    std::lock_guard lock(mutex_);
    for (const auto& [table, members] : by_table_) {
      for (Subscription* subscription : members) {
        if (auto alive = subscription->weak_from_this().lock()) all.push_back(std::move(alive));
      }
    }
  }
  // One lookup per session, however many tables it subscribed to.
  std::map<std::string, Result<std::optional<std::string>>> roles;
  for (const auto& subscription : all) {
    const SubscriptionSpec& spec = subscription->spec();
    auto found = roles.find(spec.session_token);
    if (found == roles.end()) {
      found = roles.emplace(spec.session_token, session_role_(spec.session_token)).first;
    }
    if (!found->second.ok()) continue;  // cannot tell now: the next check will
    const std::optional<std::string>& role = found->second.value();
    if (!role) {
      subscription->Close(1008, "session ended");
    } else if (*role != spec.role) {
      // Its field rules changed with its role: the client subscribes again under the new ones
      // (and gets a 404 when the new role cannot read the table).
      subscription->Close(1008, "permissions changed");
    }
  }
}

void Hub::Loop() {
  using Clock = std::chrono::steady_clock;
  auto next_check = Clock::now() + kRevalidateInterval;
  Clock::time_point last_send;      // none yet: the first send goes at once
  Clock::time_point last_dispatch;  // likewise the first round
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    const Clock::time_point now = Clock::now();
    const Clock::time_point send_at = last_send + kSendWindow;
    const Clock::time_point dispatch_at = last_dispatch + kDispatchWindow;
    const bool send = !outgoing_.empty() && now >= send_at;
    const bool dispatch = (!pending_.empty() || !overflowed_.empty()) && now >= dispatch_at;
    const bool check = now >= next_check;
    if (!send && !dispatch && !check) {
      // Until the first window with work in it ends; a producer wakes it only when it brings
      // work of a kind there was none of (Committed, Received).
      Clock::time_point until = next_check;
      if (!outgoing_.empty()) until = std::min(until, send_at);
      if (!pending_.empty() || !overflowed_.empty()) until = std::min(until, dispatch_at);
      wake_.wait_until(lock, until);
      continue;
    }
    if (send) {
      std::deque<records::RecordChange> outgoing;
      outgoing.swap(outgoing_);
      lock.unlock();
      SendOut(std::move(outgoing));
      last_send = Clock::now();
      lock.lock();
    }
    if (dispatch) {
      std::deque<records::RecordChange> batch;
      batch.swap(pending_);
      std::set<std::string> overflowed;
      overflowed.swap(overflowed_);
      lock.unlock();
      if (!batch.empty()) Dispatch(batch);
      if (!overflowed.empty()) Resync(overflowed);
      last_dispatch = Clock::now();
      lock.lock();
    }
    if (check) {
      lock.unlock();
      Revalidate();
      next_check = Clock::now() + kRevalidateInterval;
      lock.lock();
    }
  }
}

void Hub::Shutdown() {
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return;
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  listening_.reset();  // its thread stops calling Received
  std::vector<std::shared_ptr<Subscription>> all;
  {
    std::lock_guard lock(mutex_);
    for (const auto& [table, members] : by_table_) {
      for (Subscription* subscription : members) {
        if (auto alive = subscription->weak_from_this().lock()) all.push_back(std::move(alive));
      }
    }
  }
  for (const auto& subscription : all) subscription->Close(1001, "server shutting down");
  all.clear();
  std::unique_lock lock(mutex_);
  emptied_.wait_for(lock, kShutdownGrace, [this] { return live_ == 0; });
}

}  // namespace cairn::realtime
