#include "support/abuse.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>

namespace signet::test {

namespace {

using Clock = std::chrono::steady_clock;

// A blocking TCP connection to 127.0.0.1:port from `source` (another loopback address), with
// 5 s send and receive timeouts so that nothing here waits forever. -1 when refused.
int connectFrom(const std::string& source, uint16_t port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  timeval timeout{5, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
  sockaddr_in from{};
  from.sin_family = AF_INET;
  inet_pton(AF_INET, source.c_str(), &from.sin_addr);
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(port);
  inet_pton(AF_INET, "127.0.0.1", &to.sin_addr);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&from), sizeof from) != 0 ||
      ::connect(fd, reinterpret_cast<sockaddr*>(&to), sizeof to) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

bool sendAll(int fd, const std::string& bytes) {
  size_t at = 0;
  while (at < bytes.size()) {
    ssize_t n = ::send(fd, bytes.data() + at, bytes.size() - at, MSG_NOSIGNAL);
    if (n <= 0) return false;
    at += static_cast<size_t>(n);
  }
  return true;
}

// Reads one answer (head, then Content-Length bytes); its status, or 0 when none came.
int readAnswer(int fd, std::string& buffer) {
  char buf[8192];
  size_t headEnd;
  while ((headEnd = buffer.find("\r\n\r\n")) == std::string::npos) {
    ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) return 0;
    buffer.append(buf, static_cast<size_t>(n));
  }
  int status = std::atoi(buffer.c_str() + 9);
  size_t length = 0;
  std::string head = buffer.substr(0, headEnd);
  std::transform(head.begin(), head.end(), head.begin(), ::tolower);
  if (auto at = head.find("content-length: "); at != std::string::npos)
    length = std::stoul(head.substr(at + 16));
  while (buffer.size() < headEnd + 4 + length) {
    ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) return 0;
    buffer.append(buf, static_cast<size_t>(n));
  }
  buffer.erase(0, headEnd + 4 + length);
  return status;
}

std::string hostAddress(int n) {
  return "127.0.0." + std::to_string(n);
}

}  // namespace

