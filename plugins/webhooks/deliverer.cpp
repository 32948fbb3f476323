#include "deliverer.hpp"

#include <Poco/Logger.h>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>
#include <random>
#include <thread>

#include "deliveries.hpp"
#include "sender.hpp"
#include "signet/memory.hpp"
#include "signing_keys.hpp"

namespace webhooks {

using namespace signet;

struct Deliverer::Claim {
  std::string id, endpointId, url, organizationId, eventId, eventType, body;
  int64_t attempts = 0;
  std::string kid, signature;
  int64_t timestampMs = 0;
};

namespace {

// A fixed pool of sender threads with a queue; stop() lets the endpoints' turns finish.
class SenderPool {
 public:
  explicit SenderPool(int threads) {
    for (int i = 0; i < threads; ++i) threads_.emplace_back([this] { work(); });
  }
  ~SenderPool() { stop(); }
  void submit(std::function<void()> job) {
    std::lock_guard<std::mutex> lock(mutex_);
    jobs_.push_back(std::move(job));
    cv_.notify_one();
  }
  void stop() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    cv_.notify_all();
    for (auto& t : threads_)
      if (t.joinable()) t.join();
  }

 private:
  void work() {
    // A sender idle for a second gives back what its last turns freed: a drained backlog's rows
    // passed through it, and the allocator would keep their pages for its next allocation.
    IdleRelease idle;
    for (;;) {
      std::function<void()> job;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        if (!cv_.wait_for(lock, std::chrono::seconds(1),
                          [&] { return stopping_ || !jobs_.empty(); })) {
          lock.unlock();
          idle.waitedIdle();
          continue;
        }
        if (jobs_.empty()) return;
        job = std::move(jobs_.front());
        jobs_.pop_front();
      }
      job();
      idle.worked();
    }
  }
  std::vector<std::thread> threads_;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> jobs_;
  bool stopping_ = false;
};

int64_t jittered(int64_t seconds) {
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  std::uniform_real_distribution<double> factor(0.8, 1.2);
  return static_cast<int64_t>(static_cast<double>(seconds) * 1000.0 * factor(rng));
}

std::string shortened(std::string s) {
  if (s.size() > 500) s = s.substr(0, 497) + "...";
  return s;
}

Poco::Logger& log() {
  return Poco::Logger::get("signet.plugins");
}

// The endpoint is handed back: its lease ends now, and the time orders the endpoints waiting
// for a sender (the longest without one first).
void release(RequestContext& ctx, const std::string& endpointId) {
  ctx.db().exec("UPDATE webhook_endpoints SET sending_until_ms = ? WHERE id = ?",
                {ctx.nowMs(), endpointId});
}

// Active endpoints with a delivery due and no sender holding their lease; the parameters are the
// time, twice.
const char* const kEndpointsDue =
    "SELECT id FROM webhook_endpoints e WHERE is_active = 1 AND backlog > 0 AND "
    "sending_until_ms <= ? AND EXISTS (SELECT 1 FROM webhook_deliveries d WHERE "
    "d.endpoint_id = e.id AND d.status = 'pending' AND d.next_attempt_at_ms <= ?)";

// Whether a pass would take any endpoint. Most passes find none (no endpoint, or nothing due):
// a read, beside the writers, says so without a write transaction, which on SQLite takes the
// store's one write lock and a place in a group commit's batch every second for nothing.
bool anyEndpointDue(WorkerContext& worker) {
  bool due = false;
  worker.read([&](RequestContext& ctx) {
    int64_t now = ctx.nowMs();
    due = ctx.db().queryOne(std::string(kEndpointsDue) + " LIMIT 1", {now, now}).has_value();
  });
  return due;
}

}  // namespace

int64_t Deliverer::retryWindowMs() const {
  int64_t total = 0;
  for (auto s : settings_->retryScheduleSeconds) total += s;
  return total * 1200 + 600'000;  // the schedule with its largest jitter, and ten minutes
}

