// The webhook endpoint operations: create_webhook_endpoint, update_webhook_endpoint,
// delete_webhook_endpoint and list_webhook_endpoints, and the legacy FEATURE_NAME_WEBHOOK
// (an endpoint of its own, kept in step with the feature). Only ACTIVITY_UPDATES can be
// subscribed to: the balance and transaction-status events need balance tracking and
// broadcasting, which this gateway does not do.
#pragma once

#include <memory>

#include "settings.hpp"
#include "signet/plugin.hpp"

namespace webhooks {

inline constexpr const char* kActivityUpdates = "ACTIVITY_UPDATES";

struct EndpointOps {
  std::shared_ptr<const Settings> settings;
  signet::json::Object create(signet::ActivityContext& ctx, const signet::json::Object& p) const;
  signet::json::Object update(signet::ActivityContext& ctx, const signet::json::Object& p) const;
  signet::json::Object remove(signet::ActivityContext& ctx, const signet::json::Object& p) const;
  signet::json::Object list(signet::RequestContext& ctx, const signet::json::Object& body) const;
  // organization.feature_set / feature_removed of FEATURE_NAME_WEBHOOK.
  void featureChanged(signet::ActivityContext& ctx, const std::string& event,
                      const signet::json::Object& payload) const;
};

// Removes a deleted organization's endpoints, subscriptions and deliveries.
void forgetOrganization(signet::ActivityContext& ctx, const std::string& organizationId, bool);

}  // namespace webhooks
