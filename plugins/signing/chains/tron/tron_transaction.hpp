// Tron transactions: the input is the protobuf Transaction.raw
// (raw_data_hex); sha256 of it is signed with secp256k1, and the output is the protobuf
// Transaction{raw_data, signature: [r‖s‖v]} with v = 27 + recovery id, as TronWeb writes it.
// Also the tron.tx policy fact (Turnkey's policy language).
//
// Only what a policy can read is signed: raw fields beyond the ones TronWeb writes (auths,
// scripts), contract types outside the table in tron_transaction.cpp, unknown fields inside a
// contract, and more than one contract (which java-tron rejects too) are refused.
#pragma once

#include <string>
#include <vector>

#include "signet/encoding.hpp"
#include "signet/json.hpp"

namespace signing {

struct TronContract {
  std::string type;  // ContractType name, e.g. TransferContract
  int64_t permissionId = 0;
  signet::json::Object fields;  // the parameter's fields as the policy fact shows them
};

struct TronTransaction {
  signet::Bytes raw;
  signet::Bytes refBlockBytes, refBlockHash, memo;
  int64_t refBlockNum = 0, expiration = 0, timestamp = 0, feeLimit = 0;
  std::vector<TronContract> contracts;
};

// InvalidArgument naming `field` for anything malformed or refused (see above).
TronTransaction parseTronTransaction(const signet::Bytes& raw, const std::string& field);

// Transaction{raw_data = raw, signature = [signature65]}.
signet::Bytes tronSignedTransaction(const TronTransaction& tx, const signet::Bytes& signature65);

signet::json::Object tronTxFact(const TronTransaction& tx);

}  // namespace signing
