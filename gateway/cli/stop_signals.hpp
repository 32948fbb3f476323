// How the serving commands stop: SIGINT and SIGTERM are blocked before any thread starts, so
// that only the main thread's wait sees them, and the command then finishes what is in flight.
#pragma once

#include <signal.h>

namespace signet::cli {

// `withReload` adds SIGHUP, which `signet serve` waits for too (it reloads the TLS certificate).
inline sigset_t blockStopSignals(bool withReload = false) {
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGINT);
  sigaddset(&stop, SIGTERM);
  if (withReload) sigaddset(&stop, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &stop, nullptr);
  return stop;
}

// Blocks until one of them arrives; returns it.
inline int waitForStopSignal(const sigset_t& stop) {
  int received = 0;
  sigwait(&stop, &received);
  return received;
}

}  // namespace signet::cli