int64_t Deliverer::leaseEnd(int64_t nowMs) const {
  return nowMs + (2 * settings_->timeoutSeconds + 5) * 1000LL;
}

void Deliverer::wake() {
  woken_ = true;
  if (auto* w = worker_.load()) w->wake();
}

// The endpoint's next due delivery, claimed by moving its next attempt to the lease's end, and
// signed; nothing when the endpoint has nothing due or is gone or inactive.
std::optional<Deliverer::Claim> Deliverer::claimNext(RequestContext& ctx,
                                                     const std::string& endpointId) {
  auto e = ctx.db().queryOne(
      "SELECT url, organization_id FROM webhook_endpoints WHERE id = ? AND is_active = 1",
      {endpointId});
  if (!e) return std::nullopt;
  int64_t now = ctx.nowMs();
  for (;;) {
    auto d = ctx.db().queryOne(
        "SELECT d.id, d.organization_id, d.event_id, d.event_type, d.attempts, p.body FROM "
        "webhook_deliveries d LEFT JOIN webhook_payloads p ON p.event_id = d.event_id WHERE "
        "d.endpoint_id = ? AND d.status = 'pending' AND d.next_attempt_at_ms <= ? ORDER BY "
        "d.next_attempt_at_ms, d.created_at_ms LIMIT 1",
        {endpointId, now});
    if (!d) return std::nullopt;
    Claim c;
    c.id = d->str("id");
    c.endpointId = endpointId;
    c.url = e->str("url");
    c.organizationId = d->str("organization_id");
    c.eventId = d->str("event_id");
    c.eventType = d->str("event_type");
    c.attempts = d->i64("attempts");
    c.body = d->optStr("body").value_or("");
    if (d->isNull("body")) {  // never written so; a store edited by hand, say: end it, say why
      record(ctx, c, 0, "the event's body is missing from the store (webhook_payloads)");
      continue;
    }
    int64_t lease = leaseEnd(now);
    ctx.db().exec("UPDATE webhook_deliveries SET next_attempt_at_ms = ? WHERE id = ?",
                  {lease, c.id});
    ctx.db().exec("UPDATE webhook_endpoints SET sending_until_ms = ? WHERE id = ?",
                  {lease, endpointId});
    c.timestampMs = now;
    c.kid = currentKey(ctx).kid;
    c.signature = signDelivery(ctx, c.kid, c.timestampMs, c.eventId, c.body);
    return c;
  }
}

// The outcome of one attempt (httpStatus 0: no answer, `failure` says why).
void Deliverer::record(RequestContext& ctx, const Claim& c, int status,
                       const std::string& failure) {
  const Settings& s = *settings_;
  std::string outcome;
  int64_t attempts = c.attempts + 1, next = 0;
  if (c.body.empty()) {
    outcome = "dead";
  } else if (status >= 200 && status < 300) {
    outcome = "delivered";
  } else if (status >= 300 && status < 500) {
    outcome = "failed";  // 3xx, 4xx and 429: the receiver's answer stands
  } else if (attempts > static_cast<int64_t>(s.retryScheduleSeconds.size())) {
    outcome = "dead";
  } else {
    outcome = "pending";
    next = ctx.nowMs() + jittered(s.retryScheduleSeconds[attempts - 1]);
  }
  std::string error = status >= 300 ? "HTTP " + std::to_string(status) : shortened(failure);
  // Only a pending row: one dropped meanwhile stays dropped.
  size_t changed = ctx.db().exec(
      "UPDATE webhook_deliveries SET status = ?, attempts = ?, next_attempt_at_ms = ?, "
      "last_http_status = ?, last_error = ?, updated_at_ms = ? WHERE id = ? AND status = "
      "'pending'",
      {outcome, attempts, next, int64_t(status), error, ctx.nowMs(), c.id});
  if (changed && outcome != "pending") deliveryEnded(ctx.db(), c.endpointId, c.eventId);
  if (changed && outcome == "dead")
    log().warning("webhooks: delivery %s of event %s to endpoint %s is dead after %s attempts: %s",
                  c.id, c.eventId, c.endpointId, std::to_string(attempts), error);
}

