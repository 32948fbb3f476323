#include "support/tcp_peer.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <stdexcept>

namespace signet::test {

namespace {
// A socket bound to 127.0.0.1 on a free port; its port.
int boundSocket(uint16_t& port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0)
    throw std::runtime_error("cannot bind a loopback socket");
  socklen_t size = sizeof a;
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &size);
  port = ntohs(a.sin_port);
  return fd;
}
}  // namespace

TcpPeer::TcpPeer(Serve serve) : serve_(std::move(serve)) {
  fd_ = boundSocket(port_);
  if (::listen(fd_, 128) != 0) throw std::runtime_error("cannot listen on loopback");
  acceptor_ = std::thread([this] {
    for (;;) {
      int c = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (c < 0 || stopping_) {
        if (c >= 0) ::close(c);
        return;
      }
      ++accepted_;
      std::lock_guard lock(workersMutex_);
      workers_.emplace_back([this, c] {
        serve_(c, stopping_);
        ::close(c);
      });
    }
  });
}

TcpPeer::~TcpPeer() {
  stopping_ = true;
  ::shutdown(fd_, SHUT_RDWR);  // ends the acceptor's accept()
  acceptor_.join();
  ::close(fd_);
  std::lock_guard lock(workersMutex_);
  for (auto& w : workers_) w.join();
}

std::string TcpPeer::url(const std::string& scheme, const std::string& path) const {
  return scheme + "://127.0.0.1:" + std::to_string(port_) + path;
}

void TcpPeer::silent(int, const std::atomic<bool>& stopping) {
  while (!stopping) std::this_thread::sleep_for(std::chrono::milliseconds(20));
}

void TcpPeer::readHead(int fd) {
  std::string head;
  char c;
  while (head.find("\r\n\r\n") == std::string::npos && ::recv(fd, &c, 1, 0) == 1) head += c;
}

void TcpPeer::sendAll(int fd, const std::string& text) {
  ::send(fd, text.data(), text.size(), MSG_NOSIGNAL);
}

uint16_t closedPort() {
  uint16_t port = 0;
  ::close(boundSocket(port));
  return port;
}

}  // namespace signet::test
