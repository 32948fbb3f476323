// A peer at the socket level, on loopback: it accepts connections and hands each to a function
// of the test's on a thread of its own, and counts what it accepted. For what must be tested
// below HTTP: that nothing connects at all, a peer that holds a connection silent, one that
// trickles its answer. It speaks no protocol of its own, so it cannot share a client's reading
// of one.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace signet::test {

class TcpPeer {
 public:
  // `serve(fd, stopping)` runs per connection; the socket is closed when it returns. It must
  // return once `stopping` is set (the peer is being destroyed).
  using Serve = std::function<void(int fd, const std::atomic<bool>& stopping)>;
  explicit TcpPeer(Serve serve);
  ~TcpPeer();
  TcpPeer(const TcpPeer&) = delete;
  TcpPeer& operator=(const TcpPeer&) = delete;

  uint16_t port() const { return port_; }
  int accepted() const { return accepted_; }
  // scheme://127.0.0.1:PORT`path`
  std::string url(const std::string& scheme = "http", const std::string& path = "/x") const;

  // Behaviours for `serve`.
  static void silent(int fd, const std::atomic<bool>& stopping);  // holds the connection open
  static void readHead(int fd);  // reads up to the end of a request head
  static void sendAll(int fd, const std::string& text);

 private:
  Serve serve_;
  int fd_ = -1;
  uint16_t port_ = 0;
  std::atomic<bool> stopping_{false};
  std::atomic<int> accepted_{0};
  std::thread acceptor_;
  std::mutex workersMutex_;
  std::vector<std::thread> workers_;
};

// A port on loopback that nothing listens on (bound, then released).
uint16_t closedPort();

}  // namespace signet::test
