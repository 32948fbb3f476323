// Gas sponsorship limits and what sponsored sends cost (upsert_gas_usage_config,
// get_gas_usage): a root organization sets a USD limit over a rolling window for itself and
// all its sub-organizations together, and one for each sub-organization alone. Every sponsored
// send that is included is recorded at its cost in USD (gas used × effective gas price × the
// chain's USD price), and a send that would pass either limit fails naming it.
#pragma once

#include <optional>
#include <string>

#include "quantity.hpp"
#include "signet/plugin.hpp"
#include "signet/typed_parameters.hpp"

namespace signing::broadcast {

struct GasConfig {
  std::string id;
  Uint128 orgLimitMicros = 0;  // USD × 10^6
  Uint128 subOrgLimitMicros = 0;
  int64_t windowMinutes = 0;
  bool enabled = false;
  bool rentPrefund = false;
};

std::optional<GasConfig> gasConfig(signet::Db& db, const std::string& billingOrganizationId);

struct SolanaGasConfigParameters {
  std::optional<bool> rentPrefundEnabled;
};
// The limits are USD amounts and the window whole minutes, all in decimal strings; enabled and
// rentPrefundEnabled keep what is configured when left out.
struct UpsertGasUsageConfigParameters {
  std::string orgWindowLimitUsd, subOrgWindowLimitUsd, windowDurationMinutes;
  std::optional<bool> enabled;
  std::optional<SolanaGasConfigParameters> solanaConfig;
};
extern const signet::Shape<UpsertGasUsageConfigParameters> kUpsertGasUsageConfig;

signet::json::Object upsertGasUsageConfig(signet::ActivityContext& ctx,
                                          const UpsertGasUsageConfigParameters& p);
signet::json::Object getGasUsage(signet::RequestContext& ctx, const signet::json::Object& body);

// The billing organization of `organizationId`: its parent, or itself for a root organization.
std::string billingOrganizationOf(signet::RequestContext& ctx, const std::string& organizationId);

// Refuses (FailedPrecondition, naming the setting or limit) a sponsored send that sponsorship
// does not cover: no configuration, disabled, or the usage in the window plus `extraMicros`
// past orgWindowLimitUsd or subOrgWindowLimitUsd.
void requireSponsorship(signet::Db& db, const std::string& organizationId,
                        const std::string& billingOrganizationId, Uint128 extraMicros,
                        int64_t nowMs);

void recordUsage(signet::Db& db, const std::string& sendId, const std::string& organizationId,
                 const std::string& billingOrganizationId, Uint128 micros, int64_t nowMs);

// wei × (USD × 10^6 per coin) / 10^18 (Ethereum), or lamports / 10^9 (Solana): a cost in
// micro-USD, rounded up.
Uint128 usdMicros(Uint128 baseUnits, Uint128 priceMicros, int decimals);

}  // namespace signing::broadcast
