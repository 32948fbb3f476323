#include "schema.hpp"

namespace webhooks {

// Endpoints with their subscriptions; the delivery outbox, one row per (endpoint, event), which
// the workers of every gateway on the store claim and retry; and the signing keys' public
// halves (the private halves are in the keyring, "webhook-key:<kid>").
std::vector<signet::Migration> migrations() {
  return {{1,
           "webhook endpoints, subscriptions, deliveries and signing keys",
           {"CREATE TABLE webhook_endpoints (id TEXT PRIMARY KEY, organization_id TEXT NOT NULL, "
            "name TEXT NOT NULL, url TEXT NOT NULL, is_active INTEGER NOT NULL, legacy INTEGER "
            "NOT NULL, created_at_ms BIGINT NOT NULL, updated_at_ms BIGINT NOT NULL)",
            "CREATE INDEX webhook_endpoints_organization ON webhook_endpoints (organization_id)",
            "CREATE TABLE webhook_subscriptions (id TEXT PRIMARY KEY, endpoint_id TEXT NOT NULL, "
            "event_type TEXT NOT NULL, filters_json TEXT NOT NULL, is_active INTEGER NOT NULL, "
            "position INTEGER NOT NULL)",
            "CREATE INDEX webhook_subscriptions_endpoint ON webhook_subscriptions (endpoint_id)",
            "CREATE TABLE webhook_deliveries (id TEXT PRIMARY KEY, endpoint_id TEXT NOT NULL, "
            "organization_id TEXT NOT NULL, event_id TEXT NOT NULL, event_type TEXT NOT NULL, "
            "body TEXT NOT NULL, status TEXT NOT NULL, attempts BIGINT NOT NULL, "
            "next_attempt_at_ms BIGINT NOT NULL, claimed_until_ms BIGINT NOT NULL, "
            "last_http_status BIGINT NOT NULL, last_error TEXT NOT NULL, created_at_ms BIGINT NOT "
            "NULL, updated_at_ms BIGINT NOT NULL, UNIQUE (endpoint_id, event_id))",
            "CREATE INDEX webhook_deliveries_due ON webhook_deliveries (status, "
            "next_attempt_at_ms)",
            "CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id, "
            "created_at_ms)",
            "CREATE TABLE webhook_keys (kid TEXT PRIMARY KEY, public_key TEXT NOT NULL, "
            "created_at_ms BIGINT NOT NULL, retired_at_ms BIGINT NOT NULL)"}},
          // An event's body once, however many endpoints it goes to, and only while one of
          // them still waits for it. Each endpoint counts its backlog (pending deliveries) and
          // what it dropped past maxBacklogPerEndpoint, and carries the lease of the one sender
          // (of any gateway on the store) that may send to it: one attempt in flight an
          // endpoint. A delivery is claimed by moving its next attempt to the lease's end. The
          // index serves the sender's one question: an endpoint's next due delivery.
          {2,
           "webhook payloads stored once, per-endpoint backlog, dropped count and sending lease",
           {"CREATE TABLE webhook_payloads (event_id TEXT PRIMARY KEY, body TEXT NOT NULL, "
            "created_at_ms BIGINT NOT NULL)",
            "INSERT INTO webhook_payloads (event_id, body, created_at_ms) SELECT event_id, "
            "MIN(body), MIN(created_at_ms) FROM webhook_deliveries WHERE status = 'pending' "
            "GROUP BY event_id",
            "ALTER TABLE webhook_deliveries DROP COLUMN body",
            "ALTER TABLE webhook_deliveries DROP COLUMN claimed_until_ms",
            "DROP INDEX webhook_deliveries_due",
            "CREATE INDEX webhook_deliveries_next ON webhook_deliveries (endpoint_id, status, "
            "next_attempt_at_ms, created_at_ms)",
            "CREATE INDEX webhook_deliveries_event ON webhook_deliveries (event_id)",
            "ALTER TABLE webhook_endpoints ADD COLUMN backlog BIGINT NOT NULL DEFAULT 0",
            "ALTER TABLE webhook_endpoints ADD COLUMN dropped BIGINT NOT NULL DEFAULT 0",
            "ALTER TABLE webhook_endpoints ADD COLUMN sending_until_ms BIGINT NOT NULL DEFAULT 0",
            "UPDATE webhook_endpoints SET backlog = (SELECT COUNT(*) FROM webhook_deliveries d "
            "WHERE d.endpoint_id = webhook_endpoints.id AND d.status = 'pending')"}}};
}

}  // namespace webhooks
