// Policy facts for the signing activities (policy.md §1.3-1.4): `wallet` {id, imported,
// exported, label}, `wallets`, `wallet_account` {address}, `private_key` {id, tags,
// imported, exported, label}, and for typed-data signing `eth.eip_712` {primary_type,
// domain{name, version, chain_id, verifying_contract}, message} and
// `eth.eip_7702_authorization` {address, chain_id, nonce}, and for sign_transaction `eth.tx`
// (sign_transaction.hpp). A fact that does not apply is
// absent, so a policy reading it errors (e.g. `wallet.id` when signing with a private key).
#pragma once

#include "signet/plugin.hpp"

namespace signing {

signet::json::Object signingFacts(signet::RequestContext& ctx, const std::string& activityType,
                                  const signet::json::Object& parameters);

}  // namespace signing
