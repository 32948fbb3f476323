// The activity event outbox (ActivityEvent in signet/plugin.hpp). A status change writes one
// row per subscribing module in the transaction that makes the change; after the commit, the
// dispatcher hands each row to its module's handler in a transaction that also deletes it. So a
// module sees every change at least once, across crashes and restarts, and a module whose
// handler fails holds up only itself: its row waits with a growing delay, the log says why, and
// the other modules go on.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "activity/activity_store.hpp"
#include "gateway.hpp"
#include "store/sql_connection.hpp"
#include "waiter.hpp"

namespace signet {

// Which subscribing modules want an activity's event (ActivityEventsSpec::interestQuery), asked
// before the write that changes the activity: on PostgreSQL the questions go with that write, in
// its round trip (queryAhead), and they see the change's handler's writes. No module is asked
// when the status is `previousStatus` (empty for a new activity): that write is no event.
// `knownParent`: the organization's parent ("" for a root organization) when the caller read it
// already, on a snapshot through the directory cache; an organization's parent never changes, so
// the store is not asked again.
struct EventInterest {
  std::string parentId;
  // Each subscriber, with its question's answer (a row when it wants the event); no question
  // when it wants every event.
  std::vector<std::pair<const std::string*, std::shared_ptr<RowsAhead>>> modules;
};
EventInterest askEventInterest(Gateway& gateway, Db& db, const ActivityRecord& record,
                               const std::string& previousStatus,
                               const std::optional<std::string>& knownParent = std::nullopt);
// Runs each module's interest query once, at start-up, so that a broken one (a table it does not
// have, a parameter too many) stops the gateway naming the module, instead of failing every
// activity with the database's error.
void checkEventInterestQueries(Gateway& gateway);
// Writes the record's event for each module that wants it, in the same transaction, after the
// write. Nothing when no module does.
void recordActivityEvent(Gateway& gateway, Db& db, const ActivityRecord& record,
                         const EventInterest& interest);

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
