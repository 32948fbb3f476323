#include "transactions.hpp"

#include <Poco/Logger.h>

#include <vector>

#include "credentials.hpp"
#include "providers.hpp"
#include "purchase.hpp"
#include "signet/encoding.hpp"

namespace fiat_onramp {

using namespace signet;

namespace {
// The preparer and the handler read the same purchase in the same organization.
std::string preparedKey(RequestContext& ctx, const Purchase& p) {
  auto digest = crypto::sha256(purchaseKey(ctx.organizationId(), p));
  return toHex(digest.data(), digest.size());
}

Credential credentialOf(RequestContext& ctx, const Purchase& p) {
  auto c = credentialFor(ctx.db(), ctx.organizationId(), p.provider, p.sandboxMode);
  if (!c)
    throw invalidArgument("invalid field parameters.onrampProvider: organization " +
                          ctx.organizationId() + " has no " + p.provider + " credential" +
                          (p.sandboxMode ? " in sandbox mode" : " outside sandbox mode") +
                          " (create_fiat_on_ramp_credential)");
  return *c;
}

Poco::Logger& log() {
  return Poco::Logger::get("signet.plugins");
}
}  // namespace

void StatusReports::put(const std::string& transactionId, const std::string& status) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (entries_.size() < kMaxEntries || entries_.count(transactionId))
    entries_[transactionId] = status;
}

std::map<std::string, std::string> StatusReports::drain() {
  std::lock_guard<std::mutex> lock(mutex_);
  return std::exchange(entries_, {});
}

// Coinbase only: its session token comes from its API, fetched here outside the write lock. A
// provider that cannot be reached is remembered, so that the activity fails naming it.
void OnRamp::prepareInit(RequestContext& ctx, const PurchaseParameters& p) {
  Purchase purchase = parsePurchase(p);
  if (purchase.provider != kCoinbase) return;
  auto credential = credentialOf(ctx, purchase);
  auto keys = openKeys(ctx, credential);
  PreparedToken entry;
  try {
    entry.token = coinbaseSessionToken(settings, credential, keys, purchase, ctx.nowMs());
  } catch (const Error& e) {
    if (e.code() != Code::kUnavailable) throw;
    entry.error = e.what();
  }
  tokens.put(preparedKey(ctx, purchase), std::move(entry), ctx.nowMs());
}

json::Object OnRamp::init(ActivityContext& ctx, const PurchaseParameters& p) {
  Purchase purchase = parsePurchase(p);
  if (purchase.urlForSignature) requireMoonPayWidgetUrl(settings, *purchase.urlForSignature);
  auto credential = credentialOf(ctx, purchase);
  auto keys = openKeys(ctx, credential);
  std::string transactionId = ctx.newId();
  json::Object result = json::object();
  if (purchase.provider == kMoonPay) {
    result->set("onRampUrl", moonPayWidgetUrl(settings, credential, keys, purchase, transactionId));
    if (purchase.urlForSignature)
      result->set("onRampUrlSignature", moonPaySignature(keys.secret, *purchase.urlForSignature));
  } else {
    auto prepared = tokens.take(preparedKey(ctx, purchase), ctx.nowMs());
    if (!prepared)
      throw failedPrecondition(
          "Coinbase's session token for this request is no longer held (it is kept for a "
          "minute); submit init_fiat_on_ramp again");
    if (!prepared->error.empty()) throw Error(Code::kUnavailable, prepared->error);
    result->set("onRampUrl",
                coinbaseWidgetUrl(settings, credential, purchase, prepared->token, transactionId));
  }
  result->set("onRampTransactionId", transactionId);
  ctx.db().exec(
      "INSERT INTO fiat_onramp_transactions (id, organization_id, credential_id, provider, "
      "wallet_address, status, last_error, created_at_ms, updated_at_ms, checked_at_ms) VALUES "
      "(?, ?, ?, ?, ?, ?, '', ?, ?, 0)",
      {transactionId, ctx.organizationId(), credential.id, credential.provider,
       purchase.walletAddress, std::string(kPending), ctx.nowMs(), ctx.nowMs()});
  return result;
}

