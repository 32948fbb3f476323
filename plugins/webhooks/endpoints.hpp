// The webhook endpoint operations: create_webhook_endpoint, update_webhook_endpoint,
// delete_webhook_endpoint and list_webhook_endpoints, and the legacy FEATURE_NAME_WEBHOOK
// (an endpoint of its own, kept in step with the feature). Only ACTIVITY_UPDATES can be
// subscribed to: the balance and transaction-status events need balance tracking and
// broadcasting, which this gateway does not do.
#pragma once

#include <memory>

#include "settings.hpp"
#include "signet/plugin.hpp"
#include "signet/typed_parameters.hpp"

namespace webhooks {

inline constexpr const char* kActivityUpdates = "ACTIVITY_UPDATES";

struct SubscriptionParameters {
  std::string eventType;
  std::optional<std::string> filtersJson;
  std::optional<bool> isActive;
};
struct CreateEndpointParameters {
  std::string url, name;
  std::optional<std::vector<SubscriptionParameters>> subscriptions;
};
struct UpdateEndpointParameters {
  std::string endpointId;
  std::optional<std::string> url, name;
  std::optional<bool> isActive;
};
struct DeleteEndpointParameters {
  std::string endpointId;
};
extern const signet::Shape<CreateEndpointParameters> kCreateEndpoint;
extern const signet::Shape<UpdateEndpointParameters> kUpdateEndpoint;
extern const signet::Shape<DeleteEndpointParameters> kDeleteEndpoint;

struct EndpointOps {
  std::shared_ptr<const Settings> settings;
  signet::json::Object create(signet::ActivityContext& ctx,
                              const CreateEndpointParameters& p) const;
  signet::json::Object update(signet::ActivityContext& ctx,
                              const UpdateEndpointParameters& p) const;
  signet::json::Object remove(signet::ActivityContext& ctx,
                              const DeleteEndpointParameters& p) const;
  signet::json::Object list(signet::RequestContext& ctx, const signet::json::Object& body) const;
  // organization.feature_set / feature_removed of FEATURE_NAME_WEBHOOK.
  void featureChanged(signet::ActivityContext& ctx, const std::string& event,
                      const signet::json::Object& payload) const;
};

// Removes a deleted organization's endpoints, subscriptions and deliveries.
void forgetOrganization(signet::ActivityContext& ctx, const std::string& organizationId, bool);

}  // namespace webhooks
