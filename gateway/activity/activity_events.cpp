#include "activity/activity_events.hpp"

#include <Poco/Logger.h>

#include <algorithm>
#include <atomic>
#include <chrono>

#include "activity/handler_context.hpp"
#include "store/sql_connection.hpp"
#include "tenancy/directory.hpp"

namespace signet {

namespace {

// Orders a module's events: microseconds since the epoch, strictly increasing in this process
// (two changes in one microsecond still get two positions).
int64_t nextPosition() {
  static std::atomic<int64_t> last{0};
  int64_t now = std::chrono::duration_cast<std::chrono::microseconds>(
                    std::chrono::system_clock::now().time_since_epoch())
                    .count();
  int64_t seen = last.load();
  int64_t next;
  do {
    next = std::max(now, seen + 1);
  } while (!last.compare_exchange_weak(seen, next));
  return next;
}

// How long an event whose handler failed waits: 1 s, doubling, at most 5 minutes.
int64_t retryDelayMs(int64_t attempts) {
  return std::min<int64_t>(1000LL << std::min<int64_t>(attempts, 20), 300'000);
}

constexpr int64_t kPollMs = 500;
constexpr size_t kEventsPerPass = 500;  // per module, so that one busy module cannot starve others
constexpr size_t kEventsPerBatch = 100;

}  // namespace

EventInterest askEventInterest(Gateway& gateway, Db& db, const ActivityRecord& record,
                               const std::string& previousStatus,
                               const std::optional<std::string>& knownParent) {
  EventInterest interest;
  const auto& subscribers = gateway.catalog().services().activityEventSubscribers;
  if (subscribers.empty() || record.status == previousStatus) return interest;
  // An activity that deleted its own organization (delete_sub_organization) leaves no row to
  // read the parent from: its event then names no parent.
  if (knownParent) {
    interest.parentId = *knownParent;
  } else if (auto org = directory::findOrganization(db, record.organizationId);
             org && org->parentId) {
    interest.parentId = *org->parentId;
  }
  const std::string& parentOrSelf =
      interest.parentId.empty() ? record.organizationId : interest.parentId;
  for (const auto& [module, spec] : subscribers)
    interest.modules.push_back(
        {&module, spec.interestQuery.empty()
                      ? nullptr
                      : db.queryAhead(spec.interestQuery, {record.organizationId, parentOrSelf})});
  return interest;
}

void checkEventInterestQueries(Gateway& gateway) {
  for (const auto& [module, spec] : gateway.catalog().services().activityEventSubscribers) {
    // A name of its own: clang 14 refuses a lambda that captures a structured binding.
    const std::string& query = spec.interestQuery;
    if (query.empty()) continue;
    try {
      gateway.database().read([&](Db& db) { db.query(query, {std::string(), std::string()}); });
    } catch (const StoreUnavailable&) {
      throw;
    } catch (const std::exception& e) {
      throw failedPrecondition("module '" + module +
                               "': its activity event interest query fails: " + e.what());
    }
  }
}

void recordActivityEvent(Gateway& gateway, Db& db, const ActivityRecord& record,
                         const EventInterest& interest) {
  // Only the modules that want this organization's events get a row; when none does, the
  // activity is neither rendered nor written a second time.
  std::vector<const std::string*> interested;
  for (const auto& [module, answer] : interest.modules)
    if (!answer || !answer->rows().empty()) interested.push_back(module);
  if (interested.empty()) return;
  std::string activity = json::stringify(activities::toJson(record, Caller{}));
  const int64_t now = gateway.nowMs();
  std::string eventId = crypto::uuidV7(now);
  int64_t position = nextPosition();
  gateway.countActivityEventsWritten(interested.size());
  // Fresh keys that nothing but the store's own trouble can refuse: on PostgreSQL the rows go
  // with whatever is sent next (docs/durability.md).
  for (const std::string* module : interested)
    execUnanswered(
        db,
        "INSERT INTO activity_events (module, event_id, position, activity_id, organization_id, "
        "parent_organization_id, activity_type, status, activity, created_at_ms, attempts, "
        "next_attempt_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 0)",
        {*module, eventId, position, record.id, record.organizationId, interest.parentId,
         record.type, record.status, activity, now});
}

ActivityEventDispatcher::ActivityEventDispatcher(Gateway& gateway) : gateway_(gateway) {}

ActivityEventDispatcher::~ActivityEventDispatcher() {
  stop();
}

void ActivityEventDispatcher::start() {
  if (gateway_.catalog().services().activityEventSubscribers.empty()) return;
  thread_ = std::thread([this] { run(); });
}

void ActivityEventDispatcher::stop() {
  waiter_.stop();
  if (thread_.joinable()) thread_.join();
}

void ActivityEventDispatcher::wake() {
  waiter_.wake();
}

void ActivityEventDispatcher::run() {
  for (;;) {
    try {
      drain();
    } catch (const std::exception& e) {  // the store is unreachable: try again at the next poll
      Poco::Logger::get("signet.activity")
          .error("activity events: %s; retrying in %d ms", std::string(e.what()), int(kPollMs));
    }
    if (!waiter_.waitFor(kPollMs)) return;
  }
}

size_t ActivityEventDispatcher::drain() {
  // Most passes find the outbox empty (a poll with nothing written, or a wake whose event a pass
  // already took): a read, beside the writers, says so without taking the write lock.
  bool due = false;
  gateway_.database().read([&](Db& db) {
    due = db.queryOne("SELECT 1 FROM activity_events WHERE next_attempt_at_ms <= ? LIMIT 1",
                      {gateway_.nowMs()})
              .has_value();
  });
  if (!due) return 0;
  size_t handled = 0;
  for (const auto& [module, spec] : gateway_.catalog().services().activityEventSubscribers)
    handled += drainModule(module, spec.handler);
  return handled;
}

size_t ActivityEventDispatcher::drainModule(const std::string& module,
                                            const ActivityEventHandler& handler) {
  size_t handled = 0;
  // Events are handled in batches, one transaction each: a commit per event would cost a sync
  // per activity on top of the activity's own. When a batch fails, this pass goes on one event
  // at a time, so that only the failing event waits for its retry.
  bool oneByOne = false;
  while (handled < kEventsPerPass) {
    if (waiter_.stopping()) break;
    std::string eventId;
    int64_t attempts = 0;
    size_t done = 0;
    try {
      gateway_.database().transaction([&](Db& db) {
        // Several gateways on one PostgreSQL store each take different rows.
        std::string sql =
            "SELECT event_id, activity_id, organization_id, parent_organization_id, "
            "activity_type, status, activity, created_at_ms, attempts FROM activity_events "
            "WHERE module = ? AND next_attempt_at_ms <= ? ORDER BY position LIMIT " +
            std::to_string(oneByOne ? 1 : kEventsPerBatch);
        if (db.isPostgres()) sql += " FOR UPDATE SKIP LOCKED";
        Caller nobody;
        HandlerContext ctx(gateway_, db, nobody, "");
        for (const auto& row : db.query(sql, {module, gateway_.nowMs()})) {
          ActivityEvent e;
          e.eventId = eventId = row.str("event_id");
          e.activityId = row.str("activity_id");
          e.organizationId = row.str("organization_id");
          e.parentOrganizationId = row.str("parent_organization_id");
          e.activityType = row.str("activity_type");
          e.status = row.str("status");
          e.activity = json::parseObject(row.str("activity"), "stored activity event");
          e.createdAtMs = row.i64("created_at_ms");
          attempts = row.i64("attempts");
          handler(ctx, e);
          db.exec("DELETE FROM activity_events WHERE module = ? AND event_id = ?",
                  {module, eventId});
          ++done;
        }
      });
      if (done == 0) break;
      handled += done;
    } catch (const std::exception& e) {
      if (eventId.empty()) throw;  // the store itself failed
      if (!oneByOne) {
        oneByOne = true;  // the batch rolled back: find the event that fails
        continue;
      }
      int64_t delay = retryDelayMs(attempts);
      Poco::Logger::get("signet.activity")
          .error("module %s failed to handle activity event %s (attempt %s): %s; again in %s ms",
                 module, eventId, std::to_string(attempts + 1), std::string(e.what()),
                 std::to_string(delay));
      gateway_.database().transaction([&](Db& db) {
        db.exec(
            "UPDATE activity_events SET attempts = attempts + 1, next_attempt_at_ms = ? WHERE "
            "module = ? AND event_id = ?",
            {gateway_.nowMs() + delay, module, eventId});
      });
    }
  }
  return handled;
}

}  // namespace signet
