// SIGKILL during mixed concurrent writes, 20 times (issue 22): clients create, update and delete
// records one by one and in batches; the real `cairn` binary is killed with SIGKILL while they
// write, and the database (read directly) must hold every write that was acknowledged. A write
// in flight at the kill may or may not be there, but a batch is never there in part.
// crash_test.cpp (e2e_tests) kills big create batches once; this covers every kind of write.
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <optional>
#include <random>
#include <thread>

#include <boost/json.hpp>

#include "e2e/fault_support.hpp"
#include "support/test_database.hpp"

namespace cairn::test {
namespace {

using namespace std::chrono_literals;

constexpr int kKills = 20;
constexpr int kClients = 3;
constexpr int kBatch = 20;
constexpr const char* kRecords = "/api/tables/items/records";

// What a record must look like in the database.
struct Expected {
  std::int64_t version = 0;
  bool deleted = false;
};

// The write a client had sent when the server died: its effect may or may not be stored.
struct InFlight {
  enum Kind { kNone, kCreate, kBatchCreate, kUpdate, kDelete, kBatchDelete } kind = kNone;
  std::string name;              // kCreate: the name; kBatchCreate: the name prefix
  std::vector<std::string> ids;  // kUpdate, kDelete, kBatchDelete
  std::int64_t version = 0;      // kUpdate
};

// One client's records (by id) and the write it was making. Clients never touch each other's
// records, so each record's state is the last acknowledged write to it.
struct ClientModel {
  std::map<std::string, Expected> records;
  InFlight in_flight;
  int next_name = 0;
  int acknowledged = 0;
  std::string unexpected;  // an answer other than success from a live server
};

std::string Fields(const std::string& name, std::int64_t version) {
  return R"({"name":")" + name + R"(","version":)" + std::to_string(version) + "}";
}

void Unexpected(ClientModel& model, const HttpResult& result) {
  model.unexpected = std::to_string(result.status) + ": " + result.body;
}

// Runs writes until the server goes away; `client_id` prefixes names so they are unique.
void Write(std::uint16_t port, const Headers& admin, int client_id, ClientModel& model,
           std::mt19937& random) {
  try {
    HttpClient client(port);
    for (;;) {
      std::vector<std::string> alive;
      for (const auto& [id, record] : model.records) {
        if (!record.deleted) alive.push_back(id);
      }
      const std::string prefix =
          "c" + std::to_string(client_id) + "-" + std::to_string(model.next_name++);
      const int choice = alive.size() < 3 ? 0 : static_cast<int>(random() % 5);
      InFlight& flight = model.in_flight;
      flight = {};
      if (choice == 0) {
        flight = {InFlight::kCreate, prefix, {}, 0};
        const auto result =
            client.Request("POST", kRecords, R"({"fields":)" + Fields(prefix, 0) + "}", admin);
        if (result.status != 201) return Unexpected(model, result);
        model.records[std::string(result.Json().at("id").as_string())] = {};
      } else if (choice == 1) {
        flight = {InFlight::kBatchCreate, prefix, {}, 0};
        std::string body = R"({"records":[)";
        for (int i = 0; i < kBatch; ++i) {
          if (i > 0) body += ',';
          body += R"({"fields":)" + Fields(prefix + "/" + std::to_string(i), 0) + "}";
        }
        const auto result =
            client.Request("POST", std::string(kRecords) + "/batch", body + "]}", admin);
        if (result.status != 201) return Unexpected(model, result);
        const auto json = result.Json();
        for (const auto& record : json.at("records").as_array()) {
          model.records[std::string(record.at("id").as_string())] = {};
        }
      } else if (choice == 2 || choice == 3) {
        const std::string& id = alive[random() % alive.size()];
        const std::int64_t version = model.records[id].version + 1;
        flight = {InFlight::kUpdate, {}, {id}, version};
        const auto result =
            client.Request("PATCH", std::string(kRecords) + "/" + id,
                           R"({"fields":{"version":)" + std::to_string(version) + "}}", admin);
        if (result.status != 200) return Unexpected(model, result);
        model.records[id].version = version;
      } else if (random() % 2 == 0) {
        const std::string& id = alive[random() % alive.size()];
        flight = {InFlight::kDelete, {}, {id}, 0};
        const auto result = client.Request("DELETE", std::string(kRecords) + "/" + id, {}, admin);
        if (result.status != 204) return Unexpected(model, result);
        model.records[id].deleted = true;
      } else {
        flight = {InFlight::kBatchDelete, {}, {alive[0], alive[1]}, 0};
        const auto result =
            client.Request("DELETE", std::string(kRecords) + "/batch",
                           R"({"ids":[")" + alive[0] + R"(",")" + alive[1] + "\"]}", admin);
        if (result.status != 200) return Unexpected(model, result);
        for (const auto& id : flight.ids) model.records[id].deleted = true;
      }
      model.in_flight = {};
      ++model.acknowledged;
    }
  } catch (const std::exception&) {
    // the server is gone
  }
}

struct Stored {
  std::string name;
  std::int64_t version = 0;
  bool deleted = false;
};

// Compares the database with every client's model, then folds in the in-flight writes that did
// land (so the next round starts from the database's truth). Returns the problems found.
std::vector<std::string> Check(const std::map<std::string, Stored>& stored,
                               std::vector<ClientModel>& models) {
  std::vector<std::string> problems;
  for (ClientModel& model : models) {
    const InFlight& flight = model.in_flight;
    const auto touched = [&flight](const std::string& id) {
      return std::find(flight.ids.begin(), flight.ids.end(), id) != flight.ids.end();
    };
    for (auto& [id, expected] : model.records) {
      const auto found = stored.find(id);
      if (found == stored.end()) {
        problems.push_back("acknowledged record " + id + " is missing");
        continue;
      }
      const Stored& row = found->second;
      if (touched(id)) {
        // In flight: either the old state or the new one.
        if (flight.kind == InFlight::kUpdate && row.version == flight.version) {
          expected.version = flight.version;
        } else if (flight.kind != InFlight::kUpdate && row.deleted) {
          expected.deleted = true;
        }
      }
      if (row.version != expected.version || row.deleted != expected.deleted) {
        problems.push_back("record " + id + ": version " + std::to_string(row.version) +
                           (row.deleted ? " deleted" : "") + ", expected " +
                           std::to_string(expected.version) + (expected.deleted ? " deleted" : ""));
      }
    }
    if (flight.kind == InFlight::kBatchDelete) {
      const bool first = stored.at(flight.ids[0]).deleted;
      const bool second = stored.at(flight.ids[1]).deleted;
      if (first != second) problems.push_back("a batch delete was stored in part");
    }
    if (flight.kind == InFlight::kCreate || flight.kind == InFlight::kBatchCreate) {
      int landed = 0;
      for (const auto& [id, row] : stored) {
        if (row.name == flight.name || row.name.starts_with(flight.name + "/")) {
          ++landed;
          model.records[id] = {};
        }
      }
      const int whole = flight.kind == InFlight::kCreate ? 1 : kBatch;
      if (landed != 0 && landed != whole) {
        problems.push_back("a batch create was stored in part: " + std::to_string(landed));
      }
    }
    model.in_flight = {};
  }
  return problems;
}

TEST(FaultKill, SigkillDuringMixedWritesLosesNoAcknowledgedWrite) {
  auto database = TestDatabase::Create();
  ASSERT_TRUE(database.ok()) << database.error().message;
  (*database)->Close();
  const auto dir = (*database)->directory();
  FaultServer server(dir, dir, (*database)->options().url);
  std::vector<ClientModel> models(kClients);
  std::mt19937 seed_source(22);
  int total_acknowledged = 0;
  int unfinished = 0;
  for (int kill = 0; kill < kKills; ++kill) {
    server.Start();
    const Headers admin = server.Admin();
    std::vector<std::thread> clients;
    for (int c = 0; c < kClients; ++c) {
      clients.emplace_back([&, c, seed = seed_source()] {
        std::mt19937 random(seed);
        Write(server.port(), admin, c, models[c], random);
      });
    }
    // Kill at a different moment each round, once writes are flowing.
    std::this_thread::sleep_for(std::chrono::milliseconds(60 + 15 * (kill % 7)));
    const int status = server.Stop(SIGKILL);
    for (auto& client : clients) client.join();
    ASSERT_TRUE(WIFSIGNALED(status)) << server.Log();

    auto reader = (*database)->Reopen();
    ASSERT_TRUE(reader.ok()) << reader.error().message;
    // A COMMIT the killed server had sent still completes in its PostgreSQL backend: read the
    // table once those backends are gone, or a write in flight could land after the check.
    ASSERT_TRUE(WaitForOtherBackendsToEnd(**reader)) << "the killed server's backends stayed";
    std::map<std::string, Stored> stored;
    const db::Rows rows =
        QueryAll(**reader, R"(SELECT "id", "name", "version", "deleted_at" FROM "items")");
    for (const auto& row : rows.rows) {
      stored[*row.at(0)] = {*row.at(1), row.at(2) ? std::stoll(*row.at(2)) : 0,
                            row.at(3).has_value()};
    }
    reader->reset();
    for (const ClientModel& model : models) {
      ASSERT_TRUE(model.unexpected.empty()) << model.unexpected;
      unfinished += model.in_flight.kind == InFlight::kNone ? 0 : 1;
    }
    const auto problems = Check(stored, models);
    ASSERT_TRUE(problems.empty()) << "after kill " << kill + 1 << ": " << problems.front();
  }
  for (const ClientModel& model : models) total_acknowledged += model.acknowledged;
  EXPECT_GE(total_acknowledged, kKills * kClients) << "too few writes between kills";
  PrintFigure("sigkill: " + std::to_string(kKills) + " kills, " +
              std::to_string(total_acknowledged) + " acknowledged writes, 0 lost, " +
              std::to_string(unfinished) + " writes in flight at a kill");
}

}  // namespace
}  // namespace cairn::test
