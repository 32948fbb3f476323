// Proxy configurations in the coordinator's store (schema.cpp), one per organization.
#pragma once

#include <optional>
#include <string>

#include "signet/db.hpp"
#include "signet/json.hpp"
#include "signet/sealed_credentials.hpp"

namespace auth_proxy {

struct ProxyConfig {
  std::string configId;
  std::string organizationId;
  std::string userId;    // the proxy user
  std::string policyId;  // what lets that user run the forwarded activities
  std::string apiKeyId;  // empty while disabled
  std::string apiPublicKey;
  bool enabled = false;
  signet::json::Object settings;
  int64_t createdAtMs = 0;
  int64_t updatedAtMs = 0;
};

// The configurations' table and their one sealed part: the private half of the proxy's API key,
// sealed under "auth-proxy-key:<config id>" while the proxy is enabled.
const signet::SealedCredentials& proxyConfigs();
const signet::SealedCredentials::Part& proxyKeyPart();

std::optional<ProxyConfig> configOfOrganization(signet::Db& db, const std::string& organizationId);
std::optional<ProxyConfig> configById(signet::Db& db, const std::string& configId);
void insertConfig(signet::Db& db, const ProxyConfig& c);
void updateConfig(signet::Db& db, const ProxyConfig& c);

// {configId, organizationId, userId, policyId, enabled, apiPublicKey, settings, createdAt,
// updatedAt}: never the key.
signet::json::Object configJson(const ProxyConfig& c);

}  // namespace auth_proxy
