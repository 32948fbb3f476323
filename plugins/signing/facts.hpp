// Policy facts for the signing activities (Turnkey's policy language: keywords and structs):
// `wallet` {id, imported, exported, label}, `wallets`, `wallet_account` {address}, `private_key`
// {id, tags, imported, exported, label}, and for typed-data signing `eth.eip_712` {primary_type,
// domain{name, version, chain_id, verifying_contract}, message} and
// `eth.eip_7702_authorization` {address, chain_id, nonce}, and for sign_transaction `eth.tx`
// (sign_transaction.hpp). A fact that does not apply is
// absent, so a policy reading it errors (e.g. `wallet.id` when signing with a private key).
#pragma once

#include "signet/plugin.hpp"

namespace signing {

using signet::RequestContext;
using signet::json::Object;

// sign_raw_payload(s): the signer (`wallet` and `wallet_account`, or `private_key`) and
// `eth.eip_712` or `eth.eip_7702_authorization` by the payload's encoding.
Object rawSigningFacts(RequestContext& ctx, const Object& parameters);
// sign_transaction: the signer and the transaction's facts (sign_transaction.hpp).
Object transactionSigningFacts(RequestContext& ctx, const Object& parameters);
// eth_send_transaction and eth_undelegate_7702: the signer of `from`, and for a send of one
// call `eth.tx` {from, to, data, value, chain_id}. sol_send_transaction: the first signer named
// and `solana.tx` of the unsigned transaction.
Object sendTransactionFacts(RequestContext& ctx, const Object& parameters);
// export_wallet_account: the `wallet` and `wallet_account` of `address`.
Object walletAccountFacts(RequestContext& ctx, const Object& parameters);
// Activities on one wallet (`walletId`), on several (`walletIds`: `wallets`), on one private
// key (`privateKeyId`).
Object walletFacts(RequestContext& ctx, const Object& parameters);
Object walletsFacts(RequestContext& ctx, const Object& parameters);
Object privateKeyFacts(RequestContext& ctx, const Object& parameters);

}  // namespace signing
