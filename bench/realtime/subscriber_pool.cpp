// The subscribers of the realtime workloads (bench/realtime/run): many WebSocket subscriptions
// held by one thread (epoll), cheap enough per message that the client, which shares the
// machine with cairn, does not become what is measured. A node client spends several
// microseconds per message (ws framing, JSON.parse, an event per message); this one reads large
// chunks, walks the frame headers and looks at a change's `recordId` and `timestamp` only.
//
//   cairn_realtime_subscribers <port> <target> <tokens-file> <count>
//
// Opens <count> subscriptions to ws://127.0.0.1:<port><target>, subscription i with the Bearer
// token on line i/10 of <tokens-file> (a user holds at most 10), and prints `ready <n>` once n
// got `subscribed`. Then it answers commands on stdin, one line each:
//   open <n>      → `opened <subscribed in all>`: <n> more subscriptions (the next tokens)
//   count         → `count <change messages received so far> <closed by the server>`
//   time          → `timing`: from now on every change's receipt is timed
//   latency <id>  → `latency <receipts> <p50> <p99> <max>`: milliseconds from the change's
//                   commit (its `timestamp`) to its receipt here, over the receipts of record
//                   <id> (waits up to 10 s for one per subscription)
//   sample        → `sampling`: from now on one change receipt in kSampleEvery is timed
//   sampled       → `sampled <receipts timed> <p50> <p99> <max>`, in milliseconds as above, and
//                   sampling stops (the latency under a stream of writes)
//   quit
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iostream>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace {

using Clock = std::chrono::system_clock;

struct Connection {
  int fd = -1;
  bool upgraded = false;
  bool subscribed = false;
  bool closed = false;
  std::string in;  // the start of a frame whose rest has not come yet
};

std::int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now().time_since_epoch())
      .count();
}

// "2026-11-26T09:10:24.563Z" → epoch milliseconds (UTC).
std::int64_t ParseIsoMs(std::string_view text) {
  if (text.size() < 23) return 0;
  std::tm tm{};
  tm.tm_year = std::stoi(std::string(text.substr(0, 4))) - 1900;
  tm.tm_mon = std::stoi(std::string(text.substr(5, 2))) - 1;
  tm.tm_mday = std::stoi(std::string(text.substr(8, 2)));
  tm.tm_hour = std::stoi(std::string(text.substr(11, 2)));
  tm.tm_min = std::stoi(std::string(text.substr(14, 2)));
  tm.tm_sec = std::stoi(std::string(text.substr(17, 2)));
  const int ms = std::stoi(std::string(text.substr(20, 3)));
  return static_cast<std::int64_t>(timegm(&tm)) * 1000 + ms;
}

// The text of `"key":"<text>"` in a compact JSON message.
std::string_view StringField(std::string_view message, std::string_view key) {
  const std::string pattern = "\"" + std::string(key) + "\":\"";
  const std::size_t at = message.find(pattern);
  if (at == std::string_view::npos) return {};
  const std::size_t start = at + pattern.size();
  const std::size_t end = message.find('"', start);
  return end == std::string_view::npos ? std::string_view() : message.substr(start, end - start);
}

class Pool {
 public:
  Pool(int port, std::string target, std::vector<std::string> tokens)
      : port_(port), target_(std::move(target)), tokens_(std::move(tokens)) {
    epoll_ = epoll_create1(0);
  }

  // Opens `count` more subscriptions, at most `window` handshakes in flight.
  void Open(int count, int window) {
    int next = static_cast<int>(connections_.size());
    const int total = next + count;
    if (total > static_cast<int>(tokens_.size()) * 10) {
      std::fprintf(stderr, "%d subscriptions need %d tokens\n", total, (total + 9) / 10);
      std::exit(2);
    }
    connections_.resize(static_cast<std::size_t>(total));
    while (subscribed_ + failed_ < total) {
      while (next < total && next - subscribed_ - failed_ < window) Connect(next++);
      Poll(100);
    }
  }

  int subscribed() const { return subscribed_; }
  std::int64_t changes() const { return changes_; }
  int closed() const { return closed_; }

  void Poll(int timeout_ms) {
    epoll_event events[256];
    const int n = epoll_wait(epoll_, events, 256, timeout_ms);
    for (int i = 0; i < n; ++i) Readable(static_cast<int>(events[i].data.u32));
  }

