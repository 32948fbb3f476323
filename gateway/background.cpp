#include "background.hpp"

#include <Poco/Logger.h>

#include "activity/handler_context.hpp"
#include "log/checkpoint.hpp"
#include "log/witnesses.hpp"
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

// The activity log's checkpoints: while the log grows, its head is signed and kept at least
// every log.checkpointSeconds (log/checkpoint.hpp). A head already signed is not signed again.
// Each configured witness is then asked to cosign it (log/witnesses.hpp); one that cannot be
// reached is asked again next time, and the others are asked meanwhile.
WorkerSpec Background::checkpointWorker() const {
  const int64_t everyMs = int64_t{gateway_.config().logCheckpointSeconds} * 1000;
  return {"log-checkpoints", [this, everyMs](WorkerContext& w) {
            do {
              uint64_t size = 0;
              w.transaction([&](RequestContext& ctx) {
                size = log_checkpoint::issue(ctx.db(), ctx.keyring(), ctx.nowMs()).size;
              });
              for (const auto& witness : gateway_.config().logWitnesses) {
                try {
                  log_witnesses::requestCosignature(gateway_.database(), witness, size);
                } catch (const std::exception& e) {
                  Poco::Logger::get("signet.log").warning("%s", std::string(e.what()));
                }
              }
            } while (w.waitFor(everyMs));
          }};
}

Background::Background(Gateway& gateway) : gateway_(gateway), dispatcher_(gateway) {}

Background::~Background() {
  stop();
}

void Background::start() {
  if (started_) return;
  started_ = true;
  dispatcher_.start();
  workers_.push_back(std::make_unique<Worker>(gateway_, "core", checkpointWorker()));
  workers_.back()->start();
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
