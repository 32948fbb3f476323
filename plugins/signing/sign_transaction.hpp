// sign_transaction (V2): {signWith, unsignedTransaction, type} ->
// {signedTransaction}, hex without 0x (input with or without). Ethereum, Solana, Tron, Tempo
// and Bitcoin (PSBT) transactions are signed here. Also the transaction's policy facts (eth.tx
// with its ABI-decoded call when the contract has one, solana.tx, tron.tx, tempo.tx,
// bitcoin.tx).
#pragma once

#include "keys/key_material.hpp"
#include "signet/plugin.hpp"
#include "signet/typed_parameters.hpp"

namespace signing {

struct SignTransactionParameters {
  std::string signWith, unsignedTransaction, type;
};
extern const signet::Shape<SignTransactionParameters> kSignTransaction;
signet::json::Object signTransaction(signet::ActivityContext& ctx,
                                     const SignTransactionParameters& params);

// {"eth": {"tx": {...}}}, {"solana": {"tx": ...}}, ... for a transaction that parses; empty
// otherwise (the handler then refuses it, naming what is wrong).
signet::json::Object transactionFacts(signet::RequestContext& ctx, const SignWithTarget& signer,
                                      const signet::json::Object& params);

}  // namespace signing