  const std::vector<std::int64_t>* Latencies(const std::string& id) const {
    const auto found = latencies_.find(id);
    return found == latencies_.end() ? nullptr : &found->second;
  }

 private:
  void Connect(int index) {
    Connection& connection = connections_[index];
    connection.fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<std::uint16_t>(port_));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(connection.fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
      std::perror("connect");
      ++failed_;
      return;
    }
    const std::string request = "GET " + target_ +
                                " HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
                                "Connection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
                                "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                                "Authorization: Bearer " +
                                tokens_[index / 10] + "\r\n\r\n";
    if (send(connection.fd, request.data(), request.size(), 0) !=
        static_cast<ssize_t>(request.size())) {
      ++failed_;
      return;
    }
    fcntl(connection.fd, F_SETFL, fcntl(connection.fd, F_GETFL) | O_NONBLOCK);
    epoll_event event{};
    event.events = EPOLLIN;
    event.data.u32 = static_cast<std::uint32_t>(index);
    epoll_ctl(epoll_, EPOLL_CTL_ADD, connection.fd, &event);
  }

  // Frames are parsed where recv put them; only a frame cut by the end of a read is kept (in
  // `in`) until the rest comes. At a million messages a second a copy of every byte into a
  // per-connection string would be a good part of what the pool costs the machine.
  void Readable(int index) {
    Connection& connection = connections_[index];
    while (!connection.closed) {
      const ssize_t got = recv(connection.fd, buffer_, sizeof buffer_, 0);
      if (got <= 0) {
        if (got == 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) Lost(connection);
        return;
      }
      std::string_view bytes(buffer_, static_cast<std::size_t>(got));
      if (connection.in.empty()) {
        bytes = Consume(connection, bytes);
        connection.in.assign(bytes);
      } else {
        connection.in.append(bytes);
        connection.in.erase(0, connection.in.size() - Consume(connection, connection.in).size());
      }
    }
  }

  void Lost(Connection& connection) {
    if (connection.closed) return;
    connection.closed = true;
    epoll_ctl(epoll_, EPOLL_CTL_DEL, connection.fd, nullptr);
    close(connection.fd);
    if (!connection.subscribed) ++failed_;
  }

  // Handles every whole frame at the start of `rest`; answers what is left of it.
  std::string_view Consume(Connection& connection, std::string_view rest) {
    if (!connection.upgraded) {
      const std::size_t end = rest.find("\r\n\r\n");
      if (end == std::string_view::npos) return rest;
      if (rest.substr(0, 12) != "HTTP/1.1 101") {
        std::fprintf(stderr, "subscribe refused: %.*s\n", static_cast<int>(rest.find('\r')),
                     rest.data());
        Lost(connection);
        return {};
      }
      connection.upgraded = true;
      rest.remove_prefix(end + 4);
    }
    // Server frames are not masked: FIN+opcode, length (7 bits, or 16/64 more), the payload.
    while (rest.size() >= 2) {
      const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(rest[i]); };
      const int opcode = byte(0) & 0x0f;
      std::uint64_t length = byte(1) & 0x7f;
      std::size_t header = 2;
      if (length == 126) {
        if (rest.size() < 4) break;
        length = (std::uint64_t{byte(2)} << 8) | byte(3);
        header = 4;
      } else if (length == 127) {
        if (rest.size() < 10) break;
        length = 0;
        for (int i = 2; i < 10; ++i) length = (length << 8) | byte(static_cast<std::size_t>(i));
        header = 10;
      }
      if (rest.size() < header + length) break;
      const std::string_view payload = rest.substr(header, length);
      rest.remove_prefix(header + length);
      if (opcode == 0x8) {  // close
        if (payload.size() >= 2) ++closed_;
        Lost(connection);
        return {};
      }
      if (opcode == 0x1) Message(connection, payload);
    }
    return rest;
  }

  void Message(Connection& connection, std::string_view payload) {
    if (!connection.subscribed) {
      if (payload.find("\"subscribed\"") != std::string_view::npos) {
        connection.subscribed = true;
        ++subscribed_;
      }
      return;
    }
    // cairn writes the type first (messages.cpp): no need to search the whole message.
    if (!payload.starts_with(R"({"type":"change")")) return;
    ++changes_;
    if (sampling_ && changes_ % kSampleEvery == 0) {
      sampled_.push_back(NowMs() - ParseIsoMs(StringField(payload, "timestamp")));
    }
    if (timing_) {
      latencies_[std::string(StringField(payload, "recordId"))].push_back(
          NowMs() - ParseIsoMs(StringField(payload, "timestamp")));
    }
  }

 public:
  bool timing_ = false;  // receipts are timed (per record) once `time` was asked
  // Timing every receipt of a stream (millions a second) would cost the pool more than what it
  // measures: one in kSampleEvery is timed.
  static constexpr std::int64_t kSampleEvery = 64;
  bool sampling_ = false;
  std::vector<std::int64_t> sampled_;

 private:
  int port_;
  std::string target_;
  std::vector<std::string> tokens_;
  int epoll_ = -1;
  char buffer_[1 << 16];
  std::vector<Connection> connections_;
  int subscribed_ = 0;
  int failed_ = 0;
  int closed_ = 0;
  std::int64_t changes_ = 0;
  std::unordered_map<std::string, std::vector<std::int64_t>> latencies_;
};

