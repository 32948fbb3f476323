// Bitcoin PSBTs (BIP-174 version 0): the input is a hex PSBT; every
// input signWith's key can spend is signed and the PSBT returned, not finalised. P2PKH
// (SIGHASH_ALL over the legacy digest; needs non_witness_utxo) and P2WPKH (BIP-143; needs
// witness_utxo) get a DER signature in partial_sigs under the compressed public key; P2TR key
// path (BIP-341 SIGHASH_DEFAULT; witness_utxo for every input) gets tap_key_sig.
//
// Refused: P2SH and P2WSH inputs the key is in (the public sources leave their scripts
// unsettled), wrapped P2SH-P2W*, taproot script paths, a sighash type other than ALL/DEFAULT,
// an input already signed by the key, PSBT version 2. Also the bitcoin.tx fact.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "chains/bitcoin/bitcoin_sighash.hpp"
#include "signet/json.hpp"

namespace signing {

struct PsbtMap {
  std::vector<std::pair<signet::Bytes, signet::Bytes>> entries;  // in input order
  const signet::Bytes* find(uint8_t keyType) const;  // the entry whose key is just the type
};

struct Psbt {
  PsbtMap global;
  BtcTx tx;
  std::vector<PsbtMap> inputs, outputs;
  // The output each input spends, when its utxo fields say (checked against the txid).
  std::vector<std::optional<BtcOutput>> spent;
};

Psbt parsePsbt(const signet::Bytes& raw, const std::string& field);
signet::Bytes serializePsbt(const Psbt& psbt);

// Signs what the key spends; FailedPrecondition when it spends none of the inputs.
void signPsbt(Psbt& psbt, const signet::crypto::SecretBytes& privateKey,
              const std::string& signWith, const std::string& field);

// bitcoin.tx: version, inputs [{tx_id, vout, sequence}], outputs [{value, script_pubkey,
// address, address_type}], locktime {amount, type: BLOCK_HEIGHT | TIMESTAMP}, and fee when
// every input's spent amount is known. Addresses are for the network of `addressFormat`
// (mainnet when it names none).
signet::json::Object bitcoinTxFact(const Psbt& psbt, const std::string& addressFormat);

}  // namespace signing
