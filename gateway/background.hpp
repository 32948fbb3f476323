// What a serving gateway runs beside its requests: the activity event dispatcher and the
// modules' workers (WorkerSpec), each on a thread of its own, from start() to stop().
#pragma once

#include <memory>
#include <thread>
#include <vector>

#include "activity/activity_events.hpp"

namespace signet {

class Background {
 public:
  explicit Background(Gateway& gateway);
  ~Background();
  void start();
  void stop();
  // After a request that may have changed activities: the dispatcher looks at once.
  void wake();

  class Worker;

 private:
  WorkerSpec checkpointWorker() const;

  Gateway& gateway_;
  ActivityEventDispatcher dispatcher_;
  std::vector<std::unique_ptr<Worker>> workers_;
  bool started_ = false;
};

}  // namespace signet