// `<label> <count> <p50> <p99> <max>` of `milliseconds` (-1 for none).
void PrintPercentiles(const char* label, std::vector<std::int64_t> milliseconds) {
  std::sort(milliseconds.begin(), milliseconds.end());
  const auto at = [&](double q) {
    return milliseconds.empty() ? -1LL
                                : static_cast<long long>(milliseconds[static_cast<std::size_t>(
                                      static_cast<double>(milliseconds.size()) * q)]);
  };
  std::printf("%s %zu %lld %lld %lld\n", label, milliseconds.size(), at(0.5), at(0.99),
              milliseconds.empty() ? -1LL : static_cast<long long>(milliseconds.back()));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: %s <port> <target> <tokens-file> <count>\n", argv[0]);
    return 2;
  }
  std::vector<std::string> tokens;
  std::ifstream file(argv[3]);
  for (std::string line; std::getline(file, line);) tokens.push_back(line);
  const int count = std::stoi(argv[4]);
  if (static_cast<int>(tokens.size()) * 10 < count) {
    std::fprintf(stderr, "%d subscriptions need %d tokens\n", count, (count + 9) / 10);
    return 2;
  }
  Pool pool(std::stoi(argv[1]), argv[2], std::move(tokens));
  pool.Open(count, 100);
  std::printf("ready %d\n", pool.subscribed());
  std::fflush(stdout);
  // Commands on stdin, messages from the sockets: both through poll on stdin's fd between
  // rounds of epoll.
  std::string line;
  while (true) {
    pollfd input{0, POLLIN, 0};
    if (poll(&input, 1, 0) > 0) {
      if (!std::getline(std::cin, line) || line == "quit") break;
      if (line.rfind("open ", 0) == 0) {
        pool.Open(std::stoi(line.substr(5)), 100);
        std::printf("opened %d\n", pool.subscribed());
      } else if (line == "count") {
        std::printf("count %lld %d\n", static_cast<long long>(pool.changes()), pool.closed());
      } else if (line == "time") {
        pool.timing_ = true;
        std::printf("timing\n");
      } else if (line.rfind("latency ", 0) == 0) {
        const std::string id = line.substr(8);
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        while (std::chrono::steady_clock::now() < deadline) {
          const auto* got = pool.Latencies(id);
          if (got != nullptr && static_cast<int>(got->size()) >= pool.subscribed()) break;
          pool.Poll(5);
        }
        std::vector<std::int64_t> receipts;
        if (const auto* got = pool.Latencies(id)) receipts = *got;
        PrintPercentiles("latency", std::move(receipts));
      } else if (line == "sample") {
        pool.sampled_.clear();
        pool.sampling_ = true;
        std::printf("sampling\n");
      } else if (line == "sampled") {
        pool.sampling_ = false;
        PrintPercentiles("sampled", std::move(pool.sampled_));
        pool.sampled_.clear();
      }
      std::fflush(stdout);
    }
    pool.Poll(5);
  }
  return 0;
}
