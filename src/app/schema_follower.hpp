// On PostgreSQL several nodes share the database: this thread asks it for the active schema
// version every schema_edit::kFollowInterval and switches this node to a version another node
// published (SchemaEditor::Follow), so every node serves it within a second.
#pragma once

#include <condition_variable>
#include <mutex>
#include <thread>

#include "schema_edit/schema_editor.hpp"

namespace cairn::app {

class SchemaFollower {
 public:
  explicit SchemaFollower(schema_edit::SchemaEditor& editor);
  ~SchemaFollower();
  SchemaFollower(const SchemaFollower&) = delete;
  SchemaFollower& operator=(const SchemaFollower&) = delete;

  // Returns after a switch in progress has finished. Idempotent.
  void Stop();

 private:
  void Run();

  schema_edit::SchemaEditor& editor_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace cairn::app
