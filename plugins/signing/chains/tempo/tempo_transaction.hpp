// Tempo transactions (type 0x76, as viem/tempo and ox serialize them):
// 0x76 ‖ rlp([chain_id, max_priority_fee_per_gas, max_fee_per_gas, gas_limit,
// calls [[to, value, input], ...], access_list, nonce_key, nonce, valid_before, valid_after,
// fee_token, fee_payer, authorization_list]). The sender signs keccak256 of exactly that, and
// the signed form appends the 65-byte secp256k1 signature r ‖ s ‖ (27 + y) as a 14th item.
//
// What a policy could not see is refused rather than signed: an authorization list (it
// delegates the account), a key authorization (it provisions an access key), a fee payer that
// has already signed, and an input that already carries a signature.
#pragma once

#include <string>
#include <vector>

#include "chains/ethereum/rlp.hpp"
#include "signet/crypto.hpp"
#include "signet/json.hpp"

namespace signing {

struct TempoTransaction {
  std::vector<RlpItem> fields;  // the 13 unsigned fields, in wire order
  signet::Bytes raw;            // the input, which is what gets hashed
};

TempoTransaction parseTempoTransaction(const signet::Bytes& raw, const std::string& fieldPath);

signet::crypto::Digest tempoSigningDigest(const TempoTransaction& tx);

signet::Bytes tempoSignedTransaction(const TempoTransaction& tx,
                                     const signet::crypto::RecoverableSignature& sig);

// tempo.tx: chain_id, from (the signer, lowercase), nonce, nonce_key, gas_limit,
// max_fee_per_gas, max_priority_fee_per_gas, fee_token ('' when none), valid_before and
// valid_after (0 when unset), and calls [{to, value, input, function_signature}] with input
// lowercase 0x-hex (so an address argument is input[34..74]) and function_signature its
// first four bytes ('' for shorter input).
signet::json::Object tempoTxFact(const TempoTransaction& tx, const std::string& fromAddress);

}  // namespace signing
