// The Ed25519 keys deliveries are signed with. The private halves are sealed in the keyring
// ("webhook-key:<kid>"); the public halves are published, unauthenticated, as a JWKS at
// GET /public/v1/discovery/webhooks/jwks, the current key and every retired key whose
// deliveries may still be retried. Signed input, as @turnkey/crypto's verifier rebuilds it:
//   "v1.ed25519.<kid>.<timestampMs>.<eventId>." followed by the raw body.
#pragma once

#include <string>

#include "signet/plugin.hpp"

namespace webhooks {

struct SigningKey {
  std::string kid;
  std::string publicKeyHex;  // 32 bytes
};

// The current key, created on first use (needs a write transaction then).
SigningKey currentKey(signet::RequestContext& ctx);
// A new current key; the old one is retired and stays published for `publishRetiredMs`.
SigningKey rotateKey(signet::RequestContext& ctx);
// The hex signature (64 bytes) of the signed input, by key `kid`.
std::string signDelivery(signet::RequestContext& ctx, const std::string& kid, int64_t timestampMs,
                         const std::string& eventId, const std::string& body);
// {keys: [...]} with every key still published at `nowMs`.
signet::json::Object jwks(signet::RequestContext& ctx, int64_t publishRetiredMs);
// The route handler, with its cache headers.
signet::HttpReply jwksReply(signet::RequestContext& ctx, int64_t publishRetiredMs);

}  // namespace webhooks