// One endpoint's turn: its due deliveries, one at a time, until none is due, the turn is over
// or the gateway stops. A transaction that fails leaves the lease and the claim to run out.
void Deliverer::drain(WorkerContext& worker, const std::string& endpointId) {
  auto started = std::chrono::steady_clock::now();
  std::optional<Claim> next;
  try {
    worker.transaction([&](RequestContext& ctx) {
      next = claimNext(ctx, endpointId);
      if (!next) release(ctx, endpointId);
    });
  } catch (const std::exception& e) {
    log().error("webhooks: claiming a delivery for endpoint %s failed: %s", endpointId,
                std::string(e.what()));
    return;
  }
  for (int turn = 1; next; ++turn) {
    Claim c = std::move(*next);
    next.reset();
    auto result = postDelivery(c.url,
                               {{"X-Turnkey-Organization-Id", c.organizationId},
                                {"X-Turnkey-Event-Type", c.eventType},
                                {"X-Turnkey-Timestamp", std::to_string(c.timestampMs)},
                                {"X-Turnkey-Webhook-Version", "1"},
                                {"X-Turnkey-Event-Id", c.eventId},
                                {"X-Turnkey-Signature-Key-Id", c.kid},
                                {"X-Turnkey-Signature-Algorithm", "ed25519"},
                                {"X-Turnkey-Signature-Version", "v1"},
                                {"X-Turnkey-Signature", c.signature}},
                               c.body, settings_->allowInsecureUrls, settings_->timeoutSeconds);
    bool more = !worker.stopping() && turn < kTurnDeliveries &&
                std::chrono::steady_clock::now() - started < std::chrono::milliseconds(kTurnMs);
    try {
      worker.transaction([&](RequestContext& ctx) {
        next.reset();  // a transaction tried again starts over
        record(ctx, c, result.httpStatus, result.error);
        if (more) next = claimNext(ctx, endpointId);
        if (!next) release(ctx, endpointId);
      });
    } catch (const std::exception& e) {
      next.reset();
      log().error("webhooks: could not record delivery %s: %s", c.id, std::string(e.what()));
    }
  }
}

void Deliverer::run(WorkerContext& worker) {
  const Settings& s = *settings_;
  std::atomic<int> running{0};
  SenderPool pool(s.senders);
  worker_ = &worker;
  while (!worker.stopping()) {
    std::vector<std::string> taken;
    int free = s.senders - running.load();
    try {
      // A wake comes from inside the transaction that writes new deliveries, before its COMMIT:
      // a read may not see them yet, where the write transaction waits behind that batch (on
      // SQLite's one write lane) and does. So a wake goes straight to the write.
      if (free > 0 && (woken_.exchange(false) || anyEndpointDue(worker)))
        worker.transaction([&](RequestContext& ctx) {
          taken.clear();
          int64_t now = ctx.nowMs();
          std::string sql = std::string(kEndpointsDue) + " ORDER BY sending_until_ms LIMIT " +
                            std::to_string(free);
          if (ctx.db().isPostgres()) sql += " FOR UPDATE SKIP LOCKED";
          for (const auto& r : ctx.db().query(sql, {now, now}))
            if (ctx.db().exec("UPDATE webhook_endpoints SET sending_until_ms = ? WHERE id = ? AND "
                              "sending_until_ms <= ?",
                              {leaseEnd(now), r.str("id"), now}) == 1)
              taken.push_back(r.str("id"));
        });
    } catch (const std::exception& e) {  // the leases were not taken
      taken.clear();
      log().error("webhooks: looking for due deliveries failed: %s", std::string(e.what()));
    }
    for (const auto& id : taken) {
      ++running;
      pool.submit([this, &worker, &running, id] {
        drain(worker, id);
        --running;
        worker.wake();
      });
    }
    worker.waitFor(1000);
  }
  worker_ = nullptr;
  pool.stop();
}

}  // namespace webhooks
