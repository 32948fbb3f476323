// The activity event outbox (ActivityEvent in signet/plugin.hpp). A status change writes one
// row per subscribing module in the transaction that makes the change; after the commit, the
// dispatcher hands each row to its module's handler in a transaction that also deletes it. So a
// module sees every change at least once, across crashes and restarts, and a module whose
// handler fails holds up only itself: its row waits with a growing delay, the log says why, and
// the other modules go on.
#pragma once

#include <optional>
#include <string>
#include <thread>

#include "activity/activity_store.hpp"
#include "gateway.hpp"
#include "waiter.hpp"

namespace signet {

// Records the record's status for every subscribing module that is interested in the record's
// organization (ActivityEventsSpec::interested) when it differs from `previousStatus` (empty for
// a new activity). Nothing when no module wants it.
// `knownParent`: the organization's parent ("" for a root organization) when the caller read it
// already, on a snapshot through the directory cache; an organization's parent never changes, so
// the store is not asked again.
void recordActivityEvent(Gateway& gateway, Db& db, const ActivityRecord& record,
                         const std::string& previousStatus,
                         const std::optional<std::string>& knownParent = std::nullopt);

// Hands the outbox to the modules' handlers until stop().
class ActivityEventDispatcher {
 public:
  explicit ActivityEventDispatcher(Gateway& gateway);
  ~ActivityEventDispatcher();
  void start();
  void stop();
  void wake();
  // Handles what is in the outbox now; returns how many events were handled (tests).
  size_t drain();

 private:
  void run();
  size_t drainModule(const std::string& module, const ActivityEventHandler& handler);

  Gateway& gateway_;
  std::thread thread_;
  Waiter waiter_;
};

}  // namespace signet
