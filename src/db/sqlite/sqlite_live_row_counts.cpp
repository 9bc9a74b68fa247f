// SQLite keeps no counters: a bare COUNT(*) is answered from the smallest b-tree without
// visiting rows, and the trash count reads the small part of the deleted_at index.
#include "db/sqlite/sqlite_schema_objects.hpp"

namespace cairn::db::sqlite {
namespace {

class SqliteLiveRowCountsImpl final : public LiveRowCounts {
 public:
  Status Sync(Connection& /*connection*/, std::span<const std::string> /*tables*/) const override {
    return {};
  }

  Status WithDeferred(Connection& /*connection*/,
                      const std::function<Status()>& work) const override {
    return work();
  }

  LiveRowCountQuery Count(std::string_view table_name) const override {
    const std::string table = Identifier(table_name).quoted();
    return {"SELECT (SELECT COUNT(*) FROM " + table + ") - (SELECT COUNT(*) FROM " + table +
                " WHERE \"deleted_at\" IS NOT NULL)",
            {}};
  }
};

}  // namespace

const LiveRowCounts& SqliteLiveRowCounts() {
  static const SqliteLiveRowCountsImpl counts;
  return counts;
}

}  // namespace cairn::db::sqlite
