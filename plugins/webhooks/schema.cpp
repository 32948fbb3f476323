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
            "created_at_ms BIGINT NOT NULL, retired_at_ms BIGINT NOT NULL)"}}};
}

}  // namespace webhooks
