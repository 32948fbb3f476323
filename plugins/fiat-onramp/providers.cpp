// What both providers share: opening a credential's keys, and asking the right provider.
#include "providers.hpp"

namespace fiat_onramp {

using namespace signet;

OpenedKeys openKeys(RequestContext& ctx, const Credential& c) {
  OpenedKeys keys;
  keys.secret = sealedCredentials().open(ctx.keyring(), secretPart(), c.id);
  if (c.provider == kCoinbase)
    keys.privateKey = sealedCredentials().open(ctx.keyring(), privatePart(), c.id);
  return keys;
}

std::optional<std::string> providerStatus(const Settings& s, const Credential& c,
                                          const OpenedKeys& keys, const std::string& transactionId,
                                          int64_t nowMs) {
  if (c.provider == kCoinbase) return coinbaseStatus(s, keys, transactionId, nowMs);
  return moonPayStatus(s, c, keys, transactionId);
}

}  // namespace fiat_onramp