// A refresh asks the provider now; what it learns is answered at once and stored by the worker
// (a query runs on a read snapshot).
json::Object OnRamp::status(RequestContext& ctx, const json::Object& body) {
  std::string id = json::requireUuid(body, "transactionId", "");
  auto row = ctx.db().queryOne(
      "SELECT status, credential_id FROM fiat_onramp_transactions WHERE organization_id = ? AND "
      "id = ?",
      {ctx.organizationId(), id});
  if (!row)
    throw notFound("on-ramp transaction " + id + " (transactionId) not found in organization " +
                   ctx.organizationId());
  std::string status = row->str("status");
  if (json::optionalBool(body, "refresh", "", false) && status == kPending) {
    auto credential = findCredential(ctx.db(), ctx.organizationId(), row->str("credential_id"));
    if (!credential)
      throw failedPrecondition("the credential of on-ramp transaction " + id +
                               " was deleted; its status cannot be refreshed");
    if (auto reported =
            providerStatus(settings, *credential, openKeys(ctx, *credential), id, ctx.nowMs())) {
      status = *reported;
      reports.put(id, status);
      if (auto* w = worker.load()) w->wake();
    }
  }
  json::Object r = json::object();
  r->set("transactionStatus", status);
  return r;
}

void OnRamp::runWorker(WorkerContext& w) {
  worker = &w;
  const int64_t interval = int64_t{settings.pollIntervalSeconds} * 1000;
  // Without polling the worker still stores what refreshes learn.
  const int64_t wait = interval > 0 ? interval : 60'000;
  struct Due {
    std::string id, organizationId, credentialId;
  };
  while (w.waitFor(wait)) {
    auto learned = reports.drain();
    std::vector<Due> due;
    if (interval > 0)
      w.read([&](RequestContext& ctx) {
        for (const auto& r : ctx.db().query(
                 "SELECT id, organization_id, credential_id FROM fiat_onramp_transactions WHERE "
                 "status = ? AND created_at_ms >= ? AND checked_at_ms <= ? ORDER BY "
                 "checked_at_ms LIMIT 50",
                 {std::string(kPending), w.nowMs() - int64_t{settings.pollWindowHours} * 3'600'000,
                  w.nowMs() - interval}))
          due.push_back({r.str("id"), r.str("organization_id"), r.str("credential_id")});
      });
    std::map<std::string, std::string> errors;
    for (const auto& d : due) {
      if (w.stopping()) break;
      try {
        std::optional<Credential> credential;
        OpenedKeys keys;
        w.read([&](RequestContext& ctx) {
          credential = findCredential(ctx.db(), d.organizationId, d.credentialId);
          if (credential) keys = openKeys(ctx, *credential);
        });
        if (!credential) {
          errors[d.id] = "the credential was deleted";
          continue;
        }
        if (auto reported = providerStatus(settings, *credential, keys, d.id, w.nowMs()))
          learned[d.id] = *reported;
        else
          errors[d.id] = "";
      } catch (const std::exception& e) {
        errors[d.id] = e.what();
        log().warning("fiat-onramp: could not ask about transaction %s: %s", d.id,
                      std::string(e.what()));
      }
    }
    if (learned.empty() && errors.empty()) continue;
    w.transaction([&](RequestContext& ctx) {
      for (const auto& [id, status] : learned)
        ctx.db().exec(
            "UPDATE fiat_onramp_transactions SET status = ?, last_error = '', updated_at_ms = ?, "
            "checked_at_ms = ? WHERE id = ?",
            {status, ctx.nowMs(), ctx.nowMs(), id});
      for (const auto& [id, error] : errors)
        ctx.db().exec(
            "UPDATE fiat_onramp_transactions SET last_error = ?, checked_at_ms = ? WHERE id = ?",
            {error, ctx.nowMs(), id});
    });
  }
  worker = nullptr;
}

void forgetOrganization(ActivityContext& ctx, const std::string& organizationId, bool) {
  sealedCredentials().removeAllOf(ctx.db(), ctx.keyring(), organizationId);
  ctx.db().exec("DELETE FROM fiat_onramp_transactions WHERE organization_id = ?", {organizationId});
}

}  // namespace fiat_onramp