LegitClient::LegitClient(Client client, std::string organizationId, int deadlineMs)
    : client_(std::move(client)),
      organizationId_(std::move(organizationId)),
      deadlineMs_(deadlineMs) {
  thread_ = std::thread([this] {
    json::Object body = json::object();
    body->set("organizationId", organizationId_);
    while (!stopping_) {
      auto started = Clock::now();
      bool ok = true;
      try {
        client_.query("whoami", body);
      } catch (const std::exception&) {
        ok = false;
      }
      double ms = std::chrono::duration<double, std::milli>(Clock::now() - started).count();
      latenciesMs_.push_back(ms);
      if (ok) ++answered_;
      if (ok && ms <= deadlineMs_) ++inTime_;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  });
}

LegitClient::~LegitClient() {
  if (thread_.joinable()) stop();
}

LegitStats LegitClient::stop() {
  stopping_ = true;
  thread_.join();
  LegitStats s;
  s.calls = latenciesMs_.size();
  s.answered = answered_;
  s.answeredInTime = inTime_;
  if (!latenciesMs_.empty()) {
    std::vector<double> sorted = latenciesMs_;
    std::sort(sorted.begin(), sorted.end());
    s.p99Ms = sorted[std::min(sorted.size() - 1, sorted.size() * 99 / 100)];
  }
  return s;
}

size_t slowloris(uint16_t port, int sockets, int seconds) {
  std::vector<int> fds;
  for (int i = 0; i < sockets; ++i)
    if (int fd = connectFrom(hostAddress(2), port); fd >= 0) fds.push_back(fd);
  const std::string head =
      "POST /public/v1/query/whoami HTTP/1.1\r\nHost: x\r\nX-Padding: aaaaaaaaaaaaaaaaaaaaaaaa";
  for (int second = 0; second < seconds; ++second) {
    for (int fd : fds) ::send(fd, head.data() + second % head.size(), 1, MSG_NOSIGNAL);
    std::this_thread::sleep_for(std::chrono::seconds(1));
  }
  size_t dropped = 0;
  for (int fd : fds) {
    char buf[512];
    ssize_t n = ::recv(fd, buf, sizeof buf, MSG_DONTWAIT);
    if (n > 12 && std::string(buf, 12) == "HTTP/1.1 408") ++dropped;
    ::close(fd);
  }
  return dropped;
}

size_t idleConnections(uint16_t port, int count, int seconds) {
  std::vector<int> fds;
  // 250 a source address, under the per-address bound, as if from many hosts.
  for (int i = 0; i < count; ++i)
    if (int fd = connectFrom(hostAddress(3 + i / 250), port); fd >= 0) fds.push_back(fd);
  std::this_thread::sleep_for(std::chrono::seconds(seconds));
  for (int fd : fds) ::close(fd);
  return fds.size();
}

std::string answerToSilentConnection(uint16_t port, const std::string& source) {
  int fd = connectFrom(source, port);
  if (fd < 0) return "(not connected)";
  timeval timeout{2, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  std::string answer;
  char buf[4096];
  for (ssize_t n; (n = ::recv(fd, buf, sizeof buf, 0)) > 0;) answer.append(buf, size_t(n));
  ::close(fd);
  return answer;
}

FloodAnswers unauthenticatedFlood(uint16_t port, int threads, int seconds) {
  std::vector<std::thread> workers;
  std::vector<FloodAnswers> answers(static_cast<size_t>(threads));
  auto until = Clock::now() + std::chrono::seconds(seconds);
  const std::string request =
      "POST /public/v1/query/whoami HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}";
  for (int t = 0; t < threads; ++t)
    workers.emplace_back([&, t] {
      FloodAnswers& mine = answers[static_cast<size_t>(t)];
      while (Clock::now() < until) {
        int fd = connectFrom(hostAddress(40), port);
        if (fd < 0) continue;
        std::string buffer;
        // Keep-alive: as many requests on a connection as the server allows.
        while (Clock::now() < until && sendAll(fd, request)) {
          int status = readAnswer(fd, buffer);
          if (status == 401)
            ++mine.unauthenticated;
          else if (status == 429)
            ++mine.rateLimited;
          else
            ++mine.other;
          if (status == 0) break;
        }
        ::close(fd);
      }
    });
  for (auto& w : workers) w.join();
  FloodAnswers total;
  for (const auto& a : answers) {
    total.unauthenticated += a.unauthenticated;
    total.rateLimited += a.rateLimited;
    total.other += a.other;
  }
  return total;
}

BurstResult keepAliveClients(uint16_t port, int clients, int requests, Stamper& stamper,
                             const std::string& organizationId) {
  // Stamped beforehand, so that the clients only talk.
  std::vector<std::vector<std::string>> scripts(static_cast<size_t>(clients));
  for (auto& script : scripts)
    for (int r = 0; r < requests; ++r) {
      std::string body = R"({"organizationId":")" + organizationId + R"("})";
      auto [name, value] = stamper.stamp(body);
      script.push_back(
          "POST /public/v1/query/whoami HTTP/1.1\r\nHost: x\r\nContent-Type: "
          "application/json\r\n" +
          name + ": " + value + "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" +
          body);
    }
  std::vector<int> fds;
  for (int c = 0; c < clients; ++c) fds.push_back(connectFrom("127.0.0.1", port));
  std::atomic<size_t> ok{0}, unavailable{0};
  auto started = Clock::now();
  std::vector<std::thread> threads;
  for (size_t c = 0; c < fds.size(); ++c)
    threads.emplace_back([&, c] {
      if (fds[c] < 0) return;
      std::string buffer;
      for (const auto& request : scripts[c]) {
        if (!sendAll(fds[c], request)) return;
        int status = readAnswer(fds[c], buffer);
        if (status == 200) ++ok;
        if (status == 503) ++unavailable;
      }
    });
  for (auto& t : threads) t.join();
  BurstResult result;
  result.wallMs =
      std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - started).count();
  result.ok = ok;
  result.unavailable = unavailable;
  result.total = static_cast<size_t>(clients) * static_cast<size_t>(requests);
  for (int fd : fds)
    if (fd >= 0) ::close(fd);
  return result;
}

}  // namespace signet::test
