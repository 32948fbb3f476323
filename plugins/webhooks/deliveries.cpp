#include "deliveries.hpp"

#include <Poco/Logger.h>

#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <thread>

#include "endpoints.hpp"
#include "filters.hpp"
#include "sender.hpp"
#include "signing_keys.hpp"

namespace webhooks {

using namespace signet;

namespace {

struct Claim {
  std::string id, endpointId, organizationId, eventId, eventType, body, url;
  int64_t attempts = 0;
};

// A fixed pool of sender threads with a queue; stop() lets the attempts in flight finish.
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
    for (;;) {
      std::function<void()> job;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        cv_.wait(lock, [&] { return stopping_ || !jobs_.empty(); });
        if (jobs_.empty()) return;
        job = std::move(jobs_.front());
        jobs_.pop_front();
      }
      job();
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

}  // namespace

void enqueueDeliveries(RequestContext& ctx, const ActivityEvent& event) {
  std::optional<std::string> body;  // written once a subscription matches: most events have none
  auto rows = ctx.db().query(
      "SELECT s.endpoint_id, s.filters_json, e.organization_id FROM webhook_subscriptions s JOIN "
      "webhook_endpoints e ON e.id = s.endpoint_id WHERE s.event_type = ? AND s.is_active = 1 "
      "AND e.is_active = 1 AND (e.organization_id = ? OR e.organization_id = ?)",
      {std::string(kActivityUpdates), event.organizationId,
       event.parentOrganizationId.empty() ? event.organizationId : event.parentOrganizationId});
  for (const auto& row : rows) {
    Filter filter;
    try {
      filter = parseFilter(row.str(1), "filtersJson");
    } catch (const Error&) {
      continue;  // checked when written; a filter that no longer parses matches nothing
    }
    if (!matches(filter, event.activityType, event.status)) continue;
    // At least once: the core may hand an event over again after a crash.
    if (ctx.db().queryOne("SELECT 1 FROM webhook_deliveries WHERE endpoint_id = ? AND event_id = ?",
                          {row.str(0), event.eventId}))
      continue;
    if (!body) body = json::stringify(event.activity);
    ctx.db().exec(
        "INSERT INTO webhook_deliveries (id, endpoint_id, organization_id, event_id, event_type, "
        "body, status, attempts, next_attempt_at_ms, claimed_until_ms, last_http_status, "
        "last_error, created_at_ms, updated_at_ms) VALUES (?, ?, ?, ?, ?, ?, 'pending', 0, 0, "
        "0, 0, '', ?, ?)",
        {ctx.newId(), row.str(0), event.organizationId, event.eventId,
         std::string(kActivityUpdates), *body, ctx.nowMs(), ctx.nowMs()});
  }
}

json::Object listDeliveries(RequestContext& ctx, const json::Object& body) {
  std::string endpointId = json::optionalString(body, "endpointId", "").value_or("");
  // An endpoint named must be the organization's: another's is not found, as for none (an
  // empty list would answer, too, but a refusal says why nothing is there).
  if (!endpointId.empty() &&
      !ctx.db().queryOne("SELECT 1 FROM webhook_endpoints WHERE id = ? AND organization_id = ?",
                         {endpointId, ctx.organizationId()}))
    throw notFound("webhook endpoint " + endpointId + " not found in organization " +
                   ctx.organizationId());
  return deliveriesOf(ctx, ctx.organizationId(), endpointId);
}

json::Object deliveriesOf(RequestContext& ctx, const std::string& organizationId,
                          const std::string& endpointId) {
  std::string sql =
      "SELECT d.id, d.endpoint_id, d.event_id, d.event_type, d.status, d.attempts, "
      "d.last_http_status, d.last_error, d.next_attempt_at_ms, d.created_at_ms, d.updated_at_ms "
      "FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id WHERE "
      "e.organization_id = ?";
  SqlParams params = {organizationId};
  if (!endpointId.empty()) {
    sql += " AND d.endpoint_id = ?";
    params.push_back(endpointId);
  }
  sql += " ORDER BY d.created_at_ms DESC, d.id LIMIT 100";
  json::Array list = json::array();
  for (const auto& r : ctx.db().query(sql, params)) {
    json::Object d = json::object();
    d->set("deliveryId", r.str(0));
    d->set("endpointId", r.str(1));
    d->set("eventId", r.str(2));
    d->set("eventType", r.str(3));
    d->set("status", r.str(4));
    d->set("attempts", r.i64(5));
    if (r.i64(6)) d->set("lastHttpStatus", r.i64(6));
    if (!r.str(7).empty()) d->set("lastError", r.str(7));
    if (r.str(4) == "pending") d->set("nextAttemptAt", json::timestamp(r.i64(8)));
    d->set("createdAt", json::timestamp(r.i64(9)));
    d->set("updatedAt", json::timestamp(r.i64(10)));
    list->add(d);
  }
  json::Object out = json::object();
  out->set("deliveries", list);
  return out;
}

int64_t Deliverer::retryWindowMs() const {
  int64_t total = 0;
  for (auto s : settings_->retryScheduleSeconds) total += s;
  return total * 1200 + 600'000;  // the schedule with its largest jitter, and ten minutes
}

void Deliverer::wake() {
  if (auto* w = worker_.load()) w->wake();
}

void Deliverer::run(WorkerContext& worker) {
  const Settings& s = *settings_;
  std::mutex inFlightMutex;
  std::map<std::string, int> inFlight;  // endpoint -> attempts running in this process
  int running = 0;
  SenderPool pool(s.senders);
  worker_ = &worker;

  auto attempt = [&, this](const Claim& c) {
    AttemptResult result;
    std::string kid, signature;
    int64_t timestamp = worker.nowMs();
    try {
      worker.transaction([&](RequestContext& ctx) {
        kid = currentKey(ctx).kid;
        signature = signDelivery(ctx, kid, timestamp, c.eventId, c.body);
      });
      result = postDelivery(c.url,
                            {{"X-Turnkey-Organization-Id", c.organizationId},
                             {"X-Turnkey-Event-Type", c.eventType},
                             {"X-Turnkey-Timestamp", std::to_string(timestamp)},
                             {"X-Turnkey-Webhook-Version", "1"},
                             {"X-Turnkey-Event-Id", c.eventId},
                             {"X-Turnkey-Signature-Key-Id", kid},
                             {"X-Turnkey-Signature-Algorithm", "ed25519"},
                             {"X-Turnkey-Signature-Version", "v1"},
                             {"X-Turnkey-Signature", signature}},
                            c.body, s.allowInsecureUrls, s.timeoutSeconds);
    } catch (const std::exception& e) {
      result.error = e.what();
    }
    int status = result.httpStatus;
    std::string outcome;
    int64_t attempts = c.attempts + 1, next = 0;
    if (status >= 200 && status < 300) {
      outcome = "delivered";
    } else if (status >= 300 && status < 500) {
      outcome = "failed";  // 3xx, 4xx and 429: the receiver's answer stands
    } else if (attempts > static_cast<int64_t>(s.retryScheduleSeconds.size())) {
      outcome = "dead";
    } else {
      outcome = "pending";
      next = worker.nowMs() + jittered(s.retryScheduleSeconds[attempts - 1]);
    }
    std::string error =
        status ? (status >= 300 ? "HTTP " + std::to_string(status) : "") : shortened(result.error);
    try {
      worker.transaction([&](RequestContext& ctx) {
        ctx.db().exec(
            "UPDATE webhook_deliveries SET status = ?, attempts = ?, next_attempt_at_ms = ?, "
            "claimed_until_ms = 0, last_http_status = ?, last_error = ?, updated_at_ms = ? WHERE "
            "id = ?",
            {outcome, attempts, next, int64_t(status), error, ctx.nowMs(), c.id});
      });
    } catch (const std::exception& e) {  // the claim runs out and the row is tried again
      Poco::Logger::get("signet.plugins")
          .error("webhooks: could not record delivery %s: %s", c.id, std::string(e.what()));
    }
    if (outcome == "dead")
      Poco::Logger::get("signet.plugins")
          .warning("webhooks: delivery %s of event %s to endpoint %s is dead after %s attempts: %s",
                   c.id, c.eventId, c.endpointId, std::to_string(attempts), error);
    {
      std::lock_guard<std::mutex> lock(inFlightMutex);
      --inFlight[c.endpointId];
      --running;
    }
    worker.wake();
  };

  while (!worker.stopping()) {
    std::vector<Claim> claims;
    try {
      int free;
      {
        std::lock_guard<std::mutex> lock(inFlightMutex);
        free = s.senders - running;
      }
      if (free > 0)
        worker.transaction([&](RequestContext& ctx) {
          int64_t now = ctx.nowMs();
          std::string sql =
              "SELECT d.id, d.endpoint_id, d.organization_id, d.event_id, d.event_type, d.body, "
              "d.attempts, e.url FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = "
              "d.endpoint_id WHERE d.status = 'pending' AND d.next_attempt_at_ms <= ? AND "
              "d.claimed_until_ms <= ? AND e.is_active = 1 ORDER BY d.next_attempt_at_ms, "
              "d.created_at_ms LIMIT 100";
          if (ctx.db().isPostgres()) sql += " FOR UPDATE OF d SKIP LOCKED";
          std::lock_guard<std::mutex> lock(inFlightMutex);
          for (const auto& r : ctx.db().query(sql, {now, now})) {
            if (static_cast<int>(claims.size()) >= free) break;
            if (inFlight[r.str(1)] >= s.concurrentPerEndpoint) continue;
            ++inFlight[r.str(1)];
            ++running;
            claims.push_back(
                {r.str(0), r.str(1), r.str(2), r.str(3), r.str(4), r.str(5), r.str(7), r.i64(6)});
            ctx.db().exec("UPDATE webhook_deliveries SET claimed_until_ms = ? WHERE id = ?",
                          {now + (2 * s.timeoutSeconds + 5) * 1000LL, r.str(0)});
          }
        });
    } catch (const std::exception& e) {
      // The claims were not recorded: forget them.
      std::lock_guard<std::mutex> lock(inFlightMutex);
      for (const auto& c : claims) {
        --inFlight[c.endpointId];
        --running;
      }
      claims.clear();
      Poco::Logger::get("signet.plugins")
          .error("webhooks: claiming deliveries failed: %s", std::string(e.what()));
    }
    for (const auto& c : claims) pool.submit([c, &attempt] { attempt(c); });
    worker.waitFor(claims.empty() ? 1000 : 20);
  }
  worker_ = nullptr;
  pool.stop();
}

}  // namespace webhooks
