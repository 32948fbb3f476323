#include "background.hpp"

#include <Poco/Logger.h>

#include "activity/handler_context.hpp"
#include "waiter.hpp"

namespace signet {

// One module's worker: its thread and the WorkerContext it is given.
class Background::Worker : public WorkerContext {
 public:
  Worker(Gateway& gateway, std::string module, WorkerSpec spec)
      : gateway_(gateway), module_(std::move(module)), spec_(std::move(spec)) {}
  ~Worker() override { stop(); }

  void start() {
    thread_ = std::thread([this] {
      // A worker that returns early or fails is restarted after a pause, until shutdown: a
      // module's bug must not end its deliveries for good.
      while (!stopping()) {
        try {
          spec_.run(*this);
        } catch (const std::exception& e) {
          Poco::Logger::get("signet.plugins")
              .error("worker %s of module %s failed: %s", spec_.name, module_,
                     std::string(e.what()));
        }
        waitFor(1000);
      }
    });
  }
  void stop() {
    waiter_.stop();
    if (thread_.joinable()) thread_.join();
  }

  bool waitFor(int64_t ms) override { return waiter_.waitFor(ms); }
  bool stopping() const override { return waiter_.stopping(); }
  void wake() override { waiter_.wake(); }
  void transaction(const std::function<void(RequestContext&)>& fn) override {
    inTransaction(gateway_, fn);
  }
  void read(const std::function<void(RequestContext&)>& fn) override { onSnapshot(gateway_, fn); }
  int64_t nowMs() const override { return gateway_.nowMs(); }

 private:
  Gateway& gateway_;
  std::string module_;
  WorkerSpec spec_;
  std::thread thread_;
  Waiter waiter_;
};

Background::Background(Gateway& gateway) : gateway_(gateway), dispatcher_(gateway) {}

Background::~Background() {
  stop();
}

void Background::start() {
  if (started_) return;
  started_ = true;
  dispatcher_.start();
  for (const auto& m : gateway_.catalog().modules()) {
    if (!m->enabled) continue;
    for (const auto& spec : m->workers) {
      workers_.push_back(std::make_unique<Worker>(gateway_, m->name, spec));
      workers_.back()->start();
    }
  }
}

void Background::stop() {
  for (auto& w : workers_) w->stop();
  workers_.clear();
  dispatcher_.stop();
}

void Background::wake() {
  dispatcher_.wake();
}

}  // namespace signet
