#include "app/schema_follower.hpp"

#include <string>

#include "common/log.hpp"
#include "schema_edit/limits.hpp"

namespace cairn::app {

SchemaFollower::SchemaFollower(schema_edit::SchemaEditor& editor)
    : editor_(editor), thread_([this] { Run(); }) {}

SchemaFollower::~SchemaFollower() {
  Stop();
}

void SchemaFollower::Stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void SchemaFollower::Run() {
  // A version this node cannot serve (one that adds or removes `auth`) fails at every turn:
  // its warning is logged once, not four times a second.
  std::string last_warning;
  std::unique_lock lock(mutex_);
  while (!wake_.wait_for(lock, schema_edit::kFollowInterval, [this] { return stopping_; })) {
    lock.unlock();
    if (Status status = editor_.Follow(); !status.ok()) {
      std::string warning =
          "schema follower: " + status.error().message + " " + status.error().detail;
      if (warning != last_warning) log::Warn(warning);
      last_warning = std::move(warning);
    } else {
      last_warning.clear();
    }
    lock.lock();
  }
}

}  // namespace cairn::app
