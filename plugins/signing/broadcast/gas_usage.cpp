#include "gas_usage.hpp"

namespace signing::broadcast {

using namespace signet;

namespace {
constexpr int64_t kMaxWindowMinutes = 43200;  // 30 days, the API's bound

Uint128 usage(Db& db, const char* column, const std::string& organizationId, int64_t sinceMs) {
  Uint128 total = 0;
  // Summed here rather than in SQL: the two stores' integer sums differ past 64 bits.
  for (const auto& r : db.query(std::string("SELECT usd_micros FROM signing_gas_usage WHERE ") +
                                    column + " = ? AND at_ms >= ?",
                                {organizationId, sinceMs}))
    total += static_cast<Uint128>(r.i64("usd_micros"));
  return total;
}

// parameters.<key>, `text`: a USD amount, in micro-USD.
Uint128 usdParam(const std::string& text, const char* key) {
  auto v = parseFixed(text, 6);
  if (!v)
    throw invalidArgument(std::string("invalid field parameters.") + key + ": \"" + text +
                          "\" (a USD amount such as \"50\" or \"12.5\")");
  return *v;
}

Error overLimit(const char* limit, Uint128 limitMicros, Uint128 usedMicros, int64_t minutes) {
  return failedPrecondition(std::string("gas sponsorship limit reached: ") + limit + " is " +
                            fixedToDecimal(limitMicros, 6) + " USD per " + std::to_string(minutes) +
                            " minutes, and " + fixedToDecimal(usedMicros, 6) +
                            " USD is used or would be with this send");
}

const Shape<SolanaGasConfigParameters> kSolanaGasConfig = {
    field("rentPrefundEnabled", &SolanaGasConfigParameters::rentPrefundEnabled)};
using UpsertP = UpsertGasUsageConfigParameters;
}  // namespace

std::optional<GasConfig> gasConfig(Db& db, const std::string& billingOrganizationId) {
  auto r = db.queryOne(
      "SELECT id, org_limit_micros, sub_org_limit_micros, window_minutes, enabled, rent_prefund "
      "FROM signing_gas_configs WHERE organization_id = ?",
      {billingOrganizationId});
  if (!r) return std::nullopt;
  return GasConfig{r->str("id"),
                   static_cast<Uint128>(r->i64("org_limit_micros")),
                   static_cast<Uint128>(r->i64("sub_org_limit_micros")),
                   r->i64("window_minutes"),
                   r->i64("enabled") != 0,
                   r->i64("rent_prefund") != 0};
}

std::string billingOrganizationOf(RequestContext& ctx, const std::string& organizationId) {
  std::string parent = ctx.services().identity.parentOrganizationId(ctx, organizationId);
  return parent.empty() ? organizationId : parent;
}

const Shape<UpsertP> kUpsertGasUsageConfig = {
    field("orgWindowLimitUsd", &UpsertP::orgWindowLimitUsd),
    field("subOrgWindowLimitUsd", &UpsertP::subOrgWindowLimitUsd),
    field("windowDurationMinutes", &UpsertP::windowDurationMinutes),
    field("enabled", &UpsertP::enabled),
    field("solanaConfig", &UpsertP::solanaConfig, kSolanaGasConfig)};

json::Object upsertGasUsageConfig(ActivityContext& ctx, const UpsertGasUsageConfigParameters& p) {
  std::string billing = billingOrganizationOf(ctx, ctx.organizationId());
  if (billing != ctx.organizationId())
    throw failedPrecondition("gas sponsorship is configured in the parent organization " + billing +
                             ", not in sub-organization " + ctx.organizationId());
  Uint128 org = usdParam(p.orgWindowLimitUsd, "orgWindowLimitUsd");
  Uint128 sub = usdParam(p.subOrgWindowLimitUsd, "subOrgWindowLimitUsd");
  const std::string& windowText = p.windowDurationMinutes;
  auto window = parseU128(windowText);
  if (!window || *window < 1 || *window > kMaxWindowMinutes || windowText.rfind("0x", 0) == 0)
    throw invalidArgument("invalid field parameters.windowDurationMinutes: \"" + windowText +
                          "\" (whole minutes from 1 to 43200)");
  if (org > INT64_MAX || sub > INT64_MAX)
    throw invalidArgument("invalid field parameters.orgWindowLimitUsd: too large");
  auto old = gasConfig(ctx.db(), billing);
  bool enabled = p.enabled.value_or(old ? old->enabled : true);
  bool rent = old && old->rentPrefund;
  if (p.solanaConfig) rent = p.solanaConfig->rentPrefundEnabled.value_or(rent);
  std::string id = old ? old->id : ctx.newId();
  ctx.db().exec("DELETE FROM signing_gas_configs WHERE organization_id = ?", {billing});
  ctx.db().exec(
      "INSERT INTO signing_gas_configs (organization_id, id, org_limit_micros, "
      "sub_org_limit_micros, window_minutes, enabled, rent_prefund, updated_at_ms) VALUES (?, ?, "
      "?, ?, ?, ?, ?, ?)",
      {billing, id, static_cast<int64_t>(org), static_cast<int64_t>(sub),
       static_cast<int64_t>(*window), int64_t{enabled ? 1 : 0}, int64_t{rent ? 1 : 0},
       ctx.nowMs()});
  json::Object r = json::object();
  r->set("gasUsageConfigId", id);
  return r;
}

json::Object getGasUsage(RequestContext& ctx, const json::Object&) {
  std::string billing = billingOrganizationOf(ctx, ctx.organizationId());
  bool root = billing == ctx.organizationId();
  json::Object r = json::object();
  auto config = gasConfig(ctx.db(), billing);
  int64_t minutes = config ? config->windowMinutes : 0;
  int64_t since = ctx.nowMs() - minutes * 60'000;
  r->set("windowDurationMinutes", minutes);
  r->set(
      "windowLimitUsd",
      fixedToDecimal(config ? (root ? config->orgLimitMicros : config->subOrgLimitMicros) : 0, 6));
  r->set(
      "usageUsd",
      fixedToDecimal(config ? usage(ctx.db(), root ? "billing_organization_id" : "organization_id",
                                    ctx.organizationId(), since)
                            : 0,
                     6));
  return r;
}

void requireSponsorship(Db& db, const std::string& organizationId,
                        const std::string& billingOrganizationId, Uint128 extraMicros,
                        int64_t nowMs) {
  auto config = gasConfig(db, billingOrganizationId);
  if (!config)
    throw failedPrecondition("gas sponsorship is not configured for organization " +
                             billingOrganizationId + " (upsert_gas_usage_config)");
  if (!config->enabled)
    throw failedPrecondition("gas sponsorship is disabled for organization " +
                             billingOrganizationId + " (upsert_gas_usage_config enabled)");
  int64_t since = nowMs - config->windowMinutes * 60'000;
  Uint128 all = usage(db, "billing_organization_id", billingOrganizationId, since) + extraMicros;
  if (all > config->orgLimitMicros)
    throw overLimit("orgWindowLimitUsd", config->orgLimitMicros, all, config->windowMinutes);
  if (organizationId != billingOrganizationId) {
    Uint128 own = usage(db, "organization_id", organizationId, since) + extraMicros;
    if (own > config->subOrgLimitMicros)
      throw overLimit("subOrgWindowLimitUsd", config->subOrgLimitMicros, own,
                      config->windowMinutes);
  }
}

void recordUsage(Db& db, const std::string& sendId, const std::string& organizationId,
                 const std::string& billingOrganizationId, Uint128 micros, int64_t nowMs) {
  db.exec(
      "INSERT INTO signing_gas_usage (send_id, organization_id, billing_organization_id, "
      "usd_micros, at_ms) VALUES (?, ?, ?, ?, ?)",
      {sendId, organizationId, billingOrganizationId,
       static_cast<int64_t>(std::min<Uint128>(micros, INT64_MAX)), nowMs});
}

Uint128 usdMicros(Uint128 baseUnits, Uint128 priceMicros, int decimals) {
  Uint128 scale = 1;
  for (int i = 0; i < decimals; ++i) scale *= 10;
  // Split so that the product stays within 128 bits for any realistic cost.
  Uint128 whole = baseUnits / scale, rest = baseUnits % scale;
  return whole * priceMicros + (rest * priceMicros + scale - 1) / scale;
}

}  // namespace signing::broadcast
