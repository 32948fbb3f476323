// What both providers share: opening a credential's keys, and asking the right provider.
#include "providers.hpp"

namespace fiat_onramp {

using namespace signet;

OpenedKeys openKeys(RequestContext& ctx, const Credential& c) {
  OpenedKeys keys;
  keys.secret = ctx.keyring().open(secretKeyId(c.id), kSecretKind);
  if (c.provider == kCoinbase)
    keys.privateKey = ctx.keyring().open(privateKeyId(c.id), kPrivateKind);
  return keys;
}

std::optional<std::string> providerStatus(const Settings& s, const Credential& c,
                                          const OpenedKeys& keys, const std::string& transactionId,
                                          int64_t nowMs) {
  if (c.provider == kCoinbase) return coinbaseStatus(s, keys, transactionId, nowMs);
  return moonPayStatus(s, c, keys, transactionId);
}

}  // namespace fiat_onramp
